package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
	"github.com/aofserver/aofserver/replication"
)

// Replication tests against a real redis-server 7.0 on the other end of
// the link. They wait for events (INFO fields, log lines) with a generous
// deadline as the failure bound.

// replInfo returns field of INFO replication.
func replInfo(rc *respConn, field string) string { return infoField(rc, "replication", field) }

// eventually polls cond until it holds; the deadline only bounds a failure.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testsrv.WaitFor(t, 30*time.Second, what, cond)
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
	// The master marks the transfer done after the last byte has left:
	// an ACK before that is ignored, as Redis's is before
	// updateSlavesWaitingBgsave (a real replica acks every second).
	eventually(t, "the replica online", func() bool { return strings.Contains(replInfo(m, "slave0"), ",state=online,") })
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

// pinger PINGs and INCRs on addr from its own connection until stopped, each reply
// due within 5 s (the deadline turns a stall of the server into a
// failure; it is not what is measured).
type pinger struct {
	pongs atomic.Int64
	err   atomic.Value // error
	stop  chan struct{}
	done  chan struct{}
}

func startPinger(t *testing.T, addr string) *pinger {
	p := &pinger{stop: make(chan struct{}), done: make(chan struct{})}
	rc := dial(t, addr)
	go func() {
		defer close(p.done)
		for {
			select {
			case <-p.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			// A read and a write: neither may wait for a replica.
			rc.nc.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := rc.nc.Write([]byte("PING\r\nINCR pinger:writes\r\n")); err != nil {
				p.err.Store(fmt.Errorf("PING write: %v", err))
				return
			}
			if r, err := readRaw(rc.br); err != nil || r != "+PONG\r\n" {
				p.err.Store(fmt.Errorf("PING reply %q: %v", r, err))
				return
			}
			if r, err := readRaw(rc.br); err != nil || r[0] != ':' {
				p.err.Store(fmt.Errorf("INCR reply %q: %v", r, err))
				return
			}
			p.pongs.Add(1)
		}
	}()
	t.Cleanup(func() { p.finish() })
	return p
}

func (p *pinger) finish() error {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
	err, _ := p.err.Load().(error)
	return err
}

// check fails the test if a PING failed, and waits for a few more PONGs
// (the server answers now, not only before).
func (p *pinger) check(t *testing.T) {
	t.Helper()
	n := p.pongs.Load()
	eventually(t, "PINGs answered", func() bool {
		return p.err.Load() != nil || p.pongs.Load() >= n+3
	})
	if err, _ := p.err.Load().(error); err != nil {
		t.Fatalf("another client's PING: %v", err)
	}
}

// fakeReplica handshakes as a replica asking for a full sync and returns
// once +FULLRESYNC is read.
func fakeReplica(t *testing.T, addr string) *respConn {
	t.Helper()
	rc := dial(t, addr)
	if r := rc.do("REPLCONF", "capa", "eof", "capa", "psync2"); r != "+OK\r\n" {
		t.Fatalf("REPLCONF capa: %q", r)
	}
	rc.send("PSYNC", "?", "-1")
	rc.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		line, err := rc.br.ReadString('\n')
		if err != nil {
			t.Fatalf("PSYNC reply: %v", err)
		}
		if strings.HasPrefix(line, "+FULLRESYNC ") {
			return rc
		}
		if line != "\n" {
			t.Fatalf("PSYNC reply %q", line)
		}
	}
}

// waitClosed reads (and drops) what the server sends until it closes the
// connection.
func waitClosed(t *testing.T, rc *respConn, what string) {
	t.Helper()
	rc.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.Copy(io.Discard, rc.br); err != nil && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset by peer") {
		t.Fatalf("%s: the master did not close the connection: %v", what, err)
	}
}

// TestReplicationBadReplicas: a replica that sends garbage, one that stops
// reading (closed by client-output-buffer-limit replica, or by
// repl-timeout when nothing else is due), and one that disconnects in the
// middle of the RDB are dropped with Redis's log lines, while the
// master's other clients are served throughout; a real replica then
// syncs.
func TestReplicationBadReplicas(t *testing.T) {
	requireRedis(t)
	ours := startOurServer(t, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
		"--client-output-buffer-limit", "replica 1mb 0 0", "--repl-timeout", "8", "--rdbcompression", "no")
	m := dial(t, ours.addr)
	// 24 MB of values: more than the socket buffers hold, so a replica
	// that does not read blocks the transfer.
	val := strings.Repeat("0123456789abcdef", 8<<10/16)
	for i := 0; i < 3000; i++ {
		m.send("SET", "big:"+strconv.Itoa(i), val)
	}
	for i := 0; i < 3000; i++ {
		if r := m.read(); r != "+OK\r\n" {
			t.Fatalf("SET: %q", r)
		}
	}
	p := startPinger(t, ours.addr)
	logCount := func(s string) int { return strings.Count(ours.logs.String(), s) }
	noReplicas := func() bool { return replInfo(m, "connected_slaves") == "0" }
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ours:\n%s", ours.logs.String())
		}
	})

	t.Run("garbage", func(t *testing.T) {
		lost := logCount("Connection with replica")
		rc := fakeReplica(t, ours.addr)
		rc.nc.Write([]byte("*2\r\n$8\r\nREPLCONF\r\n$-7\r\n\x00\xff garbage\r\n"))
		waitClosed(t, rc, "garbage")
		eventually(t, "the replica gone", noReplicas)
		eventually(t, "Connection with replica ... lost.", func() bool { return logCount("Connection with replica") > lost })
		p.check(t)
	})
	t.Run("stops-reading", func(t *testing.T) {
		rc := fakeReplica(t, ours.addr)
		_ = rc // never read: the RDB fills the socket buffers
		// The stream accumulated meanwhile passes the 1 MB hard limit.
		for i := 0; i < 200; i++ {
			if r := m.do("SET", "during:"+strconv.Itoa(i), val); r != "+OK\r\n" {
				t.Fatalf("SET during the stalled transfer: %q", r)
			}
		}
		eventually(t, "the output buffer limit log line", func() bool {
			return logCount("scheduled to be closed ASAP for overcoming of output buffer limits.") > 0
		})
		eventually(t, "the replica gone", noReplicas)
		p.check(t)
	})
	t.Run("stops-reading-idle", func(t *testing.T) {
		rc := fakeReplica(t, ours.addr)
		_ = rc // nothing written meanwhile: repl-timeout ends the transfer
		eventually(t, "Disconnecting timedout replica (full sync)", func() bool {
			return logCount("Disconnecting timedout replica (full sync): ") > 0
		})
		eventually(t, "the replica gone", noReplicas)
		p.check(t)
	})
	t.Run("disconnects-mid-rdb", func(t *testing.T) {
		lost := logCount("Connection with replica")
		rc := fakeReplica(t, ours.addr)
		rc.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.CopyN(io.Discard, rc.br, 256<<10); err != nil {
			t.Fatalf("reading the RDB: %v", err)
		}
		rc.nc.Close()
		eventually(t, "the replica gone", noReplicas)
		eventually(t, "Connection with replica ... lost.", func() bool { return logCount("Connection with replica") > lost })
		p.check(t)
	})

	// A well-behaved replica still syncs (the pinger's writes stopped
	// first, so that the digests are of one instant).
	_, port, _ := net.SplitHostPort(ours.addr)
	rr := startRealRedis(t, "--replicaof", "127.0.0.1", port)
	r := dial(t, rr.addr)
	eventually(t, "master_link_status:up", func() bool { return replInfo(r, "master_link_status") == "up" })
	p.check(t)
	if err := p.finish(); err != nil {
		t.Fatalf("another client's PING: %v", err)
	}
	waitInSync(t, m, r)
	if a, b := m.do("DEBUG", "DIGEST"), r.do("DEBUG", "DIGEST"); a != b {
		t.Fatalf("digest: ours %s replica %s", a, b)
	}
}

// fakeMaster is a Go TCP server speaking the master's side of the
// handshake; each connection's full sync is sent by the next function
// of payloads (the connection is closed when it returns).
type fakeMaster struct {
	ln       net.Listener
	payloads chan func(net.Conn)
	conns    atomic.Int64
}

func startFakeMaster(t *testing.T) *fakeMaster {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fm := &fakeMaster{ln: ln, payloads: make(chan func(net.Conn), 8)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			fm.conns.Add(1)
			go fm.serve(nc)
		}
	}()
	return fm
}

func (fm *fakeMaster) serve(nc net.Conn) {
	defer nc.Close()
	br := bufio.NewReader(nc)
	for {
		nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		argv, _, err := replication.ReadCommand(br)
		if err != nil || len(argv) == 0 {
			return
		}
		switch strings.ToUpper(string(argv[0])) {
		case "PING":
			nc.Write([]byte("+PONG\r\n"))
		case "REPLCONF":
			nc.Write([]byte("+OK\r\n"))
		case "PSYNC":
			nc.Write([]byte("+FULLRESYNC 1111111111111111111111111111111111111111 0\r\n"))
			select {
			case send := <-fm.payloads:
				send(nc)
			case <-time.After(30 * time.Second):
			}
			return
		default:
			nc.Write([]byte("-ERR unexpected\r\n"))
		}
	}
}

// TestReplicaBadMaster: a master that dies in the middle of the transfer
// (bulk or EOF form) leaves our replica serving its old data with Redis's
// log line; it then syncs from a good payload. (A complete payload that
// does not load: TestReplicaUnloadableRDBFromMaster.)
func TestReplicaBadMaster(t *testing.T) {
	// The RDB a healthy master would send, from a source of ours.
	src := startOurServer(t)
	sc := dial(t, src.addr)
	fillDataset(t, sc)
	if r := sc.do("SAVE"); r != "+OK\r\n" {
		t.Fatalf("SAVE: %q", r)
	}
	payload, err := os.ReadFile(filepath.Join(src.dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	srcDigest := sc.do("DEBUG", "DIGEST")

	ours := startOurServer(t, "--repl-timeout", "5")
	r := dial(t, ours.addr)
	r.do("SET", "old", "data")
	r.do("RPUSH", "oldlist", "a", "b")
	oldDigest := r.do("DEBUG", "DIGEST")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ours:\n%s", ours.logs.String())
		}
	})
	fm := startFakeMaster(t)
	_, port, _ := net.SplitHostPort(fm.ln.Addr().String())
	logCount := func(s string) int { return strings.Count(ours.logs.String(), s) }

	mark := strings.Repeat("a", 40)
	for _, c := range []struct {
		name, logLine string
		send          func(net.Conn)
	}{
		{"dies mid-transfer (bulk)", "I/O error trying to sync with MASTER: connection lost", func(nc net.Conn) {
			nc.Write([]byte("$" + strconv.Itoa(len(payload)) + "\r\n"))
			nc.Write(payload[:len(payload)/2])
		}},
		{"dies mid-transfer (EOF form)", "I/O error trying to sync with MASTER: connection lost", func(nc net.Conn) {
			nc.Write([]byte("$EOF:" + mark + "\r\n"))
			nc.Write(payload[:len(payload)/2])
		}},
	} {
		before := logCount(c.logLine)
		fm.payloads <- c.send
		if got := r.do("REPLICAOF", "127.0.0.1", port); got != "+OK\r\n" && got != "+OK Already connected to specified master\r\n" {
			t.Fatalf("REPLICAOF: %q", got)
		}
		eventually(t, c.name+": "+c.logLine, func() bool { return logCount(c.logLine) > before })
		if got := r.do("DEBUG", "DIGEST"); got != oldDigest {
			t.Fatalf("%s: the old data set is gone (digest %s, was %s)", c.name, got, oldDigest)
		}
		if got := r.do("GET", "old"); got != "$4\r\ndata\r\n" {
			t.Fatalf("%s: GET old = %q", c.name, got)
		}
	}
	if n := logCount("Flushing old data"); n != 0 {
		t.Fatalf("old data flushed %d times before a good payload", n)
	}
	// A good payload replaces the data set.
	fm.payloads <- func(nc net.Conn) {
		nc.Write([]byte("$EOF:" + mark + "\r\n"))
		nc.Write(payload)
		nc.Write([]byte(mark))
		io.Copy(io.Discard, nc) // the link stays up: ACKs come
	}
	eventually(t, "the good sync", func() bool { return replInfo(r, "master_link_status") == "up" })
	if got := r.do("DEBUG", "DIGEST"); got != srcDigest {
		t.Fatalf("digest after the good sync %s, source %s", got, srcDigest)
	}
}
