package server

import (
	"testing"
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
