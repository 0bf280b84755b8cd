package server

import "testing"

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
