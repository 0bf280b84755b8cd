package server

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Differences found sweeping Redis 7.0.15's tests/unit/*.tcl for a single
// server (introspection, keyspace, other, info, lazyfree ...), each
// checked against the real redis-server.

// CONFIG SET of a directive and its alias in one call: Redis 7.0
// registers an alias as a directive of its own, so both are set (the last
// wins) and an error names the alias as given.
func TestDiffConfigSetAliasPairs(t *testing.T) {
	diff(t, [][]string{
		cmd("CONFIG", "SET", "list-max-ziplist-size", "-2", "list-max-listpack-size", "-3"),
		cmd("CONFIG", "GET", "list-max-ziplist-size"),
		cmd("CONFIG", "GET", "list-max-listpack-size"),
		cmd("CONFIG", "SET", "hash-max-listpack-entries", "10", "hash-max-ziplist-entries", "20"),
		cmd("CONFIG", "GET", "hash-max-listpack-entries"),
		cmd("CONFIG", "SET", "hash-max-ziplist-entries", "abc"),
		cmd("CONFIG", "SET", "HASH-MAX-ZIPLIST-ENTRIES", "abc"),
		cmd("CONFIG", "SET", "HZ", "abc"),
		cmd("CONFIG", "SET", "maxmemory", "1", "MAXMEMORY", "2"),
		cmd("CONFIG", "SET", "lua-time-limit", "100", "busy-reply-threshold", "200"),
		cmd("CONFIG", "GET", "busy-reply-threshold"),
		cmd("CONFIG", "SET", "busy-reply-threshold", "300", "lua-time-limit", "abc"),
		cmd("CONFIG", "GET", "busy-reply-threshold"),
	})
}

// introspection.tcl's CLIENT KILL/LIST argument checks: 7.0.15 has no
// MAXAGE filter, and CLIENT LIST ID takes any integer.
func TestDiffClientKillListArgs(t *testing.T) {
	diff(t, [][]string{
		cmd("CLIENT", "KILL", "MAXAGE", "0", "SKIPME", "yes"),
		cmd("CLIENT", "KILL", "MAXAGE", "abc"),
		cmd("CLIENT", "KILL", "ID", "-1"),
		cmd("CLIENT", "KILL", "ID", "abc"),
		cmd("CLIENT", "KILL", "ID", "999999"),
		cmd("CLIENT", "LIST", "ID", "0"),
		cmd("CLIENT", "LIST", "ID", "-5", "999999"),
		cmd("CLIENT", "LIST", "ID", "1", "abc"),
		cmd("CLIENT", "HELP"),
	})
}

// SELECT, MOVE, COPY DB and SWAPDB read the index as a C int first
// (getIntFromObjectOrReply).
func TestDiffDBIndexRange(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "foo", "bar"),
		cmd("SELECT", "9999999999999"), cmd("SELECT", "2147483648"), cmd("SELECT", "-2147483649"),
		cmd("SELECT", "2147483647"), cmd("SELECT", "-1"), cmd("SELECT", "abc"), cmd("SELECT", "16"),
		cmd("MOVE", "foo", "9999999999999"), cmd("MOVE", "foo", "16"), cmd("MOVE", "foo", "x"),
		cmd("COPY", "foo", "x", "DB", "9999999999999"), cmd("COPY", "foo", "x", "DB", "-1"),
		cmd("SWAPDB", "9999999999999", "0"), cmd("SWAPDB", "0", "9999999999999"), cmd("SWAPDB", "0", "16"),
		cmd("SWAPDB", "x", "0"), cmd("SWAPDB", "0", "2147483648"),
	})
}

// MEMORY USAGE checks every SAMPLES option (repeatable, not negative)
// before looking at the key; MEMORY DOCTOR finds an empty instance too
// small to judge.
func TestDiffMemoryUsageArgsAndDoctor(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "foo", "bar"),
		cmd("MEMORY", "USAGE", "nokey", "SAMPLES", "-1"),
		cmd("MEMORY", "USAGE", "nokey", "SAMPLES", "abc"),
		cmd("MEMORY", "USAGE", "nokey", "SAMPLES", "1", "SAMPLES", "0"),
		cmd("MEMORY", "USAGE", "nokey", "SAMPLES"),
		cmd("MEMORY", "USAGE", "nokey", "foo"),
		cmd("MEMORY", "USAGE", "nokey", "SAMPLES", "5"),
		shape("MEMORY", "USAGE", "foo", "SAMPLES", "1", "SAMPLES", "2"),
		cmd("MEMORY", "USAGE", "foo", "SAMPLES", "-1"),
		cmd("MEMORY", "DOCTOR"),
	})
	p := newDiffPair3(t)
	p.run([][]string{cmd("MEMORY", "DOCTOR")})
}

// sameInfo compares one INFO field of both servers (asked on the second
// connection: the first may be inside MULTI).
func (p *diffPair) sameInfo(section, field string) {
	p.t.Helper()
	oc, rc := p.conn(1)
	got, want := infoField(oc, section, field), infoField(rc, section, field)
	if want == "" {
		p.t.Fatalf("INFO %s has no %s", section, field)
	}
	if got != want {
		p.mismatch("INFO %s %s: ours %q, redis %q (after %q)", section, field, got, want, p.hist)
	}
}

var cmdstatUsecRE = regexp.MustCompile(`usec(_per_call)?=[0-9.]+`)

// sameCommandstats compares INFO commandstats without timings, in name
// order (Redis lists its command table's hash order).
func (p *diffPair) sameCommandstats() {
	p.t.Helper()
	oc, rc := p.conn(1)
	norm := func(c *respConn) string {
		lines := strings.Split(strings.TrimSpace(bulkText(c.do("INFO", "commandstats"))), "\r\n")
		for i := range lines {
			lines[i] = cmdstatUsecRE.ReplaceAllString(lines[i], "usec=x")
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	if got, want := norm(oc), norm(rc); got != want {
		p.mismatch("INFO commandstats:\n ours:  %s\n redis: %s\n after: %q", got, want, p.hist)
	}
}

// total_commands_processed counts what call() ran (nested calls of EXEC
// and scripts too), never what processCommand rejected, and INFO does not
// count itself (info.tcl, introspection-2.tcl's command stats).
func TestDiffTotalCommandsProcessed(t *testing.T) {
	p := newDiffPair(t)
	p.run([][]string{cmd("CONFIG", "RESETSTAT")})
	p.sameInfo("stats", "total_commands_processed")
	for _, c := range [][]string{
		cmd("NOSUCHCOMMAND"), cmd("GET"), cmd("SET", "a", "1"),
		cmd("EVAL", "redis.call('set', KEYS[1], '2'); return redis.call('get', KEYS[1])", "1", "a"),
		cmd("MULTI"), cmd("SET", "b", "1"), cmd("INCR", "b"), cmd("EXEC"),
		cmd("MULTI"), cmd("NOSUCH"), cmd("EXEC"),
	} {
		p.run([][]string{c})
		p.sameInfo("stats", "total_commands_processed")
	}
}

// DEBUG and MODULE LOAD are CMD_PROTECTED: refused by processCommand,
// before authentication, counted as rejected calls and aborting a
// transaction.
func TestDiffProtectedCommandsRejected(t *testing.T) {
	p := newDiffPair(t, "--enable-debug-command", "no")
	p.run([][]string{
		cmd("CONFIG", "RESETSTAT"),
		cmd("DEBUG", "SLEEP", "0"), cmd("DEBUG"), cmd("MODULE", "LOAD", "/nonexistent.so"), cmd("MODULE", "LIST"),
		cmd("MULTI"), cmd("DEBUG", "SLEEP", "0"), cmd("EXEC"),
	})
	p.sameCommandstats()
	p.run([][]string{
		cmd("CONFIG", "SET", "requirepass", "pw"),
		conn2("DEBUG", "SLEEP", "0"), conn2("MODULE", "UNLOAD", "x"),
	})
}

// A connection made while no password was needed stays authenticated
// when requirepass is set (createClient), until RESET (clientSetDefaultAuth).
func TestDiffAuthenticatedBeforeRequirepass(t *testing.T) {
	diff(t, [][]string{
		conn2("PING"),
		cmd("CONFIG", "SET", "requirepass", "pw"),
		cmd("GET", "a"), conn2("SET", "a", "1"), shape(conn2("HELLO", "2")...),
		conn2("AUTH", "wrong"), conn2("GET", "a"),
		conn2("RESET"), conn2("GET", "a"), conn2("AUTH", "pw"), conn2("GET", "a"),
		cmd("CONFIG", "SET", "requirepass", ""), cmd("RESET"),
		cmd("CONFIG", "SET", "requirepass", "pw2"), cmd("GET", "a"),
		cmd("AUTH", "pw2"),
	})
}

// Commands replayed from the AOF are not calls: INFO commandstats and
// total_commands_processed stay as they were (Redis runs the procs
// without call()).
func TestDiffAOFLoadingNotCounted(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes")
	p.run([][]string{
		cmd("SET", "a", "1"), cmd("INCR", "a"), cmd("SELECT", "2"), cmd("SET", "b", "x"), cmd("SELECT", "0"),
		cmd("CONFIG", "RESETSTAT"), cmd("DEBUG", "LOADAOF"), cmd("GET", "a"),
	})
	p.sameCommandstats()
	p.sameInfo("stats", "total_commands_processed")
}

// lazyfree.tcl: lazyfreed_objects counts values freed in the background
// (effort above LAZYFREE_THRESHOLD, deleted with UNLINK or a lazyfree
// option on) and the keys of databases flushed asynchronously.
func TestDiffLazyfreedObjects(t *testing.T) {
	p := newDiffPair(t)
	fill := func(script string, n int) []string {
		return cmd("EVAL", script, "1", "k", strconv.Itoa(n))
	}
	const (
		sadd  = "for i=1,tonumber(ARGV[1]) do redis.call('sadd', KEYS[1], i) end"
		hset  = "for i=1,tonumber(ARGV[1]) do redis.call('hset', KEYS[1], i, i) end"
		zadd  = "for i=1,tonumber(ARGV[1]) do redis.call('zadd', KEYS[1], i, i) end"
		rpush = "for i=1,tonumber(ARGV[1]) do redis.call('rpush', KEYS[1], string.rep('x', 1000)) end"
		xadd  = "for i=1,tonumber(ARGV[1]) do redis.call('xadd', KEYS[1], '*', 'foo', i) end"
	)
	steps := [][][]string{
		{cmd("CONFIG", "RESETSTAT")},
		{fill(sadd, 1000), cmd("UNLINK", "k")},
		{fill(sadd, 100), cmd("UNLINK", "k")}, // an intset: one allocation
		{fill(sadd, 1000), cmd("DEL", "k")},   // DEL is synchronous by default
		{cmd("CONFIG", "SET", "lazyfree-lazy-user-del", "yes"), fill(hset, 600), cmd("DEL", "k")},
		{fill(hset, 60), cmd("DEL", "k")},
		{fill(zadd, 200), cmd("GETDEL", "k")},
		{fill(zadd, 200), cmd("UNLINK", "k")},
		{fill(rpush, 100), cmd("UNLINK", "k")},  // 13 quicklist nodes
		{fill(rpush, 2000), cmd("UNLINK", "k")}, // 250 nodes
		{fill(rpush, 512), cmd("UNLINK", "k")},  // 64 nodes: not above the threshold
		{fill(rpush, 513), cmd("UNLINK", "k")},  // 65
		{fill(sadd, 1000), cmd("CONFIG", "SET", "lazyfree-lazy-server-del", "yes"), cmd("SET", "k", "v")},
		{fill(sadd, 1000), cmd("SET", "k2", "v"), cmd("RENAME", "k2", "k")},
		{fill(sadd, 1000), cmd("CONFIG", "SET", "lazyfree-lazy-expire", "yes"), cmd("EXPIRE", "k", "-1")},
		{cmd("CONFIG", "SET", "stream-node-max-entries", "5"), fill(xadd, 1000),
			cmd("XGROUP", "CREATE", "k", "g", "0"), nocmp("XREADGROUP", "GROUP", "g", "Alice", "COUNT", "2", "STREAMS", "k", ">"),
			cmd("UNLINK", "k")},
		{fill(xadd, 1), cmd("XGROUP", "CREATE", "k", "bla", "$"), cmd("XGROUP", "DESTROY", "k", "bla"), cmd("UNLINK", "k")},
		{cmd("MSET", "a", "1", "b", "2", "c", "3"), cmd("FLUSHALL", "ASYNC")},
		{cmd("MSET", "a", "1", "b", "2"), cmd("FLUSHDB", "SYNC")},
		{cmd("MSET", "a", "1", "b", "2"), cmd("CONFIG", "SET", "lazyfree-lazy-user-flush", "yes"), cmd("FLUSHDB")},
		{cmd("CONFIG", "RESETSTAT")},
	}
	oc, rc := p.conn(1)
	for _, s := range steps {
		p.run(s)
		// Redis's background thread must be done (lazyfree.tcl waits
		// too); ours frees nothing in the background.
		deadline := time.Now().Add(10 * time.Second)
		for infoField(rc, "memory", "lazyfree_pending_objects") != "0" {
			if time.Now().After(deadline) {
				t.Fatal("redis-server's lazyfree never finished")
			}
			time.Sleep(time.Millisecond)
		}
		if got := infoField(oc, "memory", "lazyfree_pending_objects"); got != "0" {
			t.Fatalf("lazyfree_pending_objects: %s", got)
		}
		p.sameInfo("memory", "lazyfreed_objects")
	}
}

// CONFIG SET maxclients raises RLIMIT_NOFILE as Redis's
// adjustOpenFilesLimit; a number of clients the system cannot take is
// refused (with the best it can take, which depends on each process's
// limits) and rolled back.
func TestDiffConfigSetMaxclientsRlimit(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	const prefix = "-ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with "
	// Above the default fs.nr_open (1048576), so that even a privileged
	// process cannot; Redis tries every 16th limit down from there.
	got, want := oc.do("CONFIG", "SET", "maxclients", "2000000"), rc.do("CONFIG", "SET", "maxclients", "2000000")
	if got == "+OK\r\n" && want == got {
		t.Skip("this system takes 2000000 clients")
	}
	if !strings.HasPrefix(got, prefix) || !strings.HasPrefix(want, prefix) {
		t.Fatalf("CONFIG SET maxclients 2000000: ours %q, redis %q", got, want)
	}
	p.run([][]string{
		cmd("CONFIG", "GET", "maxclients"),
		cmd("CONFIG", "SET", "maxclients", "2000000", "hz", "50"),
		cmd("CONFIG", "GET", "hz"),
		cmd("CONFIG", "SET", "maxclients", "5000"),
		cmd("CONFIG", "GET", "maxclients"),
	})
}

// introspection.tcl's "CONFIG SET rollback on apply error" and port/bind
// changes: CONFIG SET port and bind really move the listeners; one that
// cannot listen fails the whole call, every value is restored and the old
// address still accepts.
func TestDiffConfigSetPortBindRebind(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	used := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	p.run([][]string{
		cmd("CONFIG", "SET", "maxmemory", "10000001", "port", used, "client-query-buffer-limit", "10m"),
		cmd("CONFIG", "GET", "maxmemory"),
		cmd("CONFIG", "GET", "client-query-buffer-limit"),
		cmd("CONFIG", "SET", "bind", "999.999.1.1"),
		cmd("CONFIG", "GET", "bind"),
	})
	realLog, _ := os.ReadFile(filepath.Join(p.real.dir, "redis.log"))
	for _, line := range []string{
		"Warning: Could not create server TCP listening socket 127.0.0.1:" + used + ": bind: Address already in use",
		"Failed applying new configuration. Possibly related to new port setting. Restoring previous settings.",
		"Failed applying new configuration. Possibly related to new bind setting. Restoring previous settings.",
	} {
		if !strings.Contains(string(realLog), line) {
			t.Fatalf("redis-server did not log %q:\n%s", line, realLog)
		}
		if !strings.Contains(p.ours.logs.String(), line) {
			t.Fatalf("we did not log %q:\n%s", line, p.ours.logs.String())
		}
	}
	ping := func(addr string) bool {
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return false
		}
		defer nc.Close()
		c := &respConn{t: t, nc: nc, br: bufio.NewReader(nc)}
		return c.do("PING") == "+PONG\r\n"
	}
	for _, s := range []struct {
		name string
		c    *respConn
		addr string
	}{{"ours", oc, p.ours.addr}, {"redis", rc, p.real.addr}} {
		_, port, _ := net.SplitHostPort(s.addr)
		if got := s.c.do("CONFIG", "GET", "port"); !strings.HasSuffix(got, "\r\n"+port+"\r\n") {
			t.Fatalf("%s: port not restored: %q", s.name, got)
		}
		if !ping(s.addr) {
			t.Fatalf("%s: the old address no longer accepts after a failed CONFIG SET port", s.name)
		}
		// port 0: no TCP listening; the open connection moves it again.
		if got := s.c.do("CONFIG", "SET", "port", "0"); got != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET port 0: %q", s.name, got)
		}
		if ping(s.addr) {
			t.Fatalf("%s: still accepting with port 0", s.name)
		}
		newPort := strconv.Itoa(freePort(t))
		if got := s.c.do("CONFIG", "SET", "port", newPort); got != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET port %s: %q", s.name, newPort, got)
		}
		if !ping(net.JoinHostPort("127.0.0.1", newPort)) {
			t.Fatalf("%s: not accepting on the new port %s", s.name, newPort)
		}
		if got := s.c.do("CONFIG", "SET", "bind", "127.0.0.1"); got != "+OK\r\n" { // tests listen on 127.0.0.1 only
			t.Fatalf("%s: CONFIG SET bind: %q", s.name, got)
		}
		if !ping(net.JoinHostPort("127.0.0.1", newPort)) {
			t.Fatalf("%s: not accepting after rebinding the same port", s.name)
		}
	}
}

// DEBUG CONFIG-REWRITE-FORCE-ALL without a config file fails as
// rewriteConfig(NULL, 1) does (its writing is tested in config/).
func TestDiffDebugConfigRewriteForceAll(t *testing.T) {
	diff(t, [][]string{
		cmd("DEBUG", "CONFIG-REWRITE-FORCE-ALL"),
		cmd("DEBUG", "CONFIG-REWRITE-FORCE-ALL", "x"),
		cmd("CONFIG", "REWRITE"),
	})
}

// introspection.tcl's "config during loading" and protected configs for a
// local client: CONFIG SET dir is refused with -LOADING while the dataset
// loads (DENY_LOADING_CONFIG), and allowed to a local client under
// enable-protected-configs local.
func TestDiffConfigSetLocalAndDuringLoading(t *testing.T) {
	p := newDiffPair(t, "--enable-protected-configs", "local")
	p.run([][]string{
		cmd("CONFIG", "SET", "dbfilename", "other.rdb"),
		cmd("CONFIG", "GET", "dbfilename"),
		cmd("CONFIG", "SET", "enable-protected-configs", "yes"),
	})
	for _, tg := range loadingTargets(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--enable-protected-configs", "yes") {
		var cmds [][]string
		for i := 0; i < 300_000; i++ {
			cmds = append(cmds, []string{"SET", "key:" + strconv.Itoa(i), "value"})
		}
		writeIncr(t, tg.dir, cmds...)
		a, b := dial(t, tg.addr), dial(t, tg.addr)
		a.send("DEBUG", "LOADAOF")
		done := make(chan string, 1)
		go func() {
			a.nc.SetReadDeadline(time.Now().Add(60 * time.Second)) // a failure bound
			raw, err := readRaw(a.br)
			if err != nil {
				raw = "read error: " + err.Error()
			}
			done <- raw
		}()
		for {
			r := b.do("CONFIG", "SET", "dir", tg.dir)
			if r == "-LOADING Redis is loading the dataset in memory\r\n" {
				break
			}
			select {
			case got := <-done:
				t.Fatalf("%s: DEBUG LOADAOF replied %q and CONFIG SET dir never saw -LOADING (last: %q)", tg.name, got, r)
			default:
			}
		}
		if r := b.do("CONFIG", "SET", "loglevel", "notice"); r != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET loglevel while loading: %q", tg.name, r)
		}
		if got := <-done; got != "+OK\r\n" {
			t.Fatalf("%s: DEBUG LOADAOF: %q", tg.name, got)
		}
	}
}

// expire.tcl's "All TTL in commands are propagated as absolute timestamp
// in replication stream", checked on the AOF: relative TTLs become PXAT
// or PEXPIREAT, an expire in the past a DEL, RESTORE keeps ABSTTL.
func TestDiffTTLPropagatedAbsolute(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	dump := func() string { _, rc := p.conn(0); return bulkText(rc.do("DUMP", "foo1")) }
	p.run([][]string{
		cmd("SET", "foo1", "bar", "EX", "200"), cmd("SET", "foo1", "bar", "PX", "100000"),
		cmd("SET", "foo1", "bar", "EXAT", "4102444800"), cmd("SET", "foo1", "bar", "PXAT", "4102444800123"),
		cmd("SETEX", "foo1", "100", "bar"), cmd("PSETEX", "foo1", "100000", "bar"),
		cmd("SET", "foo2", "bar"), cmd("EXPIRE", "foo2", "100"), cmd("PEXPIRE", "foo2", "100000"),
		cmd("SET", "foo3", "bar"), cmd("EXPIREAT", "foo3", "4102444800"), cmd("PEXPIREAT", "foo3", "4102444800123"),
		cmd("EXPIREAT", "foo3", "100"),
		cmd("SET", "foo4", "bar"), cmd("GETEX", "foo4", "EX", "200"), cmd("GETEX", "foo4", "PX", "200000"),
		cmd("GETEX", "foo4", "EXAT", "4102444800"), cmd("GETEX", "foo4", "PXAT", "4102444800123"),
		cmd("EXPIRE", "foo4", "9223370399119966"), cmd("PEXPIRE", "foo4", "9223372036854770000"),
		cmd("EXPIRE", "foo4", "100", "GT"), cmd("EXPIRE", "foo4", "100", "LT"), cmd("GETEX", "foo4", "PERSIST"),
		cmd("PEXPIRE", "foo4", "100000", "NX"),
	})
	d := dump()
	p.run([][]string{
		cmd("RESTORE", "foo6", "100000", d), cmd("RESTORE", "foo7", "4102444800123", d, "ABSTTL"),
		cmd("RESTORE", "foo8", "100000", d, "absttl"), cmd("EXPIRE", "foo6", "-1"),
	})
	abs := regexp.MustCompile(`\$13\r\n[0-9]{13}\r\n`)
	got := abs.ReplaceAll(incrAOF(t, p.ours.dir), []byte("T"))
	want := abs.ReplaceAll(incrAOF(t, p.real.dir), []byte("T"))
	if !bytes.Equal(got, want) {
		t.Fatalf("AOF differs:\n ours:  %q\n redis: %q", got, want)
	}
}

// expire.tcl: keys lazily expired by a read (GET, SCAN, RANDOMKEY, EXISTS
// in MULTI) are logged as their own DELs, never the read command nor a
// MULTI/EXEC around them.
func TestDiffLazyExpirePropagation(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	p.run([][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SET", "foo", "bar", "PX", "1"), cmd("SET", "x", "bar", "PX", "1"), cmd("SET", "y", "bar", "PX", "1"),
		cmd("SET", "z", "bar", "PX", "1"), cmd("SET", "w", "bar", "PX", "1"), pause(20),
		cmd("GET", "foo"), sorted("KEYS", "*"), cmd("SET", "keep", "1"),
		cmd("MULTI"), cmd("EXISTS", "z"), cmd("GET", "keep"), cmd("EXEC"),
		cmd("SCAN", "0"), cmd("DBSIZE"),
		cmd("SET", "r1", "v", "PX", "1"), cmd("SET", "r2", "v", "PX", "1"), cmd("SET", "r3", "v", "PX", "1"),
		cmd("DEL", "keep"), pause(20), cmd("RANDOMKEY"), cmd("DBSIZE"),
		cmd("SET", "m1", "v", "PX", "1"), cmd("SET", "m2", "v", "PX", "1"), pause(20),
		cmd("MGET", "m1", "m2"), // a read expiring two keys: wrapped
	})
	got, want := delRunsSorted(t, incrAOF(t, p.ours.dir)), delRunsSorted(t, incrAOF(t, p.real.dir))
	if got != want {
		t.Fatalf("AOF differs:\n ours:  %q\n redis: %q", got, want)
	}
}

// delRunsSorted returns an AOF's commands with timestamps masked and each
// run of consecutive DELs sorted (keys found in hash order).
func delRunsSorted(t *testing.T, aof []byte) string {
	t.Helper()
	ts := regexp.MustCompile(`\$13\r\n[0-9]{13}\r\n`)
	br := bufio.NewReader(bytes.NewReader(ts.ReplaceAllLiteral(aof, []byte("$13\r\nTTTTTTTTTTTTT\r\n"))))
	var cmds []string
	for {
		raw, err := readRaw(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading the AOF back: %v", err)
		}
		cmds = append(cmds, raw)
	}
	if len(cmds) < 2 {
		t.Fatalf("AOF holds %d commands", len(cmds))
	}
	isDel := func(c string) bool { return strings.HasPrefix(c, "*2\r\n$3\r\nDEL\r\n") }
	for i := 0; i < len(cmds); {
		j := i
		for j < len(cmds) && isDel(cmds[j]) {
			j++
		}
		sort.Strings(cmds[i:j])
		i = max(j, i+1)
	}
	return strings.Join(cmds, "")
}

// A write that stores over a key it finds expired logs the DEL first,
// inside the command's MULTI/EXEC (Redis's setKey looks the key up for
// writing): MSET, BITOP, the *STORE commands.
func TestDiffStoreOverExpiredKey(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	p.run([][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SADD", "s1", "a", "b"), cmd("ZADD", "z1", "1", "a"), cmd("SET", "b1", "x"), cmd("RPUSH", "l1", "3", "1", "2"),
		cmd("GEOADD", "g1", "13.361389", "38.115556", "Palermo"),
	})
	keys := []string{"m1", "m2", "m3", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10"}
	for _, k := range keys {
		p.run([][]string{cmd("SET", k, "v", "PX", "1")})
	}
	p.run([][]string{
		pause(20),
		cmd("MSET", "m1", "1", "m2", "2", "other", "3"), cmd("MSETNX", "m3", "1", "m1", "2"),
		cmd("BITOP", "OR", "d1", "b1"), cmd("SUNIONSTORE", "d2", "s1"), cmd("SINTERSTORE", "d3", "s1"),
		cmd("SDIFFSTORE", "d4", "s1"), cmd("ZUNIONSTORE", "d5", "1", "z1"), cmd("ZRANGESTORE", "d6", "z1", "0", "-1"),
		cmd("SORT", "l1", "STORE", "d7"), cmd("GEOSEARCHSTORE", "d8", "g1", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
		cmd("COPY", "b1", "d9"), cmd("SUNIONSTORE", "d10", "nokey"),
	})
	p.checkDigest()
	got, want := delRunsSorted(t, incrAOF(t, p.ours.dir)), delRunsSorted(t, incrAOF(t, p.real.dir))
	if got != want {
		t.Fatalf("AOF differs:\n ours:  %q\n redis: %q", got, want)
	}
}

// MEMORY STATS: Redis's fields in its order, a db.N map per non-empty
// database whose table overheads are Redis's (entries, buckets and robjs),
// the same key count; the byte figures are our estimates.
func TestDiffMemoryStats(t *testing.T) {
	for _, resp3 := range []bool{false, true} {
		p := newDiffPair(t)
		if resp3 {
			p.resp3 = true
			p.hello3(0)
		}
		setup := [][]string{cmd("MEMORY", "STATS", "x"), shape("MEMORY", "STATS")}
		for i := 0; i < 40; i++ {
			setup = append(setup, cmd("SET", "k"+strconv.Itoa(i), "v"))
		}
		setup = append(setup, cmd("EXPIRE", "k1", "100"), cmd("EXPIRE", "k2", "100"),
			cmd("SELECT", "3"), cmd("SET", "x", "1"), cmd("SELECT", "0"), shape("MEMORY", "STATS"))
		p.run(setup)
		oc, rc := p.conn(0)
		fields := func(c *respConn) []string {
			_, el, ok := splitRaw(c.do("MEMORY", "STATS"))
			if !ok || len(el)%2 != 0 {
				t.Fatalf("MEMORY STATS: %q", el)
			}
			var out []string
			for i := 0; i < len(el); i += 2 {
				name := bulkText(el[i])
				switch {
				case name == "keys.count":
					out = append(out, name+"="+el[i+1])
				case strings.HasPrefix(name, "db."):
					// The table overheads depend on how far an
					// incremental rehash has got (ours steps in the
					// cron, Redis's also on each access): only the
					// shape is compared.
					_, sub, _ := splitRaw(el[i+1])
					out = append(out, name+"="+strconv.Itoa(len(sub)))
				default:
					out = append(out, name)
				}
			}
			return out
		}
		if got, want := fields(oc), fields(rc); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("resp3=%v MEMORY STATS:\n ours:  %q\n redis: %q", resp3, got, want)
		}
	}
}

// DEBUG HTSTATS / HTSTATS-KEY print dictGetStats (always the full form in
// 7.0.15); with one element the chain figures cannot depend on the hash.
func TestDiffDebugHTStats(t *testing.T) {
	diff(t, [][]string{
		cmd("DEBUG", "HTSTATS", "0"), cmd("DEBUG", "HTSTATS", "16"), cmd("DEBUG", "HTSTATS", "-1"),
		cmd("DEBUG", "HTSTATS", "x"), cmd("DEBUG", "HTSTATS", "0", "full"),
		cmd("SET", "a", "1"), cmd("EXPIRE", "a", "100"), cmd("DEBUG", "HTSTATS", "0"),
		cmd("DEBUG", "HTSTATS-KEY", "a"), cmd("DEBUG", "HTSTATS-KEY", "nokey"), cmd("DEBUG", "HTSTATS-KEY", "a", "full"),
		cmd("SADD", "s", "x"), cmd("DEBUG", "HTSTATS-KEY", "s"),
		cmd("HSET", "h", "f", "v"), cmd("DEBUG", "HTSTATS-KEY", "h"),
		cmd("CONFIG", "SET", "hash-max-listpack-entries", "0"), cmd("HSET", "h2", "f", "v"), cmd("DEBUG", "HTSTATS-KEY", "h2"),
		cmd("CONFIG", "SET", "zset-max-listpack-entries", "0"), cmd("ZADD", "z", "1", "m"), cmd("DEBUG", "HTSTATS-KEY", "z"),
	})
}

// PUBSUB CHANNELS with more than a pattern is a subcommand syntax error.
func TestDiffPubsubChannelsArgs(t *testing.T) {
	diff(t, [][]string{
		cmd("PUBSUB", "CHANNELS", "a", "b"), cmd("pubsub", "channels", "a", "b", "c"), cmd("PUBSUB", "CHANNELS", "*"),
		cmd("PUBSUB", "NUMSUB"), cmd("PUBSUB", "NUMPAT", "x"), cmd("PUBSUB", "NUMSUB", "a", "b"),
	})
}

// introspection.tcl's CLIENT LIST / CLIENT INFO: the client's own qbuf
// counts the command being run (and the rest of its read), as Redis's
// query buffer holds them until the batch is done.
func TestDiffClientListOwnQbuf(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	qbuf := regexp.MustCompile(` qbuf=[0-9]+ `)
	for _, args := range [][]string{{"CLIENT", "LIST"}, {"CLIENT", "INFO"}, {"client", "list", "type", "normal"}} {
		got, want := qbuf.FindString(oc.do(args...)), qbuf.FindString(rc.do(args...))
		if got == "" || got != want {
			t.Fatalf("%q: ours %q, redis %q", args, got, want)
		}
	}
	// Pipelined: the first command sees the whole read.
	for _, c := range []*respConn{oc, rc} {
		c.nc.Write([]byte("*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\nPING\r\n"))
	}
	got, want := qbuf.FindString(oc.read()), qbuf.FindString(rc.read())
	oc.read()
	rc.read()
	if got != want || got != " qbuf=32 " {
		t.Fatalf("pipelined: ours %q, redis %q", got, want)
	}
}
