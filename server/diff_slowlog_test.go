package server

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// SLOWLOG and MONITOR against real Redis 7.0.15 (tests/unit/slowlog.tcl and
// introspection.tcl's MONITOR cases, and more): both show a command once it
// ran, as the client sent it (not as it propagates), with the secrets of
// AUTH, HELLO AUTH, ACL SETUSER and CONFIG SET of a sensitive directive
// "(redacted)"; MONITOR in the DB the command left selected, EXEC after
// the commands it ran, scripts' commands as [db lua].

// logStep is one command of a logScenario: conn 0 is the main client, 1 a
// second one; nocmp skips comparing its reply (ACL SETUSER: this server
// has only the default user).
type logStep struct {
	conn  int
	nocmp bool
	args  []string
}

func lc(args ...string) logStep      { return logStep{args: args} }
func lc2(args ...string) logStep     { return logStep{conn: 1, args: args} }
func lcNoCmp(args ...string) logStep { return logStep{nocmp: true, args: args} }

// logRun is what one server showed: replies, SLOWLOG entries and MONITOR
// lines, with addresses named after the connections and times masked.
type logRun struct {
	replies []string
	slowlog []string
	monitor []string
}

var monitorTime = regexp.MustCompile(`^\+\d+\.\d{6} \[`)

func runLogScenario(t *testing.T, addr string, steps []logStep) logRun {
	t.Helper()
	m := dial(t, addr)
	if r := m.do("MONITOR"); r != "+OK\r\n" {
		t.Fatalf("MONITOR: %q", r)
	}
	conns := [2]*respConn{dial(t, addr), dial(t, addr)}
	names := map[string]string{
		conns[0].nc.LocalAddr().String(): "c0",
		conns[1].nc.LocalAddr().String(): "c1",
		m.nc.LocalAddr().String():        "mon",
	}
	addrName := func(a string) string {
		if n, ok := names[a]; ok {
			return n
		}
		return a
	}
	var run logRun
	conns[0].do("CONFIG", "SET", "slowlog-log-slower-than", "0")
	conns[0].do("SLOWLOG", "RESET")
	for _, st := range steps {
		r := conns[st.conn].do(st.args...)
		if st.nocmp {
			r = "(not compared)"
		}
		run.replies = append(run.replies, r)
	}
	// The SLOWLOG, oldest first, without times, durations and ids.
	raw := conns[0].do("SLOWLOG", "GET", "-1")
	_, entries, ok := splitRaw(raw)
	if !ok {
		t.Fatalf("SLOWLOG GET: %q", raw)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		_, f, ok := splitRaw(entries[i])
		if !ok || len(f) != 6 {
			t.Fatalf("SLOWLOG entry: %q", entries[i])
		}
		_, args, _ := splitRaw(f[3])
		var sb strings.Builder
		for j, a := range args {
			if j > 0 {
				sb.WriteByte(' ')
			}
			fmt.Fprintf(&sb, "%q", bulkText(a))
		}
		run.slowlog = append(run.slowlog, fmt.Sprintf("%s [%s %q]", sb.String(), addrName(bulkText(f[4])), bulkText(f[5])))
	}
	// MONITOR up to a last PING.
	conns[0].do("PING", "end-of-scenario")
	for {
		line := m.read()
		if !monitorTime.MatchString(line) {
			t.Fatalf("MONITOR line %q", line)
		}
		line = strings.TrimSuffix(monitorTime.ReplaceAllString(line, "["), "\r\n")
		for a, n := range names {
			line = strings.Replace(line, " "+a+"]", " "+n+"]", 1)
		}
		if strings.Contains(line, `"end-of-scenario"`) {
			break
		}
		run.monitor = append(run.monitor, line)
	}
	return run
}

func diffLogScenario(t *testing.T, steps []logStep, args ...string) {
	t.Helper()
	requireRedis(t)
	rr := startRealRedis(t, args...)
	ours := startOurServer(t, args...)
	want := runLogScenario(t, rr.addr, steps)
	got := runLogScenario(t, ours.addr, steps)
	for i := range want.replies {
		if got.replies[i] != want.replies[i] {
			t.Errorf("reply to %q:\n ours:  %q\n redis: %q", steps[i].args, got.replies[i], want.replies[i])
		}
	}
	compareLines(t, "SLOWLOG", got.slowlog, want.slowlog)
	compareLines(t, "MONITOR", got.monitor, want.monitor)
}

func compareLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("%s differs:\n ours:\n  %s\n redis:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
}

// Secrets: what slowlog.tcl's "Certain commands are omitted that contain
// sensitive information" and introspection.tcl's "MONITOR supports
// redacting command arguments" check, and where Redis does not redact
// (the argument count or the protocol version refused first).
func TestDiffLogRedaction(t *testing.T) {
	diffLogScenario(t, []logStep{
		lc("AUTH", "not-real"),
		lc("AUTH", "not-real", "not-a-password"),
		lc("AUTH", "a", "b", "c"),
		lc("HELLO", "2", "AUTH", "not-real", "not-a-password"),
		lc("HELLO", "3", "AUTH", "not-real", "not-a-password"),
		lcNoCmp("HELLO", "2", "AUTH", "default", "p", "SETNAME", "n"), // replies carry the client id
		lc("HELLO", "4", "AUTH", "u", "p"),
		lc("HELLO", "3", "AUTH", "u"),
		lc("HELLO", "2", "AUTH", "u", "p", "BAD"),
		lcNoCmp("HELLO", "2", "SETNAME", "x", "AUTH", "default", "wrong"),
		lcNoCmp("HELLO", "2", "SETNAME", "named"),
		lc("CONFIG", "SET", "masterauth", ""),
		lc("CONFIG", "SET", "masteruser", "mu"),
		lc("CONFIG", "SET", "masteruser", "mu", "requirepass", "rp", "nosuch", "v"),
		lc("CONFIG", "SET", "requirepass", "x", "maxmemory", "bad"),
		lc("CONFIG", "SET", "requirepass", ""),
		lc("CONFIG", "SET", "MASTERAUTH", "secret"),
		lcNoCmp("ACL", "SETUSER", "slowlog-test-user", "+get", "+set"),
		lcNoCmp("ACL", "SETUSER", "bob", "on", ">pw"),
		lcNoCmp("ACL", "SETUSER", "bob"),
		lcNoCmp("ACL", "DELUSER", "slowlog-test-user", "bob"),
		lc("CONFIG", "SET", "slowlog-log-slower-than", "0"),
	})
}

// Rewritten commands are logged as the client sent them (slowlog.tcl's
// "Rewritten commands are logged as their original command"), MONITOR shows
// the DB after the command, EXEC after what it ran and an aborted EXEC,
// scripts' commands with the script's client, and slowlog.tcl's trimming.
func TestDiffLogCommands(t *testing.T) {
	long := strings.Repeat("A", 129)
	many := []string{"SADD", "set"}
	for i := 3; i <= 33; i++ {
		many = append(many, fmt.Sprint(i))
	}
	diffLogScenario(t, []logStep{
		lc("SADD", "set", "a", "b", "c", "d", "e"),
		lcNoCmp("SPOP", "set", "10"), // random order
		lc("SADD", "s", "a", "b", "c"),
		lcNoCmp("SPOP", "s"),
		lc("GEOADD", "cool-cities", "-122.33207", "47.60621", "Seattle"),
		lc("SET", "A", "5"),
		lc("GETSET", "a", "5"),
		lc("SET", "A", "0"),
		lc("INCRBYFLOAT", "A", "1.0"),
		lc("HINCRBYFLOAT", "h", "f", "2.5"),
		lc("SET", "k", "v", "EX", "100"),
		lc("SET", "k", "v", "PX", "100000", "GET"),
		lc("EXPIRE", "k", "100"),
		lc("PEXPIRE", "k", "100000"),
		lc("SETEX", "k2", "100", "v"),
		lc("PSETEX", "k3", "100000", "v"),
		lc("GETEX", "k", "EX", "50"),
		lc("GETEX", "k", "PERSIST"),
		lc("GETDEL", "k2"),
		lc("RPUSH", "l", "a", "b", "c"),
		lc("BLPOP", "l", "0"),
		lc("BLMOVE", "l", "l2", "LEFT", "RIGHT", "0"),
		lc("LMPOP", "1", "l", "LEFT"),
		lc("ZADD", "z", "1", "a", "2", "b"),
		lc("BZPOPMIN", "z", "0"),
		lc("XADD", "st", "1-1", "f", "v"),
		lc("XGROUP", "CREATE", "st", "g", "0"),
		lc("XREADGROUP", "GROUP", "g", "c", "STREAMS", "st", ">"),
		lc("SELECT", "3"),
		lc("SET", "in3", "v"),
		lc("SELECT", "0"),
		lc("MULTI"), lc("SET", "a", "1"), lc("INCR", "a"), lc("EXEC"),
		lc("MULTI"), lc("SET", "a"), lc("EXEC"),
		lc("MULTI"), lc("SELECT", "2"), lc("EXEC"), lc("SELECT", "0"),
		lc("MULTI"), lc("SET", "x", "1"), lc2("CONFIG", "SET", "maxmemory", "1"), lc("EXEC"), lc2("CONFIG", "SET", "maxmemory", "0"),
		lc("MULTI"), lc("SET", "x", "1"), lc("EXEC", "extra"), lc("DISCARD"),
		lc("EVAL", "redis.call('set','x','1') return redis.call('incrbyfloat','x','1')", "0"),
		lc("EVAL", "redis.call('select','5') return redis.call('set','y','1')", "0"),
		lcNoCmp("EVAL", "return redis.pcall('spop','s','10')", "0"),
		lc("NOSUCHCOMMAND", "x"),
		lc("GET"),
		lc("CLIENT", "SETNAME", "foobar"),
		lc(many...),
		lc("SADD", "set", "foo", long),
		lc("DEBUG", "SLEEP", "0"),
		lc2("PING"),
		lc("RESET"),
	})
}

// A command that blocked is logged when it is served, as it was sent
// (slowlog.tcl: "blocked BLPOP is replicated as LPOP"); MONITOR showed it
// when it blocked.
func TestDiffLogBlocked(t *testing.T) {
	scenario := func(t *testing.T, addr string) []string {
		c := dial(t, addr)
		m := dial(t, addr)
		m.do("MONITOR")
		c.do("CONFIG", "SET", "slowlog-log-slower-than", "0")
		c.do("SLOWLOG", "RESET")
		b := dial(t, addr)
		b.send("BLPOP", "l", "0")
		// MONITOR shows BLPOP once it ran, that is once b is blocked.
		for !strings.Contains(m.read(), `"BLPOP"`) {
		}
		c.do("MULTI")
		c.do("LPUSH", "l", "foo")
		c.do("SLOWLOG", "RESET")
		c.do("EXEC")
		out := []string{b.read()}
		_, entries, _ := splitRaw(c.do("SLOWLOG", "GET", "-1"))
		for i := len(entries) - 1; i >= 0; i-- {
			_, f, _ := splitRaw(entries[i])
			out = append(out, f[3])
		}
		c.do("PING", "end")
		for {
			line := strings.TrimSuffix(monitorTime.ReplaceAllString(m.read(), "["), "\r\n")
			line = regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(line, "addr")
			out = append(out, line)
			if strings.Contains(line, `"end"`) {
				break
			}
		}
		return out
	}
	requireRedis(t)
	rr := startRealRedis(t)
	ours := startOurServer(t)
	compareLines(t, "BLPOP served in EXEC", scenario(t, ours.addr), scenario(t, rr.addr))
}
