package server

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Replication tests against a real redis-server 7.0 on the other end of
// the link. They wait for events (INFO fields, log lines) with a generous
// deadline as the failure bound.

// replInfo returns field of INFO replication.
func replInfo(rc *respConn, field string) string { return infoField(rc, "replication", field) }

// eventually polls cond until it holds; the deadline only bounds a failure.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fillDataset(t testing.TB, rc *respConn) {
	t.Helper()
	for _, c := range [][]string{
		{"SELECT", "0"},
		{"SET", "str", "hello"}, {"SET", "num", "12345"}, {"SET", "ttl", "v", "EX", "100000"},
		{"RPUSH", "list", "a", "b", "c", "1", "2"}, {"HSET", "hash", "f1", "v1", "f2", "2"},
		{"SADD", "set", "x", "y", "z"}, {"SADD", "iset", "1", "2", "3"},
		{"ZADD", "zset", "1", "a", "2.5", "b"}, {"XADD", "stream", "1-1", "f", "v"},
		{"PFADD", "hll", "a", "b", "c"},
		{"SELECT", "3"}, {"SET", "db3key", "x"}, {"HSET", "db3hash", "a", "b"},
	} {
		if r := rc.do(c...); strings.HasPrefix(r, "-") {
			t.Fatalf("%v: %s", c, r)
		}
	}
	big := strings.Repeat("v", 100)
	for i := 0; i < 3000; i++ {
		rc.send("SET", "key:"+strconv.Itoa(i), big+strconv.Itoa(i))
	}
	for i := 0; i < 3000; i++ {
		rc.read()
	}
	rc.do("SELECT", "0")
}

// writeLoad writes to several DBs, with transactions, until stop closes.
func writeLoad(t testing.TB, addr string, stop <-chan struct{}, wg *sync.WaitGroup) {
	writeLoadConn(t, dial(t, addr), stop, wg)
}

func waitInSync(t testing.TB, master, replica *respConn) {
	t.Helper()
	eventually(t, "master_link_status:up", func() bool { return replInfo(replica, "master_link_status") == "up" })
	eventually(t, "equal offsets", func() bool {
		return replInfo(master, "master_repl_offset") == replInfo(replica, "slave_repl_offset")
	})
}

func TestReplicationToRealRedis(t *testing.T) {
	requireRedis(t)
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless="+diskless, func(t *testing.T) {
			// rdb-key-save-delay stretches the snapshot so that the load
			// runs during the full sync.
			ours := startOurServer(t, "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0",
				"--repl-ping-replica-period", "1", "--rdb-key-save-delay", "100")
			m := dial(t, ours.addr)
			fillDataset(t, m)
			_, port, _ := net.SplitHostPort(ours.addr)

			stop := make(chan struct{})
			var wg sync.WaitGroup
			writeLoad(t, ours.addr, stop, &wg)
			rr := startRealRedis(t, "--replicaof", "127.0.0.1", port)
			t.Cleanup(func() {
				if t.Failed() {
					dumpLogs(t, ours, rr)
				}
			})
			r := dial(t, rr.addr)
			eventually(t, "master_link_status:up", func() bool { return replInfo(r, "master_link_status") == "up" })
			close(stop)
			wg.Wait()
			waitInSync(t, m, r)
			if a, b := m.do("DEBUG", "DIGEST"), r.do("DEBUG", "DIGEST"); a != b {
				t.Fatalf("digest after full sync: ours %s replica %s", a, b)
			}
			if got := replInfo(m, "connected_slaves"); got != "1" {
				t.Fatalf("connected_slaves %q", got)
			}
			if got := replInfo(m, "slave0"); !strings.Contains(got, "state=online") || !strings.Contains(got, "port="+strings.Split(rr.addr, ":")[1]) {
				t.Fatalf("slave0 %q", got)
			}
			if got := m.do("WAIT", "1", "5000"); got != ":1\r\n" {
				t.Fatalf("WAIT 1 = %q", got)
			}
			if got := m.do("CLIENT", "LIST", "TYPE", "replica"); !strings.Contains(bulkText(got), "flags=S") {
				t.Fatalf("CLIENT LIST TYPE replica: %q", got)
			}

			// Break the link: the replica continues from the backlog.
			if got := m.do("CLIENT", "KILL", "TYPE", "replica"); got != ":1\r\n" {
				t.Fatalf("CLIENT KILL TYPE replica = %q", got)
			}
			m.do("SET", "after-kill", "1")
			m.do("SELECT", "5")
			m.do("RPUSH", "l5", "x")
			m.do("SELECT", "0")
			waitInSync(t, m, r)
			eventually(t, "partial resync in the replica's log", func() bool {
				log, _ := os.ReadFile(filepath.Join(rr.dir, "redis.log"))
				return strings.Contains(string(log), "Successful partial resynchronization with master")
			})
			if a, b := m.do("DEBUG", "DIGEST"), r.do("DEBUG", "DIGEST"); a != b {
				t.Fatalf("digest after partial resync: ours %s replica %s", a, b)
			}
			if got := m.do("WAIT", "1", "5000"); got != ":1\r\n" {
				t.Fatalf("WAIT 1 after resync = %q", got)
			}
			if !strings.Contains(ours.logs.String(), "Partial resynchronization request from") {
				t.Fatalf("no partial resync logged:\n%s", ours.logs.String())
			}
		})
	}
}

// TestReplicationPsyncHandshake checks PSYNC answers and INFO fields on
// our side without a real replica: a hand-made replica sends the
// handshake.
func TestReplicationPsyncHandshake(t *testing.T) {
	ours := startOurServer(t, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
	m := dial(t, ours.addr)
	if got := replInfo(m, "repl_backlog_active"); got != "0" {
		t.Fatalf("backlog active before any replica: %q", got)
	}
	m.do("SET", "k", "v")
	rc := dial(t, ours.addr)
	if got := rc.do("REPLCONF", "listening-port", "7777"); got != "+OK\r\n" {
		t.Fatalf("REPLCONF = %q", got)
	}
	if got := rc.do("REPLCONF", "capa", "eof", "capa", "psync2"); got != "+OK\r\n" {
		t.Fatalf("REPLCONF capa = %q", got)
	}
	if got := rc.do("REPLCONF", "bogus", "1"); got != "-ERR Unrecognized REPLCONF option: bogus\r\n" {
		t.Fatalf("REPLCONF bogus = %q", got)
	}
	rc.send("PSYNC", "?", "-1")
	br := bufio.NewReader(rc.nc)
	rc.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "+FULLRESYNC ") {
		t.Fatalf("PSYNC reply %q %v", line, err)
	}
	f := strings.Fields(strings.TrimSpace(line))
	replid, off := f[1], f[2]
	if replid != replInfo(m, "master_replid") {
		t.Fatalf("replid %s, INFO says %s", replid, replInfo(m, "master_replid"))
	}
	hdr, _ := br.ReadString('\n')
	if !strings.HasPrefix(hdr, "$EOF:") || len(hdr) != 5+40+2 {
		t.Fatalf("diskless header %q", hdr)
	}
	mark := hdr[5:45]
	var rdbBytes []byte
	for !strings.HasSuffix(string(rdbBytes), mark) {
		b, err := br.ReadByte()
		if err != nil {
			t.Fatalf("reading RDB: %v", err)
		}
		rdbBytes = append(rdbBytes, b)
	}
	if !strings.HasPrefix(string(rdbBytes), "REDIS0010") {
		t.Fatalf("RDB starts %q", rdbBytes[:9])
	}
	offN, _ := strconv.ParseInt(off, 10, 64)
	// Nothing follows the RDB until the replica's first ACK puts it
	// online (its end is found by the mark being the last bytes read).
	m.do("SET", "k2", "v2")
	rc.send("REPLCONF", "ACK", off)
	// The stream from the snapshot on starts with a SELECT.
	want := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$2\r\nk2\r\n$2\r\nv2\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(br, got); err != nil || string(got) != want {
		t.Fatalf("stream %q %v", got, err)
	}
	if mo := replInfo(m, "master_repl_offset"); mo != strconv.FormatInt(offN+int64(len(want)), 10) {
		t.Fatalf("master_repl_offset %s, want %d", mo, offN+int64(len(want)))
	}
	if got := replInfo(m, "repl_backlog_first_byte_offset"); got != strconv.FormatInt(offN+1, 10) {
		t.Fatalf("first byte offset %s", got)
	}
	if got := m.do("WAIT", "1", "100"); got != ":0\r\n" {
		t.Fatalf("WAIT before the ACK of the write = %q", got)
	}
	rc.send("REPLCONF", "ACK", strconv.FormatInt(offN+int64(len(want)), 10))
	if got := m.do("WAIT", "1", "0"); got != ":1\r\n" {
		t.Fatalf("WAIT = %q", got)
	}
	if got := m.do("ROLE"); !strings.Contains(got, "$4\r\n7777\r\n") {
		t.Fatalf("ROLE = %q", got)
	}
	// A second link continues from the backlog.
	rc2 := dial(t, ours.addr)
	rc2.do("REPLCONF", "capa", "psync2")
	rc2.send("PSYNC", replid, strconv.FormatInt(offN+1, 10))
	br2 := bufio.NewReader(rc2.nc)
	rc2.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, _ = br2.ReadString('\n')
	if line != "+CONTINUE "+replid+"\r\n" {
		t.Fatalf("PSYNC continue reply %q", line)
	}
	got = make([]byte, len(want))
	if _, err := io.ReadFull(br2, got); err != nil || string(got) != want {
		t.Fatalf("backlog %q %v", got, err)
	}
}

// dumpLogs shows both servers' logs (after a failure).
func dumpLogs(t *testing.T, ours *testServer, rr *realRedis) {
	log, _ := os.ReadFile(filepath.Join(rr.dir, "redis.log"))
	t.Logf("ours:\n%s\nredis:\n%s", ours.logs.String(), log)
}

// TestReplicaOfRealRedis makes ours a replica of a real redis-server 7.0:
// full sync under load (EOF form and disk form), the stream, READONLY, a
// partial resync after the link breaks, masterauth and replicaof from the
// configuration, REPLICAOF NO ONE.
func TestReplicaOfRealRedis(t *testing.T) {
	requireRedis(t)
	for _, diskless := range []string{"yes", "no"} {
		t.Run("diskless="+diskless, func(t *testing.T) {
			args := []string{"--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1"}
			auth := diskless == "no" // the disk case also checks masterauth
			rr := startRealRedis(t, args...)
			m := dial(t, rr.addr)
			if auth {
				m.do("CONFIG", "SET", "requirepass", "secret")
				m.do("AUTH", "secret")
			}
			fillDataset(t, m)
			_, port, _ := net.SplitHostPort(rr.addr)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			lc := dial(t, rr.addr)
			if auth {
				lc.do("AUTH", "secret")
			}
			writeLoadConn(t, lc, stop, &wg)

			var ours *testServer
			if auth {
				ours = startOurServer(t, "--replicaof", "127.0.0.1 "+port, "--masterauth", "secret")
			} else {
				ours = startOurServer(t)
			}
			t.Cleanup(func() {
				if t.Failed() {
					dumpLogs(t, ours, rr)
				}
			})
			r := dial(t, ours.addr)
			if !auth {
				if got := r.do("REPLICAOF", "127.0.0.1", port); got != "+OK\r\n" {
					t.Fatalf("REPLICAOF = %q", got)
				}
				if got := r.do("REPLICAOF", "127.0.0.1", port); got != "+OK Already connected to specified master\r\n" {
					t.Fatalf("REPLICAOF again = %q", got)
				}
			}
			eventually(t, "master_link_status:up", func() bool { return replInfo(r, "master_link_status") == "up" })
			close(stop)
			wg.Wait()
			waitInSync(t, m, r)
			if a, b := m.do("DEBUG", "DIGEST"), r.do("DEBUG", "DIGEST"); a != b {
				t.Fatalf("digest after full sync: master %s ours %s", a, b)
			}
			if got := r.do("SET", "x", "y"); got != "-READONLY You can't write against a read only replica.\r\n" {
				t.Fatalf("write on the replica = %q", got)
			}
			if got := r.do("ROLE"); !strings.HasPrefix(got, "*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:"+port+"\r\n$9\r\nconnected\r\n") {
				t.Fatalf("ROLE = %q", got)
			}

			// Break the link from the master's side: we continue.
			if got := m.do("CLIENT", "KILL", "TYPE", "replica"); got != ":1\r\n" {
				t.Fatalf("CLIENT KILL = %q", got)
			}
			m.do("SET", "after-kill", "1")
			m.do("SELECT", "4")
			m.do("SADD", "s4", "a")
			m.do("SELECT", "0")
			eventually(t, "partial resync", func() bool {
				return strings.Contains(ours.logs.String(), "Successful partial resynchronization with master.")
			})
			waitInSync(t, m, r)
			if a, b := m.do("DEBUG", "DIGEST"), r.do("DEBUG", "DIGEST"); a != b {
				t.Fatalf("digest after partial resync: master %s ours %s", a, b)
			}

			if got := r.do("REPLICAOF", "NO", "ONE"); got != "+OK\r\n" {
				t.Fatalf("REPLICAOF NO ONE = %q", got)
			}
			if got := replInfo(r, "role"); got != "master" {
				t.Fatalf("role after NO ONE: %q", got)
			}
			if got := r.do("SET", "x", "y"); got != "+OK\r\n" {
				t.Fatalf("write after NO ONE = %q", got)
			}
		})
	}
}

// writeLoadConn is writeLoad on a connection already set up.
func writeLoadConn(t testing.TB, rc *respConn, stop <-chan struct{}, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			rc.send("SELECT", strconv.Itoa(i%3))
			rc.send("INCR", "counter")
			rc.send("SET", "load:"+strconv.Itoa(i%500), strconv.Itoa(i), "PX", "1000000000")
			rc.send("MULTI")
			rc.send("LPUSH", "loadlist", strconv.Itoa(i))
			rc.send("HINCRBY", "loadhash", "f"+strconv.Itoa(i%7), "1")
			rc.send("EXEC")
			for j := 0; j < 7; j++ {
				if r, err := readRaw(rc.br); err != nil || strings.HasPrefix(r, "-") {
					t.Errorf("load: %q %v", r, err)
					return
				}
			}
		}
	}()
}

// TestRedisCliRdbAndReplica: redis-cli --rdb against ours writes a file
// real Redis loads with our digest; redis-cli --replica shows the stream.
func TestRedisCliRdbAndReplica(t *testing.T) {
	requireRedis(t)
	ours := startOurServer(t, "--repl-diskless-sync-delay", "0")
	m := dial(t, ours.addr)
	fillDataset(t, m)
	_, port, _ := net.SplitHostPort(ours.addr)
	dir := t.TempDir()
	out, err := exec.Command("redis-cli", "-p", port, "--rdb", filepath.Join(dir, "cli.rdb")).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --rdb: %v\n%s", err, out)
	}
	rr := startRealRedis(t, "--dir", dir, "--dbfilename", "cli.rdb")
	if a, b := m.do("DEBUG", "DIGEST"), dial(t, rr.addr).do("DEBUG", "DIGEST"); a != b {
		t.Fatalf("digest of redis-cli --rdb's file: ours %s redis %s\n%s", a, b, out)
	}

	cli := exec.Command("redis-cli", "-p", port, "--replica")
	stdout, _ := cli.StdoutPipe()
	if err := cli.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Process.Kill(); cli.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	eventually(t, "the redis-cli replica online", func() bool { return strings.Contains(replInfo(m, "slave0"), "state=online") })
	// redis-cli's stdout is a pipe, fully buffered: write enough to
	// fill its buffer.
	for i := 0; i < 300; i++ {
		m.do("SET", "streamed", "yes"+strconv.Itoa(i))
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("redis-cli --replica ended")
			}
			if strings.Contains(l, `"SET","streamed","yes1"`) {
				return
			}
		case <-deadline:
			t.Fatal("redis-cli --replica did not show the SET")
		}
	}
}

// TestSentinelCommandsMatchRedis sends what Redis Sentinel 7.0 sends an
// instance (sentinel.c: CLIENT SETNAME, PING, INFO, SUBSCRIBE and PUBLISH
// on __sentinel__:hello, the MULTI ... EXEC of sentinelSendSlaveOf with
// CONFIG REWRITE and CLIENT KILL TYPE normal/pubsub, SCRIPT KILL on BUSY)
// to ours and to redis-server, and requires the same replies.
func TestSentinelCommandsMatchRedis(t *testing.T) {
	real := startRealRedis(t)
	ours := startOurServer(t)
	run := func(addr string) []string {
		var out []string
		add := func(s string) { out = append(out, s) }
		cmd, ps, idle := dial(t, addr), dial(t, addr), dial(t, addr)
		add(cmd.do("CLIENT", "SETNAME", "sentinel-0123abcd-cmd"))
		add(ps.do("CLIENT", "SETNAME", "sentinel-0123abcd-pubsub"))
		add(ps.do("SUBSCRIBE", "__sentinel__:hello"))
		add(idle.do("PING"))
		// Only these three clients: the kill counts below are compared.
		eventually(t, "three clients", func() bool {
			return strings.Count(bulkText(cmd.do("CLIENT", "LIST")), "\n") == 3
		})
		add(cmd.do("PING"))
		hello := "127.0.0.1,26379,0123abcd0123abcd0123abcd0123abcd0123abcd,0,mymaster,127.0.0.1,6379,0"
		add(cmd.do("PUBLISH", "__sentinel__:hello", hello))
		ps.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		add(ps.read())
		if info := bulkText(cmd.do("INFO")); !strings.Contains(info, "\r\nrun_id:") || !strings.Contains(info, "\r\nrole:master\r\n") {
			t.Fatalf("INFO lacks what Sentinel parses:\n%s", info)
		}
		add(cmd.do("SCRIPT", "KILL"))
		for _, c := range [][]string{{"MULTI"}, {"SLAVEOF", "NO", "ONE"}, {"CONFIG", "REWRITE"},
			{"CLIENT", "KILL", "TYPE", "normal"}, {"CLIENT", "KILL", "TYPE", "pubsub"}, {"EXEC"}} {
			add(cmd.do(c...))
		}
		// The killed clients are gone; Sentinel's own link is not.
		ps.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := ps.br.ReadByte(); err == nil {
			t.Fatal("the pubsub client was not killed")
		}
		add(cmd.do("ROLE"))
		return out
	}
	want, got := run(real.addr), run(ours.addr)
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("reply %d: ours %q, redis %q\nours:  %q\nredis: %q", i, got[min(i, len(got)-1)], want[i], got, want)
		}
	}
}
