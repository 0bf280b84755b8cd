package server

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Transactions against real Redis: queueing, errors at queue time and at
// run time, WATCH invalidation by other clients, expiry and flushes.

func TestDiffMultiBasic(t *testing.T) {
	diff(t, [][]string{
		cmd("MULTI"), cmd("SET", "a", "1"), cmd("INCR", "a"), cmd("GET", "a"), cmd("EXEC"),
		cmd("MULTI"), cmd("EXEC"),
		cmd("MULTI"), cmd("MULTI"), cmd("DISCARD"), cmd("EXEC"), cmd("DISCARD"),
		cmd("MULTI"), cmd("SET", "b", "1"), cmd("DISCARD"), cmd("EXISTS", "b"),
		cmd("EXEC", "x"), cmd("MULTI", "x"), cmd("DISCARD", "x"),
		// run-time errors do not abort the rest
		cmd("SET", "s", "str"), cmd("MULTI"), cmd("INCR", "s"), cmd("SET", "c", "1"), cmd("LPUSH", "s", "x"),
		cmd("GET", "c"), cmd("EXEC"),
		// queue-time errors abort EXEC
		cmd("MULTI"), cmd("SET", "d", "1"), cmd("NOSUCHCMD"), cmd("SET", "e", "1"), cmd("EXEC"), cmd("EXISTS", "d", "e"),
		cmd("MULTI"), cmd("SET", "d", "1"), cmd("GET"), cmd("EXEC"), cmd("EXISTS", "d"),
		cmd("MULTI"), cmd("SET", "d"), cmd("DISCARD"),
		cmd("MULTI"), cmd("WATCH", "a"), cmd("SET", "d", "1"), cmd("EXEC"), cmd("EXISTS", "d"),
		cmd("MULTI"), cmd("UNWATCH"), cmd("EXEC"),
		cmd("MULTI"), cmd("SELECT", "1"), cmd("SET", "indb1", "1"), cmd("SELECT", "0"), cmd("EXEC"), cmd("EXISTS", "indb1"),
		cmd("MULTI"), cmd("SELECT", "1"), cmd("EXEC"), cmd("EXISTS", "indb1"), cmd("SELECT", "0"),
		cmd("MULTI"), cmd("PING"), cmd("ECHO", "e"), cmd("SELECT", "99"), cmd("EXEC"),
		cmd("MULTI"), cmd("SET", "x", "1", "EX", "100000"), cmd("TTL", "x"), cmd("SWAPDB", "0", "1"), cmd("EXEC"),
		cmd("DBSIZE"), cmd("SELECT", "1"), cmd("TTL", "x"), cmd("SELECT", "0"),
		cmd("MULTI"), cmd("FLUSHALL"), cmd("SET", "after", "1"), cmd("EXEC"), cmd("DBSIZE"),
		cmd("MULTI"), cmd("MSET", "m1", "1", "m2", "2"), cmd("MGET", "m1", "m2"), cmd("DEL", "m1", "m2"), cmd("EXEC"),
		cmd("MULTI"), cmd("SET", "q", "1", "NX"), cmd("SET", "q", "2", "NX"), cmd("SET", "q", "3", "BADOPT"), cmd("EXEC"),
		cmd("GET", "q"),
		cmd("MULTI"), cmd("SUBSCRIBE", "ch"), cmd("EXEC"), cmd("RESET"), cmd("DBSIZE"),
	})
}

func TestDiffWatch(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "w", "1"),
		// untouched watch: runs
		cmd("WATCH", "w"), cmd("MULTI"), cmd("INCR", "w"), cmd("EXEC"),
		// modified by another client: aborts
		cmd("WATCH", "w"), conn2("SET", "w", "other"), cmd("MULTI"), cmd("INCR", "w"), cmd("EXEC"), cmd("GET", "w"),
		// modified by ourselves before MULTI: aborts
		cmd("WATCH", "w"), cmd("SET", "w", "5"), cmd("MULTI"), cmd("INCR", "w"), cmd("EXEC"), cmd("GET", "w"),
		// set to the same value still counts as a modification
		cmd("WATCH", "w"), conn2("SET", "w", "5"), cmd("MULTI"), cmd("GET", "w"), cmd("EXEC"),
		// read-only access from another client does not
		cmd("WATCH", "w"), conn2("GET", "w"), conn2("EXISTS", "w"), cmd("MULTI"), cmd("GET", "w"), cmd("EXEC"),
		// a failed write (wrong type) does not touch
		cmd("WATCH", "w"), conn2("LPUSH", "w", "x"), cmd("MULTI"), cmd("GET", "w"), cmd("EXEC"),
		// a no-op write does not touch
		cmd("WATCH", "w"), conn2("SET", "w", "9", "NX"), conn2("DEL", "nope"), cmd("MULTI"), cmd("GET", "w"), cmd("EXEC"),
		// UNWATCH clears
		cmd("WATCH", "w"), conn2("SET", "w", "6"), cmd("UNWATCH"), cmd("MULTI"), cmd("GET", "w"), cmd("EXEC"),
		// DISCARD clears too
		cmd("WATCH", "w"), cmd("MULTI"), cmd("DISCARD"), conn2("SET", "w", "7"), cmd("MULTI"), cmd("GET", "w"), cmd("EXEC"),
		// watching a missing key, then it is created
		cmd("WATCH", "new"), conn2("SET", "new", "1"), cmd("MULTI"), cmd("GET", "new"), cmd("EXEC"),
		// missing key deleted again by another client: DEL of a missing key is no change
		cmd("WATCH", "missing"), conn2("DEL", "missing"), cmd("MULTI"), cmd("GET", "missing"), cmd("EXEC"),
		// several keys, one touched
		cmd("WATCH", "a", "b", "w"), conn2("SET", "b", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// EXPIRE / PERSIST / RENAME from another client
		cmd("WATCH", "w"), conn2("EXPIRE", "w", "100000"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("WATCH", "w"), conn2("PERSIST", "w"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("WATCH", "w"), conn2("RENAME", "w", "w2"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("WATCH", "w2"), conn2("RENAME", "w2", "w"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// another DB with the same key name is unrelated
		cmd("WATCH", "w"), conn2("SELECT", "1"), conn2("SET", "w", "x"), conn2("SELECT", "0"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// FLUSHALL / FLUSHDB / SWAPDB touch watched keys
		cmd("WATCH", "w"), conn2("FLUSHALL"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("SET", "w", "1"), cmd("WATCH", "w"), conn2("FLUSHDB"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("WATCH", "nokey"), conn2("FLUSHALL"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("SET", "w", "1"), cmd("WATCH", "w"), conn2("SWAPDB", "0", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		conn2("SWAPDB", "0", "1"),
		// WATCH inside MULTI, and arity
		cmd("MULTI"), cmd("WATCH", "w"), cmd("DISCARD"), cmd("WATCH"),
		// a second connection's transaction
		conn2("MULTI"), conn2("SET", "c2", "1"), conn2("EXEC"), cmd("GET", "c2"),
	})
}

func TestDiffWatchExpiry(t *testing.T) {
	diff(t, [][]string{
		// Without active expiry the outcome only depends on lazy expiry.
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		// A watched key that expires before EXEC aborts the transaction.
		cmd("SET", "k", "v", "PX", "100"), cmd("WATCH", "k"), pause(250),
		cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// A key already expired when watched does not.
		cmd("SET", "k2", "v", "PX", "50"), pause(150), cmd("WATCH", "k2"),
		cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// ... unless it is then modified.
		cmd("SET", "k3", "v", "PX", "50"), pause(150), cmd("WATCH", "k3"), conn2("SET", "k3", "new"),
		cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// ... and its lazy deletion by another client is no change.
		cmd("SET", "k4", "v", "PX", "50"), pause(150), cmd("WATCH", "k4"), conn2("GET", "k4"),
		cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// A watched key whose TTL is changed but is still alive: aborts.
		cmd("SET", "k5", "v", "EX", "100000"), cmd("WATCH", "k5"), conn2("EXPIRE", "k5", "200000"),
		cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		// Active expiry back on: after several cron cycles both servers
		// have removed k and k2 (right after the switch, DBSIZE depended
		// on whether either server's 100 ms cron ran in between).
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"), pause(350),
		cmd("DBSIZE"),
	})
}

// Redis's tests/unit/multi.tcl, case by case (the replication-stream ones
// are not here: see TestDiffMultiTclSkipped).
func TestDiffMultiTcl(t *testing.T) {
	staleX := func(extra ...[]string) [][]string {
		// x expired but still present (active expiry off): WATCH sees a
		// stale key.
		return append([][]string{cmd("DEL", "x"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
			cmd("SET", "x", "foo", "PX", "1"), pause(5)}, extra...)
	}
	cases := []struct {
		name string
		cmds [][]string
	}{
		{"MULTI / EXEC basics", [][]string{cmd("DEL", "mylist"), cmd("RPUSH", "mylist", "a", "b", "c"),
			cmd("MULTI"), cmd("LRANGE", "mylist", "0", "-1"), cmd("PING"), cmd("EXEC")}},
		{"DISCARD", [][]string{cmd("DEL", "mylist"), cmd("RPUSH", "mylist", "a", "b", "c"),
			cmd("MULTI"), cmd("DEL", "mylist"), cmd("DISCARD"), cmd("LRANGE", "mylist", "0", "-1")}},
		{"Nested MULTI are not allowed", [][]string{cmd("MULTI"), cmd("MULTI"), cmd("EXEC")}},
		{"MULTI where commands alter argc/argv", [][]string{cmd("SADD", "myset", "a"), cmd("MULTI"), cmd("SPOP", "myset"), cmd("EXEC"), cmd("EXISTS", "myset")}},
		{"WATCH inside MULTI is not allowed", [][]string{cmd("MULTI"), cmd("WATCH", "x"), cmd("EXEC")}},
		{"EXEC fails if there are errors while queueing commands #1", [][]string{cmd("DEL", "foo1", "foo2"), cmd("MULTI"), cmd("SET", "foo1", "bar1"),
			cmd("NON-EXISTING-COMMAND"), cmd("SET", "foo2", "bar2"), cmd("EXEC"), cmd("EXISTS", "foo1"), cmd("EXISTS", "foo2")}},
		{"EXEC fails if there are errors while queueing commands #2", [][]string{cmd("DEL", "foo1", "foo2"), cmd("MULTI"), cmd("SET", "foo1", "bar1"),
			conn2("CONFIG", "SET", "maxmemory", "1"), cmd("LPUSH", "mylist", "myvalue"), conn2("CONFIG", "SET", "maxmemory", "0"),
			cmd("SET", "foo2", "bar2"), cmd("EXEC"), cmd("EXISTS", "foo1"), cmd("EXISTS", "foo2")}},
		{"If EXEC aborts, the client MULTI state is cleared", [][]string{cmd("MULTI"), cmd("SET", "foo1", "bar1"), cmd("NON-EXISTING-COMMAND"),
			cmd("SET", "foo2", "bar2"), cmd("EXEC"), cmd("PING")}},
		{"EXEC works on WATCHed key not modified", [][]string{cmd("WATCH", "x", "y", "z"), cmd("WATCH", "k"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"EXEC fail on WATCHed key modified (1 key of 1 watched)", [][]string{cmd("SET", "x", "30"), cmd("WATCH", "x"), cmd("SET", "x", "40"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"EXEC fail on WATCHed key modified (1 key of 5 watched)", [][]string{cmd("SET", "x", "30"), cmd("WATCH", "a", "b", "x", "k", "z"), cmd("SET", "x", "40"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"EXEC fail on WATCHed key modified by SORT with STORE even if the result is empty", [][]string{cmd("FLUSHDB"), cmd("LPUSH", "foo", "bar"), cmd("WATCH", "foo"),
			cmd("SORT", "emptylist", "STORE", "foo"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"EXEC fail on lazy expired WATCHed key", [][]string{cmd("DEL", "key"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"), cmd("SET", "key", "1", "PX", "50"),
			cmd("WATCH", "key"), pause(60), cmd("MULTI"), cmd("INCR", "key"), cmd("EXEC"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")}},
		{"WATCH stale keys should not fail EXEC", staleX(cmd("WATCH", "x"), cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"))},
		{"Delete WATCHed stale keys should not fail EXEC", staleX(cmd("WATCH", "x"), cmd("EXISTS", "x"), cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"))},
		{"FLUSHDB while watching stale keys should not fail EXEC", staleX(cmd("WATCH", "x"), cmd("FLUSHDB"), cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"))},
		{"FLUSHALL while watching stale keys should not fail EXEC", staleX(cmd("WATCH", "x"), cmd("FLUSHALL"), cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"))},
		{"After successful EXEC key is no longer watched", [][]string{cmd("SET", "x", "30"), cmd("WATCH", "x"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("SET", "x", "40"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"After failed EXEC key is no longer watched", [][]string{cmd("SET", "x", "30"), cmd("WATCH", "x"), cmd("SET", "x", "40"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("SET", "x", "40"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"It is possible to UNWATCH", [][]string{cmd("SET", "x", "30"), cmd("WATCH", "x"), cmd("SET", "x", "40"), cmd("UNWATCH"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"UNWATCH when there is nothing watched works as expected", [][]string{cmd("UNWATCH")}},
		{"FLUSHALL is able to touch the watched keys", [][]string{cmd("SET", "x", "30"), cmd("WATCH", "x"), cmd("FLUSHALL"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"FLUSHALL does not touch non affected keys", [][]string{cmd("DEL", "x"), cmd("WATCH", "x"), cmd("FLUSHALL"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"FLUSHDB is able to touch the watched keys", [][]string{cmd("SET", "x", "30"), cmd("WATCH", "x"), cmd("FLUSHDB"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"FLUSHDB does not touch non affected keys", [][]string{cmd("DEL", "x"), cmd("WATCH", "x"), cmd("FLUSHDB"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"SWAPDB is able to touch the watched keys that exist", [][]string{cmd("FLUSHALL"), cmd("SELECT", "0"), cmd("SET", "x", "30"), cmd("WATCH", "x"),
			cmd("SWAPDB", "0", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"SWAPDB is able to touch the watched keys that do not exist", [][]string{cmd("FLUSHALL"), cmd("SELECT", "1"), cmd("SET", "x", "30"), cmd("SELECT", "0"),
			cmd("WATCH", "x"), cmd("SWAPDB", "0", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"SWAPDB does not touch watched stale keys", [][]string{cmd("FLUSHALL"), cmd("SELECT", "1"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
			cmd("SET", "x", "foo", "PX", "1"), pause(5), cmd("WATCH", "x"), cmd("SWAPDB", "0", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")}},
		{"SWAPDB does not touch non-existing key replaced with stale key", [][]string{cmd("FLUSHALL"), cmd("SELECT", "0"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
			cmd("SET", "x", "foo", "PX", "1"), pause(5), cmd("SELECT", "1"), cmd("WATCH", "x"), cmd("SWAPDB", "0", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")}},
		{"SWAPDB does not touch stale key replaced with another stale key", [][]string{cmd("FLUSHALL"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
			cmd("SELECT", "1"), cmd("SET", "x", "foo", "PX", "1"), cmd("SELECT", "0"), cmd("SET", "x", "bar", "PX", "1"), pause(5),
			cmd("SELECT", "1"), cmd("WATCH", "x"), cmd("SWAPDB", "0", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")}},
		// Beyond multi.tcl: a stale key swapped away then a live key
		// swapped in, and a missing key that a stale one replaces and
		// is then deleted by lazy expiry.
		{"SWAPDB replaces a stale watched key with a live one", [][]string{cmd("FLUSHALL"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
			cmd("SELECT", "0"), cmd("SET", "x", "live"), cmd("SELECT", "1"), cmd("SET", "x", "foo", "PX", "1"), pause(5),
			cmd("WATCH", "x"), cmd("SWAPDB", "0", "1"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")}},
		{"SWAPDB brings a stale key then it is lazily deleted", [][]string{cmd("FLUSHALL"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
			cmd("SELECT", "0"), cmd("SET", "x", "foo", "PX", "1"), pause(5), cmd("SELECT", "1"), cmd("WATCH", "x"),
			cmd("SWAPDB", "0", "1"), cmd("EXISTS", "x"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")}},
		{"SWAPDB brings a stale key then it is overwritten", [][]string{cmd("FLUSHALL"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
			cmd("SELECT", "0"), cmd("SET", "x", "foo", "PX", "1"), pause(5), cmd("SELECT", "1"), cmd("WATCH", "x"),
			cmd("SWAPDB", "0", "1"), cmd("SET", "x", "new"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
			cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")}},
		{"Stale watched key overwritten", staleX(cmd("WATCH", "x"), conn2("SET", "x", "new"), cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"))},
		{"WATCH is able to remember the DB a key belongs to", [][]string{cmd("SELECT", "5"), cmd("SET", "x", "30"), cmd("WATCH", "x"), cmd("SELECT", "1"),
			cmd("SET", "x", "10"), cmd("SELECT", "5"), cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("SELECT", "9")}},
		{"WATCH will consider touched keys target of EXPIRE", [][]string{cmd("DEL", "x"), cmd("SET", "x", "foo"), cmd("WATCH", "x"), cmd("EXPIRE", "x", "10"),
			cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		{"DISCARD should clear the WATCH dirty flag on the client", [][]string{cmd("WATCH", "x"), cmd("SET", "x", "10"), cmd("MULTI"), cmd("DISCARD"),
			cmd("MULTI"), cmd("INCR", "x"), cmd("EXEC")}},
		{"DISCARD should UNWATCH all the keys", [][]string{cmd("WATCH", "x"), cmd("SET", "x", "10"), cmd("MULTI"), cmd("DISCARD"), cmd("SET", "x", "10"),
			cmd("MULTI"), cmd("INCR", "x"), cmd("EXEC")}},
		{"DISCARD should not fail during OOM", [][]string{conn2("CONFIG", "SET", "maxmemory", "1"), cmd("MULTI"), cmd("SET", "x", "1"), cmd("DISCARD"),
			conn2("CONFIG", "SET", "maxmemory", "0"), cmd("PING")}},
		{"EXEC with only read commands should not be rejected when OOM", [][]string{cmd("SET", "x", "value"), cmd("MULTI"), cmd("GET", "x"), cmd("PING"),
			conn2("CONFIG", "SET", "maxmemory", "1"), cmd("EXEC"), conn2("CONFIG", "SET", "maxmemory", "0")}},
		{"EXEC with at least one use-memory command should fail", [][]string{cmd("MULTI"), cmd("SET", "x", "1"), cmd("GET", "x"),
			conn2("CONFIG", "SET", "maxmemory", "1"), cmd("EXEC"), conn2("CONFIG", "SET", "maxmemory", "0"), cmd("EXISTS", "x")}},
		{"Blocking commands ignores the timeout", [][]string{cmd("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), cmd("MULTI"),
			cmd("BLPOP", "empty_list", "0"), cmd("BRPOP", "empty_list", "0"), cmd("BRPOPLPUSH", "empty_list1", "empty_list2", "0"),
			cmd("BLMOVE", "empty_list1", "empty_list2", "LEFT", "LEFT", "0"), cmd("BZPOPMIN", "empty_zset", "0"), cmd("BZPOPMAX", "empty_zset", "0"),
			cmd("XREAD", "BLOCK", "0", "STREAMS", "s", "$"), cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"),
			cmd("BLMPOP", "0", "1", "empty_list", "LEFT"), cmd("BZMPOP", "0", "1", "empty_zset", "MIN"), cmd("EXEC")}},
		{"MULTI with SAVE", [][]string{cmd("DEL", "foo"), cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("SAVE"), cmd("EXEC"), cmd("GET", "foo")}},
		{"MULTI with SHUTDOWN", [][]string{cmd("DEL", "foo"), cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("SHUTDOWN"), cmd("EXEC"), cmd("GET", "foo")}},
		{"MULTI with config error", [][]string{cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("CONFIG", "SET", "maxmemory", "bla"), cmd("EXEC")}},
		{"Flushall while watching several keys by one client", [][]string{cmd("FLUSHALL"), cmd("MSET", "a", "a", "b", "b"), cmd("WATCH", "b", "a"),
			cmd("FLUSHALL"), cmd("PING"), cmd("MULTI"), cmd("PING"), cmd("EXEC")}},
		// Beyond multi.tcl.
		{"EXEC with a wrong-arity command queued", [][]string{cmd("MULTI"), cmd("SET", "foo"), cmd("SET", "foo", "bar"), cmd("EXEC"), cmd("EXISTS", "foo")}},
		{"MULTI with a no-multi command", [][]string{cmd("MULTI"), cmd("WAIT", "0", "0"), cmd("EXEC"), cmd("MULTI"), cmd("MONITOR"), cmd("EXEC"),
			cmd("MULTI"), cmd("SUBSCRIBE", "c"), cmd("PSUBSCRIBE", "p"), cmd("EXEC"), cmd("UNSUBSCRIBE"), cmd("PUNSUBSCRIBE")}},
		{"WATCH after a touch is a no-op until UNWATCH", [][]string{cmd("SET", "x", "1"), cmd("WATCH", "x"), conn2("SET", "x", "2"),
			cmd("WATCH", "y"), cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("WATCH", "x"), conn2("SET", "x", "3"), cmd("UNWATCH"),
			cmd("WATCH", "x"), cmd("MULTI"), cmd("GET", "x"), cmd("EXEC")}},
		{"EXEC arity and DISCARD inside nested error", [][]string{cmd("MULTI"), cmd("MULTI"), cmd("SET", "n", "1"), cmd("EXEC"), cmd("GET", "n"),
			cmd("MULTI"), cmd("EXEC", "extra"), cmd("SET", "n", "2"), cmd("EXEC"), cmd("GET", "n")}},
		{"Queueing under OOM", [][]string{cmd("SET", "x", "1"), cmd("MULTI"), conn2("CONFIG", "SET", "maxmemory", "1"),
			cmd("GET", "x"), cmd("PING"), cmd("MULTI"), cmd("WATCH", "x"), cmd("SAVE"), cmd("DISCARD"),
			cmd("MULTI"), cmd("DEL", "x"), cmd("EXEC"), cmd("MULTI"), cmd("RESET"), conn2("CONFIG", "SET", "maxmemory", "0"), cmd("GET", "x")}},
		{"EXEC of read-only and admin commands under OOM", [][]string{cmd("SET", "x", "1"), cmd("MULTI"), cmd("GET", "x"), cmd("DEL", "x"),
			cmd("CONFIG", "SET", "maxmemory", "1"), cmd("EXEC"), cmd("CONFIG", "SET", "maxmemory", "0"), cmd("EXISTS", "x")}},
		{"MULTI with BGREWRITEAOF", [][]string{cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("BGREWRITEAOF"), cmd("EXEC")}},
		{"exec with write commands and state change", [][]string{cmd("SET", "xx", "1"), cmd("MULTI"), cmd("INCR", "xx"),
			conn2("CONFIG", "SET", "min-replicas-to-write", "2"), cmd("EXEC"), cmd("GET", "xx"), conn2("CONFIG", "SET", "min-replicas-to-write", "0")}},
		{"MULTI with config set appendonly", [][]string{cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("CONFIG", "SET", "appendonly", "yes"), cmd("EXEC")}},
		{"RESET and QUIT-less state", [][]string{cmd("WATCH", "x"), cmd("MULTI"), cmd("SET", "r", "1"), cmd("RESET"), cmd("EXEC"), cmd("EXISTS", "r")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { diff(t, tc.cmds) })
	}
}

// multiBusyScenario is multi.tcl's four "script timeout" cases: a
// transaction whose MULTI, body or EXEC arrives while a script is past
// busy-reply-threshold either runs whole or not at all, and the client
// leaves the MULTI state.
func multiBusyScenario(t *testing.T, addr string) []string {
	t.Helper()
	var out []string
	add := func(r string) { out = append(out, r) }
	r := dial(t, addr)
	r2 := dial(t, addr)
	busy := func() <-chan string {
		ch := asyncDo(t, addr, "EVAL", "while true do end", "0")
		deadline := time.Now().Add(10 * time.Second)
		for !strings.HasPrefix(r.do("PING"), "-BUSY") {
			if time.Now().After(deadline) {
				t.Fatal("the server never became busy")
			}
			time.Sleep(5 * time.Millisecond)
		}
		return ch
	}
	kill := func(ch <-chan string) {
		add(r.do("SCRIPT", "KILL"))
		add(reply(t, ch))
	}
	// MULTI and script timeout
	add(r.do("SET", "xx", "1"))
	ch := busy()
	add(r2.do("MULTI"))
	add(r2.do("INCR", "xx"))
	kill(ch)
	add(r2.do("INCR", "xx"))
	add(r2.do("EXEC"))
	add(r.do("GET", "xx"))
	add(r2.do("PING", "asdf"))
	// EXEC and script timeout
	add(r.do("SET", "xx", "1"))
	add(r2.do("MULTI"))
	add(r2.do("INCR", "xx"))
	ch = busy()
	add(r2.do("INCR", "xx"))
	add(r2.do("EXEC"))
	kill(ch)
	add(r.do("GET", "xx"))
	add(r2.do("PING", "asdf"))
	// MULTI-EXEC body and script timeout
	add(r.do("SET", "xx", "1"))
	add(r2.do("MULTI"))
	add(r2.do("INCR", "xx"))
	ch = busy()
	add(r2.do("INCR", "xx"))
	kill(ch)
	add(r2.do("EXEC"))
	add(r.do("GET", "xx"))
	add(r2.do("PING", "asdf"))
	// just EXEC and script timeout
	add(r.do("SET", "xx", "1"))
	add(r2.do("MULTI"))
	add(r2.do("INCR", "xx"))
	ch = busy()
	add(r2.do("EXEC"))
	kill(ch)
	add(r.do("GET", "xx"))
	add(r2.do("PING", "asdf"))
	return out
}

func TestDiffMultiBusyScript(t *testing.T) {
	requireRedis(t)
	rr := startRealRedis(t, "--busy-reply-threshold", "10")
	ours := startOurServer(t, "--busy-reply-threshold", "10")
	compareScenario(t, multiBusyScenario(t, ours.addr), multiBusyScenario(t, rr.addr))
}

// compareScenario requires the same replies from both servers.
func compareScenario(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d replies, want %d:\n ours:  %q\n redis: %q", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply #%d:\n ours:  %q\n redis: %q", i, got[i], want[i])
		}
	}
}

// multiConnScenario: multi.tcl's "WATCH will consider touched expired keys"
// (active expiry deletes a watched key), and a transaction that kills its
// own connection: the replies of the whole EXEC are written, then the
// connection is closed.
func multiConnScenario(t *testing.T, addr string) []string {
	t.Helper()
	var out []string
	add := func(r string) { out = append(out, r) }
	r := dial(t, addr)
	add(r.do("SET", "x", "foo"))
	add(r.do("PEXPIRE", "x", "20"))
	add(r.do("WATCH", "x"))
	deadline := time.Now().Add(10 * time.Second)
	for r.do("DBSIZE") != ":0\r\n" { // active expiry, not a lookup
		if time.Now().After(deadline) {
			t.Fatal("x never expired")
		}
		time.Sleep(5 * time.Millisecond)
	}
	add(r.do("MULTI"))
	add(r.do("PING"))
	add(r.do("EXEC"))

	k := dial(t, addr)
	add(k.do("MULTI"))
	add(k.do("SET", "a", "1"))
	add(k.do("CLIENT", "KILL", "USER", "default", "SKIPME", "no"))
	add(k.do("SET", "b", "2"))
	k.send("EXEC")
	k.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	rest, err := io.ReadAll(k.br) // up to the close
	if err != nil {
		t.Fatalf("reading the EXEC reply up to the close: %v", err)
	}
	add(string(rest))
	r = dial(t, addr) // r was killed too
	add(r.do("MGET", "a", "b"))
	return out
}

func TestDiffMultiConn(t *testing.T) {
	requireRedis(t)
	rr := startRealRedis(t)
	ours := startOurServer(t)
	compareScenario(t, multiConnScenario(t, ours.addr), multiConnScenario(t, rr.addr))
}

// multi.tcl's propagation cases, checked on the AOF (its replication-stream
// twin): a lone write is not wrapped, several are, per DB; an empty,
// read-only or no-op transaction logs nothing; PUBLISH, SCRIPT LOAD and
// SCRIPT FLUSH are not logged; EVAL logs its effects; XREADGROUP its XCLAIMs
// and SETID; FLUSHALL inside MULTI stays inside it.
func TestDiffMultiPropagation(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	p.run([][]string{
		cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("EXEC"), cmd("SET", "foo2", "bar"),
		cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("GET", "foo"), cmd("SET", "foo2", "bar2"), cmd("GET", "foo2"),
		cmd("SET", "foo3", "bar3"), cmd("GET", "foo3"), cmd("EXEC"),
		cmd("MULTI"), cmd("SELECT", "1"), cmd("SET", "foo", "bar"), cmd("GET", "foo"), cmd("SELECT", "2"), cmd("SET", "foo2", "bar2"),
		cmd("GET", "foo2"), cmd("SELECT", "3"), cmd("SET", "foo3", "bar3"), cmd("GET", "foo3"), cmd("EXEC"), cmd("SELECT", "0"),
		cmd("MULTI"), cmd("EXEC"), cmd("SET", "foo", "bar"),
		cmd("SET", "foo", "value1"), cmd("MULTI"), cmd("GET", "foo"), cmd("EXEC"), cmd("SET", "foo", "value2"),
		cmd("DEL", "bar"), cmd("DEL", "foo"), cmd("MULTI"), cmd("DEL", "foo"), cmd("EXEC"), cmd("INCR", "foo"),
		cmd("MULTI"), cmd("PUBLISH", "bla", "bla"), cmd("EXEC"),
		cmd("MULTI"), cmd("SCRIPT", "LOAD", "redis.call('set', KEYS[1], 'foo')"), cmd("SET", "foo", "bar"), cmd("EXEC"),
		cmd("MULTI"), cmd("EVAL", "redis.call('set', KEYS[1], 'bar')", "1", "bar"), cmd("EXEC"),
		cmd("MULTI"), cmd("SCRIPT", "FLUSH"), cmd("SET", "foo", "bar"), cmd("EXEC"),
		cmd("XADD", "mystream", "1-1", "foo", "bar"), cmd("XADD", "mystream", "1-2", "foo2", "bar2"), cmd("XADD", "mystream", "1-3", "foo3", "bar3"),
		cmd("XGROUP", "CREATE", "mystream", "mygroup", "0"),
		cmd("MULTI"), cmd("XREADGROUP", "GROUP", "mygroup", "consumer1", "COUNT", "2", "STREAMS", "mystream", ">"),
		cmd("XREADGROUP", "GROUP", "mygroup", "consumer1", "STREAMS", "mystream", ">"), cmd("EXEC"),
		cmd("MULTI"), cmd("SET", "foo", "bar"), cmd("FLUSHALL"), cmd("EXEC"), cmd("GET", "foo"),
	})
	p.checkDigest()
	// XCLAIM carries the time of the XREADGROUP, in ms.
	ms := regexp.MustCompile(`TIME\r\n\$13\r\n[0-9]{13}`)
	got := ms.ReplaceAll(incrAOF(t, p.ours.dir), []byte("TIME"))
	want := ms.ReplaceAll(incrAOF(t, p.real.dir), []byte("TIME"))
	if !bytes.Equal(got, want) {
		t.Fatalf("AOF differs:\n ours:  %q\n redis: %q", got, want)
	}
}
