package server

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Seeded random command sequences against real Redis. Every command has a
// deterministic reply (no SPOP/SRANDMEMBER/RANDOMKEY on several keys);
// replies whose order depends on hash-table layout are compared sorted.
// TTLs are long, so timing cannot change a reply. Fixed seeds: a failure
// prints the seed and the command, and can be replayed.

type randGen struct {
	r   *rand.Rand
	has func(string) bool
}

func (g *randGen) key(prefix string) string { return prefix + strconv.Itoa(g.r.IntN(6)) }

func (g *randGen) anyKey() string {
	return g.key([]string{"s", "l", "h", "t", "z", "x"}[g.r.IntN(6)])
}

func (g *randGen) val() string {
	switch g.r.IntN(6) {
	case 0:
		return strconv.Itoa(g.r.IntN(200) - 100)
	case 1:
		return strings.Repeat("v", g.r.IntN(80)) // crosses listpack value limits
	case 2:
		return ""
	default:
		return "v" + strconv.Itoa(g.r.IntN(30))
	}
}

func (g *randGen) member() string {
	if g.r.IntN(2) == 0 {
		return strconv.Itoa(g.r.IntN(40)) // intset-friendly
	}
	return "m" + strconv.Itoa(g.r.IntN(40))
}

func (g *randGen) score() string {
	return []string{"0", "1", "-1", "2.5", "-0.125", "100", "inf", "-inf", "3", "1e3"}[g.r.IntN(10)]
}

func (g *randGen) idx() string { return strconv.Itoa(g.r.IntN(14) - 7) }

// next returns one command (with diff markers where needed).
func (g *randGen) next() []string {
	r := g.r
	for {
		switch r.IntN(8) {
		case 0: // strings
			k := g.key("s")
			switch r.IntN(12) {
			case 0:
				return cmd("SET", k, g.val())
			case 1:
				return cmd("GET", k)
			case 2:
				return cmd("APPEND", k, g.val())
			case 3:
				return cmd("INCRBY", k, strconv.Itoa(r.IntN(20)-10))
			case 4:
				return cmd("INCRBYFLOAT", k, []string{"1.5", "-0.25", "2", "0.1", "-3.3e-2", "1e10"}[r.IntN(6)])
			case 5:
				return cmd("SETRANGE", k, strconv.Itoa(r.IntN(10)), g.val())
			case 6:
				return cmd("GETRANGE", k, g.idx(), g.idx())
			case 7:
				return cmd("SET", k, g.val(), []string{"NX", "XX", "GET", "KEEPTTL", "EX"}[r.IntN(5)], "100000")
			case 8:
				return cmd("MSET", k, g.val(), g.key("s"), g.val())
			case 9:
				return cmd("GETEX", k, "PERSIST")
			case 10:
				return cmd("STRLEN", k)
			case 11:
				return cmd("GETDEL", k)
			}
		case 1: // keys
			switch r.IntN(10) {
			case 0:
				return cmd("DEL", g.anyKey(), g.anyKey())
			case 1:
				return cmd("EXISTS", g.anyKey(), g.anyKey())
			case 2:
				return cmd("TYPE", g.anyKey())
			case 3:
				return cmd("RENAME", g.anyKey(), g.anyKey())
			case 4:
				return cmd("EXPIRE", g.anyKey(), strconv.Itoa(1000+r.IntN(100000)), []string{"NX", "XX", "GT", "LT"}[r.IntN(4)])
			case 5:
				return cmd("TTL", g.anyKey())
			case 6:
				return cmd("PERSIST", g.anyKey())
			case 7:
				return cmd("OBJECT", "ENCODING", g.anyKey())
			case 8:
				return cmd("COPY", g.anyKey(), g.anyKey(), "REPLACE")
			case 9:
				if r.IntN(4) == 0 {
					return cmd("MOVE", g.anyKey(), "1")
				}
				return sorted("KEYS", "*")
			}
		case 2: // lists
			if !g.has("rpush") {
				continue
			}
			k := g.key("l")
			switch r.IntN(12) {
			case 0:
				return cmd("RPUSH", k, g.val(), g.val())
			case 1:
				return cmd("LPUSH", k, g.val())
			case 2:
				return cmd("LPOP", k)
			case 3:
				return cmd("RPOP", k, strconv.Itoa(r.IntN(3)))
			case 4:
				return cmd("LRANGE", k, g.idx(), g.idx())
			case 5:
				return cmd("LINDEX", k, g.idx())
			case 6:
				return cmd("LSET", k, g.idx(), g.val())
			case 7:
				return cmd("LREM", k, g.idx(), g.val())
			case 8:
				return cmd("LTRIM", k, g.idx(), g.idx())
			case 9:
				return cmd("LINSERT", k, []string{"BEFORE", "AFTER"}[r.IntN(2)], g.val(), g.val())
			case 10:
				return cmd("LMOVE", k, g.key("l"), []string{"LEFT", "RIGHT"}[r.IntN(2)], []string{"LEFT", "RIGHT"}[r.IntN(2)])
			case 11:
				return cmd("LPOS", k, g.val(), "RANK", []string{"1", "-1", "2"}[r.IntN(3)], "COUNT", "0")
			}
		case 3: // hashes
			if !g.has("hset") {
				continue
			}
			k := g.key("h")
			f := "f" + strconv.Itoa(r.IntN(20))
			switch r.IntN(10) {
			case 0, 1:
				return cmd("HSET", k, f, g.val(), "f"+strconv.Itoa(r.IntN(20)), g.val())
			case 2:
				return cmd("HGET", k, f)
			case 3:
				return cmd("HDEL", k, f)
			case 4:
				return pairs("HGETALL", k)
			case 5:
				return sorted("HKEYS", k)
			case 6:
				return cmd("HINCRBY", k, f, strconv.Itoa(r.IntN(10)))
			case 7:
				return cmd("HLEN", k)
			case 8:
				return cmd("HSETNX", k, f, g.val())
			case 9:
				return cmd("HMGET", k, f, "f1")
			}
		case 4: // sets
			if !g.has("sadd") {
				continue
			}
			k := g.key("t")
			switch r.IntN(10) {
			case 0, 1:
				return cmd("SADD", k, g.member(), g.member())
			case 2:
				return cmd("SREM", k, g.member())
			case 3:
				return sorted("SMEMBERS", k)
			case 4:
				return cmd("SISMEMBER", k, g.member())
			case 5:
				return cmd("SCARD", k)
			case 6:
				return sorted("SINTER", k, g.key("t"))
			case 7:
				return sorted("SUNION", k, g.key("t"))
			case 8:
				return cmd("SDIFFSTORE", g.key("t"), k, g.key("t"))
			case 9:
				return cmd("SMOVE", k, g.key("t"), g.member())
			}
		case 5: // sorted sets
			if !g.has("zadd") {
				continue
			}
			k := g.key("z")
			switch r.IntN(10) {
			case 0, 1:
				return cmd("ZADD", k, g.score(), g.member(), g.score(), g.member())
			case 2:
				return cmd("ZINCRBY", k, []string{"1", "-2", "0.5"}[r.IntN(3)], g.member())
			case 3:
				return cmd("ZREM", k, g.member())
			case 4:
				return cmd("ZRANGE", k, g.idx(), g.idx(), "WITHSCORES")
			case 5:
				return cmd("ZRANGEBYSCORE", k, "-inf", g.score(), "WITHSCORES")
			case 6:
				return cmd("ZSCORE", k, g.member())
			case 7:
				return cmd("ZRANK", k, g.member())
			case 8:
				return cmd("ZPOPMIN", k)
			case 9:
				return cmd("ZREMRANGEBYRANK", k, g.idx(), g.idx())
			}
		case 6: // wrong-type probes and errors
			return cmd([]string{"GET", "LLEN", "HLEN", "SCARD", "ZCARD"}[r.IntN(5)], g.anyKey())
		case 7:
			return cmd("DBSIZE")
		}
	}
}

func TestDiffRandom(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6} {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Logf("seed %d", seed)
			p := newDiffPair(t)
			g := &randGen{r: rand.New(rand.NewPCG(seed, 0x5eed)), has: p.hasCommand}
			const n = 2000
			for i := 0; i < n; {
				if g.r.IntN(40) == 0 { // a MULTI block, sometimes aborted
					block := [][]string{cmd("MULTI")}
					for j := g.r.IntN(5); j >= 0; j-- {
						block = append(block, g.next())
					}
					switch g.r.IntN(6) {
					case 0:
						block = append(block, cmd("DISCARD"))
					case 1:
						block = append(block, cmd("NOSUCHCMD"), cmd("EXEC"))
					default:
						block = append(block, cmd("EXEC"))
					}
					for _, c := range block {
						p.step(i, c)
						i++
					}
					continue
				}
				p.step(i, g.next())
				i++
			}
			p.checkDigest()
		})
	}
}
