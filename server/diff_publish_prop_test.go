package server

import (
	"bytes"
	"net"
	"strings"
	"testing"
)

// PUBLISH and SPUBLISH reach the replicas and never the AOF (Redis's
// forceCommandPropagation(c, PROPAGATE_REPL)); inside EXEC or a script
// they still count for the MULTI/EXEC that wraps the unit.
func TestDiffPublishPropagatedToReplicasOnly(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--repl-diskless-sync-delay", "0")
	p.run([][]string{
		cmd("PUBLISH", "ch", "alone"),
		cmd("SPUBLISH", "sch", "alone"),
		cmd("MULTI"), cmd("SET", "k", "v"), cmd("PUBLISH", "ch", "m"), cmd("EXEC"),
		cmd("MULTI"), cmd("PUBLISH", "ch", "a"), cmd("SPUBLISH", "ch", "b"), cmd("EXEC"),
		cmd("MULTI"), cmd("PUBLISH", "ch", "only"), cmd("EXEC"),
		cmd("EVAL", "redis.call('set', KEYS[1], 'x') redis.call('publish', 'ch', 'lua') return 1", "1", "k2"),
		cmd("EVAL", "redis.call('spublish', 'ch', 'lua') return 1", "0"),
		cmd("SET", "last", "1"),
	})
	if got, want := incrAOF(t, p.ours.dir), incrAOF(t, p.real.dir); !bytes.Equal(got, want) {
		t.Fatalf("AOF:\n ours:  %q\n redis: %q", got, want)
	}
	// With a replica to feed, a PUBLISH in EXEC or a script is one of the
	// unit's ops: the AOF gets the MULTI/EXEC around the rest.
	for _, addr := range []string{p.ours.addr, p.real.addr} {
		_, port, _ := net.SplitHostPort(addr)
		r := dial(t, startRealRedis(t, "--replicaof", "127.0.0.1", port).addr)
		eventually(t, "master_link_status:up", func() bool { return replInfo(r, "master_link_status") == "up" })
	}
	p.run([][]string{
		cmd("PUBLISH", "ch", "alone"),
		cmd("MULTI"), cmd("SET", "k", "v2"), cmd("PUBLISH", "ch", "m"), cmd("EXEC"),
		cmd("MULTI"), cmd("PUBLISH", "ch", "a"), cmd("SPUBLISH", "ch", "b"), cmd("EXEC"),
		cmd("EVAL", "redis.call('set', KEYS[1], 'y') redis.call('publish', 'ch', 'lua') return 1", "1", "k2"),
		cmd("SET", "last", "2"),
	})
	// Redis postpones an everysec write while a background fsync runs
	// (the replica's sync makes one): wait for the last command.
	for _, dir := range []string{p.ours.dir, p.real.dir} {
		waitFor(t, "the AOF to get the last command", func() bool {
			return bytes.HasSuffix(incrAOF(t, dir), []byte("$4\r\nlast\r\n$1\r\n2\r\n"))
		})
	}
	if got, want := incrAOF(t, p.ours.dir), incrAOF(t, p.real.dir); !bytes.Equal(got, want) {
		t.Fatalf("AOF with replicas:\n ours:  %q\n redis: %q", got, want)
	}
	p.checkDigest()
}

// pubsubshard.tcl's "publish message to master and receive on replica",
// both ways: our master with Redis as its replica, Redis's master with
// ours.
func TestPublishReachesReplicaSubscribers(t *testing.T) {
	requireRedis(t)
	check := func(t *testing.T, masterAddr, replicaAddr string) {
		m, r, sub := dial(t, masterAddr), dial(t, replicaAddr), dial(t, replicaAddr)
		eventually(t, "master_link_status:up", func() bool { return replInfo(r, "master_link_status") == "up" })
		for _, c := range [][]string{{"SSUBSCRIBE", "chan1"}, {"SUBSCRIBE", "chan2"}} {
			if got := sub.do(c...); !strings.Contains(got, "subscribe") {
				t.Fatalf("%q: %q", c, got)
			}
		}
		for _, c := range [][]string{{"SPUBLISH", "chan1", "hello"}, {"SPUBLISH", "chan1", "world"}, {"PUBLISH", "chan2", "global"}} {
			m.do(c...)
		}
		for _, want := range []string{
			"*3\r\n$8\r\nsmessage\r\n$5\r\nchan1\r\n$5\r\nhello\r\n",
			"*3\r\n$8\r\nsmessage\r\n$5\r\nchan1\r\n$5\r\nworld\r\n",
			"*3\r\n$7\r\nmessage\r\n$5\r\nchan2\r\n$6\r\nglobal\r\n",
		} {
			if got := sub.read(); got != want {
				t.Fatalf("replica subscriber got %q, want %q", got, want)
			}
		}
		waitInSync(t, m, r)
	}
	t.Run("our master", func(t *testing.T) {
		ours := startOurServer(t)
		_, port, _ := net.SplitHostPort(ours.addr)
		rr := startRealRedis(t, "--replicaof", "127.0.0.1", port)
		check(t, ours.addr, rr.addr)
	})
	t.Run("our replica", func(t *testing.T) {
		rr := startRealRedis(t)
		_, port, _ := net.SplitHostPort(rr.addr)
		ours := startOurServer(t, "--replicaof", "127.0.0.1", port)
		check(t, rr.addr, ours.addr)
	})
}
