package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newACLFilePair starts both servers with aclfile users.acl in a directory
// of their own holding content.
func newACLFilePair(t *testing.T, content string, args ...string) (p *diffPair, oursDir, realDir string) {
	t.Helper()
	oursDir, realDir = t.TempDir(), t.TempDir()
	for _, d := range []string{oursDir, realDir} {
		if err := os.WriteFile(filepath.Join(d, "users.acl"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real := startRealRedis(t, append([]string{"--dir", realDir, "--aclfile", "users.acl"}, args...)...)
	ours := startOurServer(t, append([]string{"--dir", oursDir, "--aclfile", "users.acl"}, args...)...)
	p = &diffPair{t: t, ours: ours, real: real}
	p.oc[0], p.rc[0] = dial(t, ours.addr), dial(t, real.addr)
	return p, oursDir, realDir
}

const testACLFile = "user alice on allcommands allkeys &* >alice\nuser bob on -@all +@set +acl ~set* &* >bob\nuser default on nopass ~* &* +@all\n"

// acl.tcl's ACL file cases: users loaded at start, ACL LOAD and SAVE,
// load errors leaving the users unchanged.
func TestDiffACLFile(t *testing.T) {
	p, oursDir, realDir := newACLFilePair(t, testACLFile)
	p.runACL([][]string{
		aclNorm("ACL", "LIST"),
		cmd("AUTH", "alice", "alice"), cmd("ACL", "WHOAMI"), cmd("SET", "key", "value"),
		cmd("AUTH", "bob", "bob"), cmd("ACL", "WHOAMI"), cmd("SADD", "set", "1", "2", "3"), cmd("SET", "key", "value"),
		cmd("AUTH", "default", ""),
		cmd("ACL", "SETUSER", "eve", "+get", "allkeys", ">eve", "on"),
		cmd("ACL", "SETUSER", "harry", "on", "nopass", "resetchannels", "&test", "+@all", "~*", "(+set ~x*)"),
		cmd("ACL", "SAVE"), cmd("ACL", "LOAD"),
		aclNorm("ACL", "LIST"),
		cmd("AUTH", "eve", "eve"), cmd("GET", "key"), cmd("SET", "key", "value"),
		cmd("AUTH", "harry", "x"), cmd("PUBLISH", "test", "m"), cmd("PUBLISH", "test1", "m"),
		cmd("AUTH", "default", ""),
	})
	read := func(d string) string {
		b, err := os.ReadFile(filepath.Join(d, "users.acl"))
		if err != nil {
			t.Fatal(err)
		}
		return normalizeACLRules(string(b))
	}
	if got, want := read(oursDir), read(realDir); got != want {
		t.Errorf("ACL SAVE wrote\n%s\nredis wrote\n%s", got, want)
	}
	// a client of a user the load replaces
	p.runACL([][]string{conn2("AUTH", "bob", "bob"), conn2("SADD", "set", "4")})
	corrupt := func(extra string) {
		for _, d := range []string{oursDir, realDir} {
			if err := os.WriteFile(filepath.Join(d, "users.acl"), []byte(testACLFile+extra), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	corrupt("user alice on nopass ~* -@all\n")
	p.runACL([][]string{cmd("ACL", "LOAD"), aclNorm("ACL", "GETUSER", "alice"), conn2("SADD", "set", "5")})
	corrupt("user x on +nosuch ~a* %Q~b\nfoo bar\nuser\nuser  y\nuser z (+get\n\nuser y on #abc")
	p.runACL([][]string{cmd("ACL", "LOAD"), aclNorm("ACL", "LIST")})
	corrupt("")
	p.runACL([][]string{cmd("ACL", "LOAD"), aclNorm("ACL", "LIST")})
	oc, rc := p.conn(1)
	for _, c := range []*respConn{oc, rc} {
		c.send("PING")
		if raw, err := readRaw(c.br); err == nil {
			t.Errorf("a client of a user ACL LOAD replaced still answers: %q", raw)
		}
	}
	for _, d := range []string{oursDir, realDir} {
		os.Remove(filepath.Join(d, "users.acl"))
	}
	p.runACL([][]string{cmd("ACL", "LOAD"), cmd("ACL", "SAVE"), aclNorm("ACL", "LIST")})
}

// The config file's user lines (acl.tcl's "default: load from config
// file"), and CONFIG REWRITE writing the users back.
func TestDiffACLConfigUsers(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "users.conf")
	body := "user default on nopass ~* +@all\nuser bob on >pw ~k* +get (+set ~s*)\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newDiffPair(t, "--include", conf)
	p.runACL([][]string{
		aclNorm("ACL", "LIST"),
		cmd("SUBSCRIBE", "foo"),
		cmd("AUTH", "bob", "pw"), cmd("GET", "k1"), cmd("SET", "s1", "v"), cmd("SET", "k1", "v"),
	})
	if strings.Contains(normalizeACLRules(p.oc[0].do("ACL", "LIST")), "\x00") {
		t.Fatal("unreachable")
	}
}
