package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two single-function libraries: FUNCTION LIST is then comparable between
// servers once its top level is sorted (Redis lists in dict order).
var fnPersistLibs = []string{
	"#!lua name=libw\nredis.register_function('wr', function(keys, args) redis.call('set', keys[1], args[1]) return redis.call('incr', keys[2]) end)\n",
	"#!lua name=libr\nredis.register_function{function_name='rd', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='a reader'}\n",
}

func loadPersistLibs(t *testing.T, c *respConn) {
	t.Helper()
	for _, code := range fnPersistLibs {
		if r := c.do("FUNCTION", "LOAD", code); !strings.HasPrefix(r, "$") {
			t.Fatalf("FUNCTION LOAD: %q", r)
		}
	}
}

func fnList(c *respConn) string {
	return normalize(c.do("FUNCTION", "LIST", "WITHCODE"), mSorted)
}

// checkFunctions compares the libraries of two servers and runs them.
func checkFunctions(t *testing.T, want, got *respConn) {
	t.Helper()
	if a, b := fnList(want), fnList(got); a != b {
		t.Fatalf("FUNCTION LIST:\n got  %q\n want %q", b, a)
	}
	if r := got.do("FCALL", "wr", "2", "fk", "fcnt", "v"); !strings.HasPrefix(r, ":") {
		t.Fatalf("FCALL wr: %q", r)
	}
	if r := got.do("FCALL_RO", "rd", "1", "fk"); r != "$1\r\nv\r\n" {
		t.Fatalf("FCALL_RO rd: %q", r)
	}
}

func TestFunctionRDBInterop(t *testing.T) {
	requireRedis(t)
	t.Run("ours-to-redis", func(t *testing.T) {
		ts := startOurServer(t)
		c := dial(t, ts.addr)
		loadPersistLibs(t, c)
		c.do("SET", "k", "v")
		if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
			t.Fatalf("BGSAVE: %q", r)
		}
		waitInfo(t, c, "rdb_bgsave_in_progress", "0")
		waitInfo(t, c, "rdb_last_bgsave_status", "ok")
		cp := t.TempDir()
		copyDir(t, ts.dir, cp)
		rr := startRealRedis(t, "--dir", cp, "--dbfilename", "dump.rdb")
		checkFunctions(t, c, dial(t, rr.addr))
	})
	t.Run("redis-to-ours", func(t *testing.T) {
		rr := startRealRedis(t)
		c := dial(t, rr.addr)
		loadPersistLibs(t, c)
		if r := c.do("SAVE"); r != "+OK\r\n" {
			t.Fatalf("SAVE: %q", r)
		}
		cp := t.TempDir()
		copyDir(t, rr.dir, cp)
		ts := startOurServer(t, "--dir", cp)
		checkFunctions(t, c, dial(t, ts.addr))
	})
	t.Run("debug-reload", func(t *testing.T) {
		ts := startOurServer(t)
		c := dial(t, ts.addr)
		loadPersistLibs(t, c)
		before := fnList(c)
		if r := c.do("DEBUG", "RELOAD"); r != "+OK\r\n" {
			t.Fatalf("DEBUG RELOAD: %q", r)
		}
		if after := fnList(c); after != before {
			t.Fatalf("after DEBUG RELOAD %q, want %q", after, before)
		}
		c.do("FUNCTION", "DELETE", "libr")
		c.do("DEBUG", "RELOAD")
		if r := c.do("FCALL", "rd", "1", "x"); r != "-ERR Function not found\r\n" {
			t.Fatalf("deleted library came back: %q", r)
		}
	})
	t.Run("debug-loadaof", func(t *testing.T) {
		ts := startOurServer(t, "--appendonly", "yes")
		c := dial(t, ts.addr)
		loadPersistLibs(t, c)
		c.do("FCALL", "wr", "2", "fk", "fcnt", "v")
		before, digest := fnList(c), c.do("DEBUG", "DIGEST")
		if r := c.do("DEBUG", "LOADAOF"); r != "+OK\r\n" {
			t.Fatalf("DEBUG LOADAOF: %q", r)
		}
		if after := fnList(c); after != before {
			t.Fatalf("after DEBUG LOADAOF %q, want %q", after, before)
		}
		if d := c.do("DEBUG", "DIGEST"); d != digest {
			t.Fatalf("digest %q, want %q", d, digest)
		}
	})
}

func TestFunctionAOFInterop(t *testing.T) {
	requireRedis(t)
	for _, mode := range []string{"incr", "rewrite-preamble", "rewrite-resp"} {
		t.Run("ours-to-redis/"+mode, func(t *testing.T) {
			preamble := "yes"
			if mode == "rewrite-resp" {
				preamble = "no"
			}
			ts := startOurServer(t, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble)
			c := dial(t, ts.addr)
			loadPersistLibs(t, c)
			c.do("FUNCTION", "LOAD", "#!lua name=gone\nredis.register_function('g', function() return 1 end)")
			c.do("FUNCTION", "DELETE", "gone")
			c.do("FCALL", "wr", "2", "a", "cnt", "x")
			if mode != "incr" {
				c.do("BGREWRITEAOF")
				waitInfo(t, c, "aof_rewrite_in_progress", "0")
				waitInfo(t, c, "aof_last_bgrewrite_status", "ok")
			}
			c.do("FCALL", "wr", "2", "b", "cnt", "y")
			want := c.do("DEBUG", "DIGEST")
			cp := t.TempDir()
			copyDir(t, ts.dir, cp)
			rr := startRealRedis(t, "--appendonly", "yes", "--dir", cp)
			r := dial(t, rr.addr)
			if got := r.do("DEBUG", "DIGEST"); got != want {
				log, _ := os.ReadFile(filepath.Join(cp, "redis.log"))
				t.Fatalf("real redis digest %q, ours %q\n%s", got, want, log)
			}
			checkFunctions(t, c, r)
		})
	}
	t.Run("redis-to-ours", func(t *testing.T) {
		rr := startRealRedis(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--appendfsync", "always")
		c := dial(t, rr.addr)
		loadPersistLibs(t, c)
		c.do("FCALL", "wr", "2", "a", "cnt", "x")
		c.do("BGREWRITEAOF")
		waitInfo(t, c, "aof_rewrite_in_progress", "0")
		c.do("FUNCTION", "LOAD", "#!lua name=later\nredis.register_function('l', function() return 1 end)")
		c.do("FUNCTION", "DELETE", "later")
		want := c.do("DEBUG", "DIGEST")
		cp := t.TempDir()
		copyDir(t, rr.dir, cp)
		ts := startOurServer(t, "--appendonly", "yes", "--dir", cp)
		o := dial(t, ts.addr)
		if got := o.do("DEBUG", "DIGEST"); got != want {
			t.Fatalf("our digest %q, real redis %q\n%s", got, want, ts.logs.String())
		}
		checkFunctions(t, c, o)
	})
}

// FCALL is logged as its effects, FUNCTION LOAD / DELETE as sent.
func TestFunctionPropagation(t *testing.T) {
	ts := startOurServer(t, "--appendonly", "yes", "--appendfsync", "always")
	c := dial(t, ts.addr)
	loadPersistLibs(t, c)
	ts.s.mu.Lock()
	n := ts.s.scripts().NumFunctions()
	ts.s.mu.Unlock()
	if n != 2 {
		t.Fatalf("numFunctions = %d", n)
	}
	c.do("FCALL", "wr", "2", "a", "cnt", "x")
	c.do("FCALL_RO", "rd", "1", "a")
	c.do("FUNCTION", "DELETE", "libr")
	c.do("FUNCTION", "FLUSH")
	files, _ := filepath.Glob(filepath.Join(ts.dir, "appendonlydir", "*.incr.aof"))
	if len(files) != 1 {
		t.Fatalf("incr files: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	got := string(b)
	for _, want := range []string{
		"*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n",
		"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nx\r\n*2\r\n$4\r\nincr\r\n$3\r\ncnt\r\n*1\r\n$4\r\nEXEC\r\n",
		"*3\r\n$8\r\nFUNCTION\r\n$6\r\nDELETE\r\n$4\r\nlibr\r\n",
		"*2\r\n$8\r\nFUNCTION\r\n$5\r\nFLUSH\r\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("AOF lacks %q:\n%q", want, got)
		}
	}
	if strings.Contains(strings.ToLower(got), "fcall") {
		t.Errorf("FCALL itself was logged:\n%q", got)
	}
}

func TestFunctionDumpRestoreInterop(t *testing.T) {
	requireRedis(t)
	ours := startOurServer(t)
	rr := startRealRedis(t)
	o, r := dial(t, ours.addr), dial(t, rr.addr)
	loadPersistLibs(t, r)
	payload := bulkText(r.do("FUNCTION", "DUMP"))
	if got := o.do("FUNCTION", "RESTORE", payload); got != "+OK\r\n" {
		t.Fatalf("RESTORE of Redis's payload: %q", got)
	}
	checkFunctions(t, r, o)
	// and back: Redis restores ours
	ourPayload := bulkText(o.do("FUNCTION", "DUMP"))
	if got := r.do("FUNCTION", "RESTORE", ourPayload, "FLUSH"); got != "+OK\r\n" {
		t.Fatalf("Redis RESTORE of our payload: %q", got)
	}
	checkFunctions(t, o, r)

	// The same single library dumps to the same bytes (LZF included).
	o.do("FUNCTION", "FLUSH")
	r.do("FUNCTION", "FLUSH")
	long := "#!lua name=long\n-- " + strings.Repeat("padding ", 40) + "\nredis.register_function('lf', function() return 'long' end)\n"
	o.do("FUNCTION", "LOAD", long)
	r.do("FUNCTION", "LOAD", long)
	if a, b := o.do("FUNCTION", "DUMP"), r.do("FUNCTION", "DUMP"); a != b {
		t.Fatalf("FUNCTION DUMP differs:\n ours  %q\n redis %q", a, b)
	}

	// Error cases, compared with Redis.
	keyDump := bulkText(r.do("DUMP", "nokey"))
	r.do("SET", "sk", "v")
	keyDump = bulkText(r.do("DUMP", "sk"))
	longPayload := bulkText(r.do("FUNCTION", "DUMP"))
	corrupt := []byte(longPayload)
	corrupt[3] ^= 0xff
	p := newDiffPair(t)
	p.run([][]string{
		cmd("function", "load", long),
		cmd("function", "restore", longPayload),
		cmd("function", "restore", longPayload, "append"),
		cmd("function", "restore", longPayload, "replace"),
		cmd("function", "restore", longPayload, "flush"),
		cmd("function", "restore", longPayload, "bogus"),
		cmd("function", "restore", string(corrupt)),
		cmd("function", "restore", keyDump),
		cmd("function", "restore", "short"),
		cmd("function", "load", "#!lua name=other\nredis.register_function('lf', function() return 1 end)"),
		cmd("function", "delete", "long"),
		cmd("function", "load", "#!lua name=other\nredis.register_function('lf', function() return 1 end)"),
		cmd("function", "restore", longPayload),
		cmd("function", "restore", longPayload, "replace"),
		cmd("function", "restore", longPayload, "flush"),
		cmd("fcall", "lf", "0"),
		cmd("function", "dump"),
	})
	_ = keyDump
}

// MONITOR shows EVAL / FCALL, then the commands they run from "lua".
func TestFunctionMonitorMatchesRedis(t *testing.T) {
	requireRedis(t)
	run := func(addr string) []string {
		m, c := dial(t, addr), dial(t, addr)
		m.send("MONITOR")
		if r := m.read(); r != "+OK\r\n" {
			t.Fatalf("MONITOR: %q", r)
		}
		c.do("EVAL", "return redis.call('set', KEYS[1], 'b')", "1", "a")
		c.do("FUNCTION", "LOAD", "#!lua name=m\nredis.register_function('m', function(k) return redis.call('get', k[1]) end)")
		c.do("FCALL", "m", "1", "a")
		var out []string
		for i := 0; i < 5; i++ {
			line := m.read()
			// drop the timestamp and the client's address
			if j := strings.Index(line, " ["); j >= 0 {
				line = line[j:]
			}
			if j := strings.Index(line, "127.0.0.1:"); j >= 0 {
				k := strings.IndexByte(line[j:], ']')
				line = line[:j] + "client" + line[j+k:]
			}
			out = append(out, line)
		}
		return out
	}
	want := run(startRealRedis(t).addr)
	got := run(startOurServer(t).addr)
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("MONITOR:\n ours  %q\n redis %q", got, want)
	}
}
