package server

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// ZUNION/ZINTER/ZDIFF (and STORE), ZINTERCARD, ZRANDMEMBER, ZMPOP and
// LMPOP against real Redis.

func zopsFixture() [][]string {
	return [][]string{
		cmd("ZADD", "z1", "1", "a", "2", "b", "3", "c", "-1", "d"),
		cmd("ZADD", "z2", "10", "b", "20", "c", "30", "e", "0", "a"),
		cmd("ZADD", "z3", "inf", "a", "-inf", "b", "5", "f"),
		cmd("SADD", "s1", "a", "b", "x"), cmd("SADD", "si", "1", "2", "3"),
		cmd("ZADD", "zi", "0.5", "1", "1.5", "2", "-2.5", "9"),
		cmd("ZADD", "big", "1", strings.Repeat("m", 70), "2", "short"),
		cmd("SET", "str", "x"), cmd("RPUSH", "list", "a"),
	}
}

func TestDiffZUnionInterDiff(t *testing.T) {
	cmds := zopsFixture()
	for _, op := range []string{"ZUNION", "ZINTER"} {
		cmds = append(cmds,
			cmd(op, "2", "z1", "z2"), cmd(op, "2", "z1", "z2", "WITHSCORES"), cmd(op, "3", "z1", "z2", "z3", "WITHSCORES"),
			cmd(op, "2", "z1", "z2", "WEIGHTS", "2", "-1", "WITHSCORES"), cmd(op, "2", "z1", "z3", "WEIGHTS", "0", "1", "WITHSCORES"),
			cmd(op, "2", "z3", "z3", "WITHSCORES"), cmd(op, "2", "z3", "z3", "WEIGHTS", "1", "-1", "WITHSCORES"),
			cmd(op, "2", "z3", "z3", "WEIGHTS", "1", "-1", "AGGREGATE", "MIN", "WITHSCORES"),
			cmd(op, "2", "z1", "z2", "AGGREGATE", "MIN", "WITHSCORES"), cmd(op, "2", "z1", "z2", "AGGREGATE", "max", "WITHSCORES"),
			cmd(op, "2", "z1", "z2", "aggregate", "sum", "weights", "1.5", "1e2", "withscores"),
			cmd(op, "2", "z1", "s1", "WITHSCORES"), cmd(op, "2", "s1", "si", "WITHSCORES"), cmd(op, "3", "si", "zi", "s1", "WITHSCORES"),
			cmd(op, "2", "si", "zi", "WITHSCORES", "WEIGHTS", "3", "4"), cmd(op, "1", "s1"), cmd(op, "1", "nokey"),
			cmd(op, "2", "z1", "nokey", "WITHSCORES"), cmd(op, "2", "nokey", "z1"), cmd(op, "2", "big", "z1", "WITHSCORES"),
			cmd(op, "2", "z1", "z2", "WITHSCORES", "WITHSCORES"), cmd(op, "2", "z1", "z2", "WEIGHTS", "1", "2", "WEIGHTS", "3", "4"),
			cmd(op, "2", "z1", "z2", "AGGREGATE", "MIN", "AGGREGATE", "SUM", "WITHSCORES"),
			// errors
			cmd(op, "0", "z1"), cmd(op, "-1", "z1"), cmd(op, "x", "z1"), cmd(op, "3", "z1", "z2"), cmd(op, "2", "z1"),
			cmd(op, "2", "z1", "str"), cmd(op, "2", "list", "z1"), cmd(op, "2", "str", "z1", "WEIGHTS", "x"),
			cmd(op, "2", "z1", "z2", "WEIGHTS", "1"), cmd(op, "2", "z1", "z2", "WEIGHTS", "1", "x"),
			cmd(op, "2", "z1", "z2", "WEIGHTS", "1", "nan"), cmd(op, "2", "z1", "z2", "WEIGHTS", "1", " 1"),
			cmd(op, "2", "z1", "z2", "WEIGHTS", "1", "inf", "WITHSCORES"),
			cmd(op, "2", "z1", "z2", "AGGREGATE"), cmd(op, "2", "z1", "z2", "AGGREGATE", "AVG"),
			cmd(op, "2", "z1", "z2", "LIMIT", "1"), cmd(op, "2", "z1", "z2", "FOO"), cmd(op, "9223372036854775807", "z1"),
		)
	}
	cmds = append(cmds,
		cmd("ZDIFF", "1", "z1"), cmd("ZDIFF", "1", "z1", "WITHSCORES"), cmd("ZDIFF", "2", "z1", "z2", "WITHSCORES"),
		cmd("ZDIFF", "3", "z1", "z2", "z3", "WITHSCORES"), cmd("ZDIFF", "2", "z1", "nokey", "WITHSCORES"),
		cmd("ZDIFF", "2", "nokey", "z1"), cmd("ZDIFF", "2", "z1", "s1", "WITHSCORES"), cmd("ZDIFF", "2", "si", "zi"),
		cmd("ZDIFF", "2", "zi", "si", "WITHSCORES"), cmd("ZDIFF", "2", "z1", "z1"), cmd("ZDIFF", "2", "big", "z1", "WITHSCORES"),
		cmd("ZDIFF", "2", "z1", "z2", "WEIGHTS", "1", "2"), cmd("ZDIFF", "2", "z1", "z2", "AGGREGATE", "MIN"),
		cmd("ZDIFF", "0", "z1"), cmd("ZDIFF", "2", "z1"), cmd("ZDIFF", "2", "z1", "str"), cmd("ZDIFF", "1", "z1", "FOO"),
		cmd("ZDIFF"), cmd("ZUNION", "1"), cmd("ZINTER"),
	)
	diff(t, cmds)
}

func TestDiffZStoreOps(t *testing.T) {
	cmds := zopsFixture()
	for _, op := range []string{"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"} {
		cmds = append(cmds,
			cmd(op, "d", "2", "z1", "z2"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd("OBJECT", "ENCODING", "d"),
			cmd(op, "d", "3", "z1", "z2", "z3"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			cmd(op, "d", "2", "big", "z1"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd("OBJECT", "ENCODING", "d"),
			cmd(op, "d", "2", "si", "zi"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd("OBJECT", "ENCODING", "d"),
			cmd(op, "d", "1", "nokey"), cmd("EXISTS", "d"), cmd(op, "d", "1", "nokey"),
			cmd("SET", "d", "x"), cmd("EXPIRE", "d", "1000"), cmd(op, "d", "2", "z1", "s1"), cmd("TTL", "d"), cmd("TYPE", "d"),
			cmd(op, "z1c", "1", "z1"), cmd(op, "z1c", "2", "z1c", "z2"), cmd("ZRANGE", "z1c", "0", "-1", "WITHSCORES"),
			cmd(op, "d", "2", "z1", "z2", "WITHSCORES"), cmd(op, "d", "2", "z1", "str"), cmd(op, "d", "0", "z1"),
			cmd(op, "d", "3", "z1", "z2"), cmd(op, "d", "x", "z1"), cmd(op, "d", "2", "z1", "z2", "WEIGHTS", "2", "3"),
			cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd(op, "d", "2", "z1", "z2", "AGGREGATE", "MAX"),
			cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd(op, "d"), cmd(op, "d", "1"),
		)
	}
	diff(t, cmds)
}

func TestDiffZStoreOpsEncodingLimits(t *testing.T) {
	p := newDiffPair(t, "--zset-max-listpack-entries", "3", "--zset-max-listpack-value", "5")
	p.run([][]string{
		cmd("ZADD", "a", "1", "x", "2", "y"), cmd("ZADD", "b", "3", "z", "4", "w"),
		cmd("ZUNIONSTORE", "d", "2", "a", "b"), cmd("OBJECT", "ENCODING", "d"),
		cmd("ZINTERSTORE", "d", "2", "a", "a"), cmd("OBJECT", "ENCODING", "d"),
		cmd("ZADD", "c", "1", "longer"), cmd("ZUNIONSTORE", "d", "1", "c"), cmd("OBJECT", "ENCODING", "d"),
		cmd("ZDIFFSTORE", "d", "2", "b", "a"), cmd("OBJECT", "ENCODING", "d"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
		// negative zero from a weight, in a listpack and in a skiplist result
		cmd("ZADD", "n", "0", "x", "-0", "y", "1", "z"), cmd("ZUNION", "1", "n", "WEIGHTS", "-1", "WITHSCORES"),
		cmd("ZUNIONSTORE", "d", "1", "n", "WEIGHTS", "-1"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd("ZSCORE", "d", "x"),
		cmd("ZUNIONSTORE", "d", "2", "n", "c", "WEIGHTS", "-1", "1"), cmd("OBJECT", "ENCODING", "d"),
		cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd("ZSCORE", "d", "x"),
		cmd("ZINTER", "2", "n", "n", "WEIGHTS", "-1", "1", "AGGREGATE", "MIN", "WITHSCORES"),
	})
	p.checkDigest()
}

func TestDiffZInterCard(t *testing.T) {
	cmds := zopsFixture()
	cmds = append(cmds,
		cmd("ZINTERCARD", "2", "z1", "z2"), cmd("ZINTERCARD", "3", "z1", "z2", "z3"), cmd("ZINTERCARD", "1", "z1"),
		cmd("ZINTERCARD", "2", "z1", "s1"), cmd("ZINTERCARD", "2", "si", "zi"), cmd("ZINTERCARD", "2", "z1", "nokey"),
		cmd("ZINTERCARD", "2", "z1", "z2", "LIMIT", "0"), cmd("ZINTERCARD", "2", "z1", "z2", "LIMIT", "1"),
		cmd("ZINTERCARD", "2", "z1", "z2", "LIMIT", "2"), cmd("ZINTERCARD", "2", "z1", "z2", "LIMIT", "100"),
		cmd("ZINTERCARD", "1", "z1", "LIMIT", "2", "LIMIT", "3"),
		cmd("ZINTERCARD", "2", "z1", "z2", "LIMIT", "-1"), cmd("ZINTERCARD", "2", "z1", "z2", "LIMIT", "x"),
		cmd("ZINTERCARD", "2", "z1", "z2", "LIMIT"), cmd("ZINTERCARD", "2", "z1", "z2", "WITHSCORES"),
		cmd("ZINTERCARD", "2", "z1", "z2", "WEIGHTS", "1", "2"), cmd("ZINTERCARD", "2", "z1", "z2", "AGGREGATE", "MIN"),
		cmd("ZINTERCARD", "0", "z1"), cmd("ZINTERCARD", "-3", "z1"), cmd("ZINTERCARD", "x", "z1"), cmd("ZINTERCARD", "3", "z1", "z2"),
		cmd("ZINTERCARD", "2", "z1", "str"), cmd("ZINTERCARD", "2", "nokey", "str"), cmd("ZINTERCARD", "1"),
	)
	diff(t, cmds)
}

func TestDiffZRandMember(t *testing.T) {
	diff(t, [][]string{
		cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"),
		cmd("ZRANDMEMBER", "nokey"), cmd("ZRANDMEMBER", "nokey", "5"), cmd("ZRANDMEMBER", "nokey", "-5", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "0"), cmd("ZRANDMEMBER", "z", "0", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "5"), cmd("ZRANDMEMBER", "z", "5", "WITHSCORES"), cmd("ZRANDMEMBER", "z", "100", "withscores"),
		shape("ZRANDMEMBER", "z", "4"), shape("ZRANDMEMBER", "z", "2"), shape("ZRANDMEMBER", "z", "2", "WITHSCORES"),
		shape("ZRANDMEMBER", "z", "-20"), shape("ZRANDMEMBER", "z", "-3", "WITHSCORES"), shape("ZRANDMEMBER", "z"),
		shape("ZRANDMEMBER", "z", "1"), shape("ZRANDMEMBER", "z", "-1"),
		cmd("ZRANDMEMBER", "z", "x"), cmd("ZRANDMEMBER", "z", "1", "FOO"), cmd("ZRANDMEMBER", "z", "1", "WITHSCORES", "x"),
		cmd("ZRANDMEMBER", "z", "-9223372036854775808"), cmd("ZRANDMEMBER", "z", "9223372036854775807", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "-9223372036854775807", "WITHSCORES"), cmd("ZRANDMEMBER", "z", "4611686018427387904", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "4611686018427387903", "WITHSCORES"),
		cmd("SET", "str", "x"), cmd("ZRANDMEMBER", "str"), cmd("ZRANDMEMBER", "str", "2"), cmd("ZRANDMEMBER", "str", "x"),
		cmd("ZRANDMEMBER", "str", "0"), cmd("ZRANDMEMBER"),
		// skiplist encoding
		cmd("ZADD", "zs", "1", strings.Repeat("x", 80), "2", "y", "-1", "w"), cmd("ZRANDMEMBER", "zs", "3", "WITHSCORES"),
		shape("ZRANDMEMBER", "zs", "2"), shape("ZRANDMEMBER", "zs", "-7", "WITHSCORES"), shape("ZRANDMEMBER", "zs"),
	})
}

// A single element set answers every random query deterministically.
func TestDiffZRandMemberSingle(t *testing.T) {
	diff(t, [][]string{
		cmd("ZADD", "z", "2.5", "only"), cmd("ZRANDMEMBER", "z"), cmd("ZRANDMEMBER", "z", "-4", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "1", "WITHSCORES"), cmd("ZRANDMEMBER", "z", "-1"),
	})
}

func TestDiffZMPop(t *testing.T) {
	diff(t, [][]string{
		cmd("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), cmd("ZADD", "z2", "-1", "x"),
		cmd("ZMPOP", "1", "z", "MIN"), cmd("ZMPOP", "1", "z", "MAX"), cmd("ZMPOP", "1", "z", "min", "COUNT", "2"),
		cmd("ZMPOP", "2", "nokey", "z", "max", "count", "10"), cmd("EXISTS", "z"), cmd("ZMPOP", "2", "z", "nokey", "MIN"),
		cmd("ZMPOP", "3", "nokey", "z", "z2", "MIN", "COUNT", "1"), cmd("ZMPOP", "1", "z2", "MIN"),
		cmd("SET", "str", "x"), cmd("ZADD", "z3", "1", "q"), cmd("ZMPOP", "2", "str", "z3", "MIN"), cmd("ZMPOP", "2", "z3", "str", "MIN"),
		cmd("ZMPOP", "1", "str", "MIN"),
		cmd("ZMPOP", "0", "z", "MIN"), cmd("ZMPOP", "-1", "z", "MIN"), cmd("ZMPOP", "x", "z", "MIN"), cmd("ZMPOP", "2", "z", "MIN"),
		cmd("ZMPOP", "1", "z", "MIDDLE"), cmd("ZMPOP", "1", "z", "MIN", "COUNT"), cmd("ZMPOP", "1", "z", "MIN", "COUNT", "0"),
		cmd("ZMPOP", "1", "z", "MIN", "COUNT", "-1"), cmd("ZMPOP", "1", "z", "MIN", "COUNT", "x"),
		cmd("ZMPOP", "1", "z", "MIN", "COUNT", "1", "COUNT", "1"), cmd("ZMPOP", "1", "z", "MIN", "FOO"),
		cmd("ZMPOP", "1", "z"), cmd("ZMPOP", "1"),
		cmd("ZADD", "zs", "1", strings.Repeat("x", 80), "2", "y", "-1", "w"), cmd("ZMPOP", "1", "zs", "MAX", "COUNT", "2"),
		cmd("ZMPOP", "1", "zs", "MAX", "COUNT", "2"), cmd("EXISTS", "zs"),
	})
}

func TestDiffLMPop(t *testing.T) {
	diff(t, [][]string{
		cmd("RPUSH", "l", "a", "b", "c", "d", "e"), cmd("RPUSH", "l2", "x"),
		cmd("LMPOP", "1", "l", "LEFT"), cmd("LMPOP", "1", "l", "RIGHT"), cmd("LMPOP", "1", "l", "left", "COUNT", "2"),
		cmd("LMPOP", "2", "nokey", "l", "right", "count", "10"), cmd("EXISTS", "l"), cmd("LMPOP", "2", "l", "nokey", "LEFT"),
		cmd("LMPOP", "3", "nokey", "l", "l2", "LEFT", "COUNT", "5"),
		cmd("SET", "str", "x"), cmd("RPUSH", "l3", "q"), cmd("LMPOP", "2", "str", "l3", "LEFT"), cmd("LMPOP", "2", "l3", "str", "LEFT"),
		cmd("LMPOP", "1", "str", "LEFT"),
		cmd("LMPOP", "0", "l", "LEFT"), cmd("LMPOP", "-1", "l", "LEFT"), cmd("LMPOP", "x", "l", "LEFT"), cmd("LMPOP", "2", "l", "LEFT"),
		cmd("LMPOP", "1", "l", "MIDDLE"), cmd("LMPOP", "1", "l", "LEFT", "COUNT"), cmd("LMPOP", "1", "l", "LEFT", "COUNT", "0"),
		cmd("LMPOP", "1", "l", "LEFT", "COUNT", "-1"), cmd("LMPOP", "1", "l", "LEFT", "COUNT", "x"),
		cmd("LMPOP", "1", "l", "LEFT", "COUNT", "1", "COUNT", "1"), cmd("LMPOP", "1", "l", "LEFT", "FOO"),
		cmd("LMPOP", "1", "l"), cmd("LMPOP", "1"),
		cmd("RPUSH", "l4", "1", "2", "3"), cmd("MULTI"), cmd("LMPOP", "1", "l4", "RIGHT", "COUNT", "2"), cmd("ZMPOP", "1", "l4", "MIN"),
		cmd("EXEC"), cmd("LRANGE", "l4", "0", "-1"),
	})
}

// WATCHed destinations and sources: a change aborts EXEC, a no-op does not.
func TestDiffZSetOpsWatch(t *testing.T) {
	var cmds [][]string
	cmds = append(cmds, cmd("ZADD", "z", "1", "a"), cmd("RPUSH", "l", "1", "2"))
	for _, w := range [][2][]string{
		{{"WATCH", "d"}, {"ZUNIONSTORE", "d", "1", "z"}},
		{{"WATCH", "d"}, {"ZINTERSTORE", "d", "1", "nokey"}},
		{{"WATCH", "e"}, {"ZINTERSTORE", "e", "1", "nokey"}},
		{{"WATCH", "s"}, {"SORT", "l", "STORE", "s"}},
		{{"WATCH", "s"}, {"SORT", "nokey", "STORE", "s"}},
		{{"WATCH", "s"}, {"SORT", "nokey", "STORE", "s"}},
		{{"WATCH", "l"}, {"SORT", "l"}},
		{{"WATCH", "l"}, {"LMPOP", "1", "l", "LEFT"}},
		{{"WATCH", "z"}, {"ZMPOP", "1", "z", "MAX"}},
		{{"WATCH", "z"}, {"ZMPOP", "1", "z", "MAX"}},
	} {
		cmds = append(cmds, cmd(w[0]...), cmd("MULTI"), cmd("PING"), conn2(w[1]...), cmd("EXEC"))
	}
	diff(t, cmds)
}

// TestMPopPropagation checks that ZMPOP/LMPOP are logged as ZPOPMIN/
// ZPOPMAX/LPOP/RPOP key count, with count capped at the length.
func TestMPopPropagation(t *testing.T) {
	d := newDSServer(t, nil)
	d.do("ZADD", "z", "1", "a", "2", "b", "3", "c")
	d.do("RPUSH", "l", "a", "b", "c")
	d.ops()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"ZMPOP", "2", "nokey", "z", "MIN"}, []string{"ZPOPMIN z 1"}},
		{[]string{"ZMPOP", "1", "z", "MAX", "COUNT", "10"}, []string{"ZPOPMAX z 2"}},
		{[]string{"ZMPOP", "1", "z", "MAX"}, nil},
		{[]string{"LMPOP", "1", "l", "LEFT"}, []string{"LPOP l 1"}},
		{[]string{"LMPOP", "1", "l", "RIGHT", "COUNT", "7"}, []string{"RPOP l 2"}},
		{[]string{"LMPOP", "1", "l", "RIGHT"}, nil},
	} {
		d.do(tc.args...)
		got := d.ops()
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Fatalf("%q propagated %q, want %q", tc.args, got, tc.want)
		}
	}
	d.do("ZADD", "a", "1", "x")
	d.do("ZADD", "b", "2", "x", "3", "y")
	d.ops()
	d.expect(t, ":2\r\n", "ZUNIONSTORE", "d", "2", "a", "b")
	d.expect(t, ":0\r\n", "ZINTERSTORE", "e", "1", "nokey")
	d.expect(t, ":1\r\n", "ZDIFFSTORE", "d", "2", "b", "a")
	if got := strings.Join(d.ops(), "|"); got != "ZUNIONSTORE d 2 a b|ZDIFFSTORE d 2 b a" {
		t.Fatalf("store ops propagated %q", got)
	}
}

// TestDiffZSetOpsRandom runs seeded random set algebra over zsets and sets
// of both encodings.
func TestDiffZSetOpsRandom(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x2e70))
			p := newDiffPair(t)
			keys := []string{"z0", "z1", "z2", "z3", "s0", "s1", "nokey"}
			member := func() string {
				if r.IntN(2) == 0 {
					return strconv.Itoa(r.IntN(25))
				}
				return "m" + strconv.Itoa(r.IntN(25))
			}
			score := func() string {
				return []string{"0", "1", "-1", "2.5", "-0.125", "100", "inf", "-inf", "3", "7", "1e3"}[r.IntN(11)]
			}
			var cmds [][]string
			for i := 0; i < 600; i++ {
				switch r.IntN(10) {
				case 0, 1, 2:
					k := keys[r.IntN(4)]
					cmds = append(cmds, cmd("ZADD", k, score(), member(), score(), member()))
				case 3:
					k := keys[4+r.IntN(2)]
					cmds = append(cmds, cmd("SADD", k, member(), member()))
				case 4:
					cmds = append(cmds, cmd([]string{"ZREM", "SREM"}[r.IntN(2)], keys[r.IntN(6)], member()))
				default:
					n := 1 + r.IntN(3)
					ops := []string{"ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZINTERCARD"}
					op := ops[r.IntN(len(ops))]
					a := []string{op}
					store := strings.HasSuffix(op, "STORE")
					if store {
						a = append(a, keys[r.IntN(4)])
					}
					a = append(a, strconv.Itoa(n))
					for j := 0; j < n; j++ {
						a = append(a, keys[r.IntN(len(keys))])
					}
					if op != "ZDIFF" && op != "ZDIFFSTORE" && op != "ZINTERCARD" {
						if r.IntN(2) == 0 {
							a = append(a, "WEIGHTS")
							for j := 0; j < n; j++ {
								a = append(a, []string{"1", "2", "-1", "0", "0.5"}[r.IntN(5)])
							}
						}
						if r.IntN(2) == 0 {
							a = append(a, "AGGREGATE", []string{"SUM", "MIN", "MAX"}[r.IntN(3)])
						}
					}
					if op == "ZINTERCARD" && r.IntN(2) == 0 {
						a = append(a, "LIMIT", strconv.Itoa(r.IntN(4)))
					}
					if !store && op != "ZINTERCARD" && r.IntN(2) == 0 {
						a = append(a, "WITHSCORES")
					}
					cmds = append(cmds, cmd(a...))
					if store {
						cmds = append(cmds, cmd("ZRANGE", a[1], "0", "-1", "WITHSCORES"))
					}
				}
			}
			p.run(cmds)
			p.checkDigest()
		})
	}
}
