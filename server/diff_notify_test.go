package server

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/pubsub"
)

// Keyspace notifications against real Redis: a subscriber on each server
// PSUBSCRIBEs __key*__:*; after every command a marker is published (from
// a third connection) and the subscriber reads up to it, so each command's
// events are compared as one ordered sequence, byte for byte, with no
// timing involved.

const notifyMarker = "__keynotify__:marker"

// allEvents is every class including n (new) and m (keymiss). CONFIG GET
// prints it as "AKEm" (Redis hides n behind A), yet n stays on.
const allEvents = "KEAmn"

type notifyPair struct {
	*diffPair
	osub, rsub *respConn // subscribers
	octl, rctl *respConn // marker publishers
}

func newNotifyPair(t *testing.T, classes string, args ...string) *notifyPair {
	t.Helper()
	p := &notifyPair{diffPair: newDiffPair(t, args...)}
	p.osub, p.rsub = dial(t, p.ours.addr), dial(t, p.real.addr)
	p.octl, p.rctl = dial(t, p.ours.addr), dial(t, p.real.addr)
	for _, c := range []*respConn{p.osub, p.rsub} {
		if r := c.do("PSUBSCRIBE", "__key*__:*"); !strings.Contains(r, "psubscribe") {
			t.Fatalf("psubscribe: %q", r)
		}
	}
	p.setClasses(classes)
	if testing.Verbose() {
		t.Logf("ours %s, redis %s", p.ours.addr, p.real.addr)
	}
	return p
}

func (p *notifyPair) setClasses(classes string) {
	p.t.Helper()
	for _, c := range []*respConn{p.octl, p.rctl} {
		if r := c.do("CONFIG", "SET", "notify-keyspace-events", classes); r != "+OK\r\n" {
			p.t.Fatalf("config set notify-keyspace-events %q: %q", classes, r)
		}
	}
}

// events publishes the marker through ctl and returns every message sub
// received before it.
func (p *notifyPair) events(ctl, sub *respConn) []string {
	p.t.Helper()
	if r := ctl.do("PUBLISH", notifyMarker, "m"); r != ":1\r\n" {
		p.t.Fatalf("marker publish: %q", r)
	}
	var out []string
	for {
		sub.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		raw, err := readRaw(sub.br)
		if err != nil {
			p.t.Fatalf("subscriber %s: %v (got %q so far)", sub.nc.RemoteAddr(), err, out)
		}
		_, el, ok := splitRaw(raw)
		if !ok || len(el) != 4 {
			p.t.Fatalf("unexpected push %q", raw)
		}
		if bulkText(el[2]) == notifyMarker {
			return out
		}
		out = append(out, bulkText(el[2])+" "+bulkText(el[3]))
	}
}

// run executes cmds (diff markers allowed) and compares the replies and
// the events each command sent.
func (p *notifyPair) run(cmds [][]string) {
	p.t.Helper()
	for i, c := range cmds {
		if testing.Verbose() {
			p.t.Logf("#%d %q", i, c)
		}
		p.step(i, c)
		got, want := p.events(p.octl, p.osub), p.events(p.rctl, p.rsub)
		if os.Getenv("NOTIFY_SHOW") != "" {
			p.t.Logf("#%d %q -> %q", i, c, want)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			p.mismatch("#%d %q events:\n ours:  %q\n redis: %q", i, c, got, want)
		}
	}
}

// notifyDiff runs cmds with notify-keyspace-events set to classes and ends
// with a digest check.
func notifyDiff(t *testing.T, classes string, cmds [][]string) {
	t.Helper()
	p := newNotifyPair(t, classes)
	p.run(cmds)
	p.checkDigest()
}

func TestDiffNotifyStrings(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("SET", "k", "v"), cmd("SET", "k", "v2", "EX", "1000"), cmd("SET", "k", "v3", "KEEPTTL"),
		cmd("SET", "k", "v4", "NX"), cmd("SET", "k", "v4", "XX", "PX", "100000"), cmd("SET", "n", "v", "XX"),
		cmd("SET", "k", "v5", "GET"), cmd("SET", "miss", "v", "GET"), cmd("SET", "k", "v", "EXAT", "1"), cmd("GET", "k"),
		cmd("SETNX", "a", "1"), cmd("SETNX", "a", "2"), cmd("SETEX", "b", "100", "x"), cmd("PSETEX", "c", "100000", "x"),
		cmd("GETSET", "a", "9"), cmd("GETSET", "new", "9"), cmd("GETDEL", "new"), cmd("GETDEL", "new"),
		cmd("GETEX", "a"), cmd("GETEX", "a", "EX", "100"), cmd("GETEX", "a", "PERSIST"), cmd("GETEX", "a", "PERSIST"),
		cmd("GETEX", "a", "PXAT", "1"), cmd("GETEX", "a", "EX", "10"),
		cmd("MSET", "m1", "1", "m2", "2", "m1", "3"), cmd("MSETNX", "m3", "1", "m4", "2"), cmd("MSETNX", "m3", "1", "m5", "2"),
		cmd("MGET", "m1", "nope", "m3", "nope2"),
		cmd("APPEND", "ap", "x"), cmd("APPEND", "ap", "y"), cmd("APPEND", "ap", ""),
		cmd("SETRANGE", "sr", "0", ""), cmd("SETRANGE", "sr", "2", "ab"), cmd("SETRANGE", "sr", "0", ""), cmd("SETRANGE", "sr", "1", "z"),
		cmd("INCR", "i"), cmd("DECR", "i"), cmd("INCRBY", "i", "5"), cmd("DECRBY", "i", "2"), cmd("INCRBYFLOAT", "i", "1.5"),
		cmd("INCR", "ap"), cmd("INCRBYFLOAT", "ap", "1"),
		cmd("STRLEN", "nope"), cmd("GETRANGE", "nope", "0", "1"), cmd("GET", "nope"), cmd("LCS", "ap", "nope"),
		cmd("STRLEN", "ap"),
	})
}

func TestDiffNotifyKeys(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("SET", "a", "1"), cmd("SET", "b", "2"), cmd("SET", "c", "3"),
		cmd("DEL", "a", "nope", "b", "a"), cmd("UNLINK", "c", "nope"), cmd("DEL", "nope"),
		cmd("SET", "a", "1"), cmd("EXISTS", "a", "nope"), cmd("TYPE", "nope"), cmd("TYPE", "a"), cmd("TOUCH", "a", "nope"),
		cmd("TTL", "nope"), cmd("PTTL", "a"), cmd("EXPIRETIME", "nope"), cmd("PEXPIRETIME", "nope"),
		cmd("OBJECT", "ENCODING", "nope"), cmd("OBJECT", "ENCODING", "a"), cmd("MEMORY", "USAGE", "nope"),
		cmd("DUMP", "nope"), cmd("RANDOMKEY"), cmd("KEYS", "*"), cmd("DBSIZE"),
		cmd("EXPIRE", "a", "100"), cmd("EXPIRE", "nope", "100"), cmd("PEXPIRE", "a", "100000", "NX"), cmd("EXPIRE", "a", "200", "GT"), cmd("EXPIRE", "a", "50", "GT"),
		cmd("EXPIREAT", "a", "99999999999"), cmd("PEXPIREAT", "a", "99999999999000"), cmd("PERSIST", "a"), cmd("PERSIST", "a"),
		cmd("PERSIST", "nope"), cmd("EXPIRE", "a", "-1"), cmd("EXISTS", "a"),
		cmd("SET", "a", "1"), cmd("RENAME", "a", "b"), cmd("RENAME", "b", "b"), cmd("RENAME", "nope", "x"),
		cmd("SET", "c", "3"), cmd("RENAME", "b", "c"), cmd("RENAMENX", "c", "d"), cmd("SET", "e", "1"), cmd("RENAMENX", "d", "e"),
		cmd("EXPIRE", "d", "1000"), cmd("RENAME", "d", "f"),
		cmd("MOVE", "f", "1"), cmd("MOVE", "f", "1"), cmd("MOVE", "e", "1"), cmd("SELECT", "1"), cmd("SET", "e", "x"),
		cmd("MOVE", "e", "0"), cmd("MOVE", "f", "0"), cmd("SELECT", "0"),
		cmd("COPY", "f", "g"), cmd("COPY", "f", "g"), cmd("COPY", "f", "g", "REPLACE"), cmd("COPY", "nope", "g"),
		cmd("COPY", "f", "g", "DB", "3"), cmd("COPY", "nope", "g", "DB", "3"),
		cmd("SWAPDB", "0", "3"), cmd("FLUSHDB"), cmd("SWAPDB", "0", "3"), cmd("FLUSHALL"),
		cmd("RPUSH", "l", "1", "2"), cmd("RENAME", "l", "l2"), cmd("SELECT", "4"), cmd("SET", "x", "1"), cmd("DEL", "x"), cmd("SELECT", "0"),
		cmd("SET", "key:1", "x"), cmd("DEBUG", "POPULATE", "3"), cmd("DEBUG", "POPULATE", "2", "p", "5"),
		cmd("DEBUG", "OBJECT", "nope"), cmd("SCAN", "0", "MATCH", "nope"),
	})
}

func TestDiffNotifyLists(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("LPUSH", "l", "a", "b"), cmd("RPUSH", "l", "c"), cmd("LPUSHX", "nope", "a"), cmd("RPUSHX", "l", "d", "e"),
		cmd("LPUSHX", "l", "z"), cmd("LINSERT", "l", "BEFORE", "c", "x"), cmd("LINSERT", "l", "AFTER", "nope", "x"),
		cmd("LINSERT", "nope", "AFTER", "a", "x"), cmd("LSET", "l", "0", "y"), cmd("LSET", "nope", "0", "y"),
		cmd("LRANGE", "nope", "0", "-1"), cmd("LLEN", "nope"), cmd("LINDEX", "nope", "0"), cmd("LPOS", "nope", "a"),
		cmd("LRANGE", "l", "0", "-1"),
		cmd("LPOP", "l"), cmd("RPOP", "l", "2"), cmd("LPOP", "l", "0"), cmd("LPOP", "nope"), cmd("RPOP", "nope", "2"),
		cmd("LREM", "l", "0", "nope"), cmd("LREM", "l", "1", "b"), cmd("LTRIM", "l", "0", "-1"), cmd("LTRIM", "nope", "0", "1"),
		cmd("LRANGE", "l", "0", "-1"), cmd("LTRIM", "l", "5", "10"), cmd("EXISTS", "l"),
		cmd("RPUSH", "l", "1", "2", "3"), cmd("RPOPLPUSH", "l", "l2"), cmd("LMOVE", "l", "l2", "LEFT", "RIGHT"),
		cmd("LMOVE", "l", "l", "LEFT", "RIGHT"), cmd("LMOVE", "l", "l2", "RIGHT", "LEFT"), cmd("LMOVE", "nope", "l2", "LEFT", "LEFT"),
		cmd("RPOPLPUSH", "l2", "l2"), cmd("SET", "s", "x"), cmd("RPOPLPUSH", "l2", "s"),
		cmd("LMPOP", "2", "nope", "l2", "LEFT"), cmd("LMPOP", "1", "l2", "RIGHT", "COUNT", "5"), cmd("LMPOP", "1", "nope", "LEFT"),
		cmd("RPUSH", "l", "1", "2"), cmd("LREM", "l", "0", "1"), cmd("LREM", "l", "-1", "2"), cmd("EXISTS", "l"),
		cmd("RPUSH", "l", "1"), cmd("LPOP", "l", "5"), cmd("BRPOP", "nope", "0.01"),
		cmd("RPUSH", "l", "1"), cmd("BLMOVE", "l", "l3", "LEFT", "LEFT", "0"), cmd("BRPOPLPUSH", "l3", "l4", "0"),
		cmd("BLMPOP", "0", "1", "l4", "LEFT"),
	})
}

func TestDiffNotifyBlockingListPop(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("RPUSH", "l", "1", "2", "3"), cmd("BLPOP", "nope", "l", "0"), cmd("BRPOP", "l", "0"), cmd("BLPOP", "l", "0"),
		cmd("EXISTS", "l"),
	})
}

func TestDiffNotifyHashes(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("HSET", "h", "a", "1", "b", "2"), cmd("HSET", "h", "a", "1"), cmd("HMSET", "h", "c", "3"),
		cmd("HSETNX", "h", "a", "9"), cmd("HSETNX", "h", "d", "4"), cmd("HSETNX", "h2", "a", "1"),
		cmd("HINCRBY", "h", "a", "5"), cmd("HINCRBY", "h", "x", "1"), cmd("HINCRBYFLOAT", "h", "a", "1.5"),
		cmd("HINCRBY", "h", "a", "1"), cmd("HINCRBY", "h3", "a", "9223372036854775807"), cmd("HINCRBY", "h3", "a", "1"),
		cmd("HINCRBYFLOAT", "h4", "f", "1"),
		cmd("HGET", "nope", "a"), cmd("HMGET", "nope", "a"), cmd("HGETALL", "nope"), cmd("HKEYS", "nope"), cmd("HVALS", "nope"),
		cmd("HLEN", "nope"), cmd("HEXISTS", "nope", "a"), cmd("HSTRLEN", "nope", "a"), cmd("HRANDFIELD", "nope"),
		cmd("HSCAN", "nope", "0"), cmd("HGET", "h", "a"),
		cmd("HDEL", "h", "nope"), cmd("HDEL", "h", "a", "b"), cmd("HDEL", "h", "c", "d", "x", "zz"), cmd("HDEL", "nope", "a"),
		cmd("EXISTS", "h"),
	})
}

func TestDiffNotifySets(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("SADD", "s", "a", "b", "c"), cmd("SADD", "s", "a"), cmd("SADD", "s2", "b", "x"),
		cmd("SREM", "s2", "nope"), cmd("SREM", "s2", "x"), cmd("SREM", "nope", "a"), cmd("SREM", "s2", "b", "q"),
		sorted("SMEMBERS", "nope"), cmd("SISMEMBER", "nope", "a"), cmd("SMISMEMBER", "nope", "a"), cmd("SCARD", "nope"),
		cmd("SRANDMEMBER", "nope"), cmd("SRANDMEMBER", "nope", "2"), cmd("SSCAN", "nope", "0"),
		cmd("SINTER", "s", "nope"), sorted("SUNION", "nope", "s"), sorted("SDIFF", "nope", "s"), cmd("SINTERCARD", "2", "s", "nope"),
		cmd("SADD", "t", "b", "c", "d"),
		cmd("SINTERSTORE", "d1", "s", "t"), cmd("SINTERSTORE", "d1", "s", "nope"), cmd("SINTERSTORE", "d1", "s", "nope"),
		cmd("SUNIONSTORE", "d2", "s", "t"), cmd("SUNIONSTORE", "d2", "nope"), cmd("SDIFFSTORE", "d3", "s", "t"),
		cmd("SDIFFSTORE", "d3", "s", "s"), cmd("SINTERSTORE", "d4", "s", "t"), cmd("SINTERSTORE", "d4", "s", "t"),
		cmd("SMOVE", "s", "t", "a"), cmd("SMOVE", "s", "t", "b"), cmd("SMOVE", "s", "t", "zz"), cmd("SMOVE", "t", "t", "a"),
		cmd("SMOVE", "s", "u", "c"), cmd("SMOVE", "nope", "u", "c"), cmd("EXISTS", "s"),
		cmd("SADD", "p", "1"), cmd("SPOP", "p"), cmd("SPOP", "nope"), cmd("SADD", "p", "1", "2", "3"),
		cmd("SPOP", "p", "0"), cmd("SPOP", "nope", "2"), cmd("SCARD", "p"), sorted("SPOP", "p", "5"), cmd("EXISTS", "p"),
		cmd("SADD", "p", "1", "2", "3"), nocmp("SPOP", "p", "2"), nocmp("SPOP", "p"), cmd("EXISTS", "p"),
	})
}

func TestDiffNotifyZsets(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), cmd("ZADD", "z", "1", "a"), cmd("ZADD", "z", "5", "a"),
		cmd("ZADD", "z", "XX", "1", "new"), cmd("ZADD", "nz", "XX", "1", "a"), cmd("ZADD", "z", "NX", "9", "a"),
		cmd("ZADD", "z", "INCR", "2", "a"), cmd("ZINCRBY", "z", "1", "b"), cmd("ZINCRBY", "z2", "1", "b"),
		cmd("ZADD", "z", "GT", "CH", "0", "a"), cmd("ZADD", "z", "NX", "INCR", "1", "a"),
		cmd("ZSCORE", "nope", "a"), cmd("ZMSCORE", "nope", "a"), cmd("ZCARD", "nope"), cmd("ZCOUNT", "nope", "0", "1"),
		cmd("ZLEXCOUNT", "nope", "-", "+"), cmd("ZRANK", "nope", "a"), cmd("ZREVRANK", "nope", "a"),
		cmd("ZRANGE", "nope", "0", "-1"), cmd("ZRANGEBYSCORE", "nope", "0", "1"), cmd("ZREVRANGE", "nope", "0", "1"),
		cmd("ZRANGEBYLEX", "nope", "-", "+"), cmd("ZRANDMEMBER", "nope"), cmd("ZSCAN", "nope", "0"),
		cmd("ZUNION", "2", "z", "nope"), cmd("ZINTER", "2", "z", "nope"), cmd("ZDIFF", "2", "nope", "z"), cmd("ZINTERCARD", "2", "z", "nope"),
		cmd("ZREM", "z", "nope"), cmd("ZREM", "z", "new", "c"), cmd("ZREM", "nope", "a"),
		cmd("ZADD", "y", "1", "a", "2", "x"),
		cmd("ZUNIONSTORE", "d", "2", "z", "y"), cmd("ZINTERSTORE", "d", "2", "z", "y"), cmd("ZDIFFSTORE", "d", "2", "z", "y"),
		cmd("ZINTERSTORE", "d", "2", "z", "nope"), cmd("ZINTERSTORE", "d", "2", "z", "nope"), cmd("ZUNIONSTORE", "d2", "1", "nope"),
		cmd("SADD", "st", "a"), cmd("ZUNIONSTORE", "d3", "2", "st", "z"),
		cmd("ZRANGESTORE", "r", "z", "0", "-1"), cmd("ZRANGESTORE", "r", "z", "5", "10"), cmd("ZRANGESTORE", "r", "nope", "0", "1"),
		cmd("ZRANGESTORE", "r", "z", "0", "0"),
		cmd("ZPOPMIN", "d3"), cmd("ZPOPMAX", "d3", "0"), cmd("ZPOPMAX", "d3", "10"), cmd("ZPOPMIN", "nope"),
		cmd("ZADD", "q", "1", "a", "2", "b", "3", "c", "4", "d"),
		cmd("ZREMRANGEBYRANK", "q", "5", "6"), cmd("ZREMRANGEBYRANK", "q", "0", "0"), cmd("ZREMRANGEBYSCORE", "q", "2", "2"),
		cmd("ZREMRANGEBYLEX", "q", "[c", "[c"), cmd("ZREMRANGEBYSCORE", "nope", "0", "1"), cmd("ZREMRANGEBYLEX", "q", "-", "+"),
		cmd("ZADD", "q", "1", "a", "2", "b", "3", "c"), cmd("ZMPOP", "2", "nope", "q", "MIN"), cmd("ZMPOP", "1", "q", "MAX", "COUNT", "9"),
		cmd("ZMPOP", "1", "nope", "MIN"), cmd("ZADD", "q", "1", "a", "2", "b"),
		cmd("BZPOPMIN", "nope", "q", "0"), cmd("BZPOPMAX", "q", "0"), cmd("BZPOPMIN", "nope", "0.01"),
		cmd("ZADD", "q", "1", "a", "2", "b"), cmd("BZMPOP", "0", "1", "q", "MAX", "COUNT", "2"),
	})
}

func TestDiffNotifyBitsHLLSortDump(t *testing.T) {
	p := newNotifyPair(t, allEvents)
	_, rc := p.conn(0)
	p.run([][]string{cmd("SET", "src", "hello")})
	dump := bulkText(rc.do("DUMP", "src"))
	p.run([][]string{
		cmd("SETBIT", "b", "7", "1"), cmd("SETBIT", "b", "7", "1"), cmd("SETBIT", "b", "7", "0"), cmd("SETBIT", "b", "100", "0"),
		cmd("GETBIT", "nope", "1"), cmd("BITCOUNT", "nope"), cmd("BITPOS", "nope", "1"),
		cmd("BITFIELD", "bf", "SET", "u8", "0", "5"), cmd("BITFIELD", "bf", "SET", "u8", "0", "5"), cmd("BITFIELD", "bf", "GET", "u8", "0"),
		cmd("BITFIELD", "bf", "INCRBY", "u8", "0", "1"), cmd("BITFIELD", "nope", "GET", "u8", "0"), cmd("BITFIELD_RO", "nope", "GET", "u8", "0"),
		cmd("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "100"),
		cmd("BITOP", "AND", "dst", "b", "bf"), cmd("BITOP", "OR", "dst", "nope", "nope2"), cmd("BITOP", "OR", "dst", "nope"),
		cmd("BITOP", "NOT", "dst2", "b"),
		cmd("PFADD", "h", "a", "b"), cmd("PFADD", "h", "a"), cmd("PFADD", "h"), cmd("PFADD", "h2"), cmd("PFCOUNT", "h"),
		cmd("PFCOUNT", "nope"), cmd("PFCOUNT", "h", "nope"), cmd("PFMERGE", "h3", "h", "nope"), cmd("PFMERGE", "h3"),
		cmd("RPUSH", "l", "3", "1", "2"), cmd("SET", "w_1", "9"), cmd("SET", "w_2", "1"),
		cmd("SORT", "l"), cmd("SORT", "nope"), cmd("SORT", "l", "BY", "w_*"), cmd("SORT", "l", "BY", "w_*", "GET", "#", "GET", "w_*"),
		cmd("SORT", "l", "STORE", "out"), cmd("SORT", "nope", "STORE", "out"), cmd("SORT", "nope", "STORE", "out"),
		cmd("SORT_RO", "l", "BY", "nosort"), cmd("SORT", "l", "BY", "nosort", "STORE", "out2"),
		cmd("RESTORE", "r", "0", dump), cmd("RESTORE", "r", "0", dump), cmd("RESTORE", "r", "0", dump, "REPLACE"),
		cmd("RESTORE", "r2", "100000", dump), cmd("RESTORE", "r", "1", dump, "REPLACE", "ABSTTL"),
		cmd("RESTORE", "r3", "1", dump, "ABSTTL"), cmd("EXISTS", "r", "r3"), cmd("DUMP", "nope"), cmd("DUMP", "r2"),
		cmd("DEBUG", "RELOAD"), cmd("DBSIZE"),
	})
	p.checkDigest()
}

func TestDiffNotifyExpired(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		// Lazy expiry: a read sends expired then keymiss, a write expired
		// then its own events.
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SET", "k", "v", "PX", "30"), cmd("SET", "k2", "v", "PX", "30"), cmd("RPUSH", "l", "a"), cmd("PEXPIRE", "l", "30"),
		cmd("HSET", "h", "f", "v"), cmd("PEXPIRE", "h", "30"), cmd("SET", "t", "v", "PX", "30"),
		pause(80),
		cmd("GET", "k"), cmd("SET", "k2", "x"), cmd("LPUSH", "l", "b"), cmd("EXISTS", "h"), cmd("TTL", "t"),
		// Active expiry.
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
		cmd("SET", "a", "v", "PX", "30"),
		pause(400),
		cmd("DBSIZE"),
		cmd("SADD", "s", "m"), cmd("PEXPIRE", "s", "30"),
		pause(400),
		cmd("EXISTS", "s"),
	})
}

func TestDiffNotifyClassesAndDBs(t *testing.T) {
	p := newNotifyPair(t, "KEA")
	p.run([][]string{cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0")}) // x expires lazily, at GET
	steps := func() [][]string {
		return [][]string{
			cmd("SET", "s", "1"), cmd("INCR", "s"), cmd("GET", "nope"), cmd("RPUSH", "l", "a"), cmd("LPOP", "l"),
			cmd("SADD", "st", "a"), cmd("HSET", "h", "f", "v"), cmd("ZADD", "z", "1", "m"), cmd("EXPIRE", "s", "100"),
			cmd("DEL", "st", "h", "z", "s"), cmd("SET", "x", "1", "PX", "1"), pause(20), cmd("GET", "x"),
		}
	}
	for _, classes := range []string{"KEA", "K", "E", "Kg", "E$", "Kl", "Es", "KEh", "Ez", "Kx", "KEm", "Kn", "gK$E", "Exn", "KA", "g$lshzxetd", ""} {
		p.setClasses(classes)
		p.run(steps())
	}
	p.setClasses(allEvents)
	p.run([][]string{cmd("SELECT", "5"), cmd("SET", "k", "v"), cmd("GET", "nope"), cmd("MOVE", "k", "7"), cmd("SELECT", "0")})
	p.run([][]string{
		cmd("MULTI"), cmd("SET", "a", "1"), cmd("RPUSH", "l", "x"), cmd("GET", "nope"), cmd("DEL", "a", "l"), cmd("EXEC"),
		cmd("EVAL", "redis.call('set', KEYS[1], 'v'); redis.call('get', 'nope'); return redis.call('del', KEYS[1])", "1", "k"),
		cmd("PUBLISH", "__keyspace@0__:fake", "hello"),
	})
	p.checkDigest()
}

func TestNotifyFastPathAndLoading(t *testing.T) {
	d := newDSServer(t, nil)
	s := d.s
	key := []byte("k")
	// Off: one integer test, no allocation (the first call loads the
	// cached flags).
	s.notify(notifyString, "set", key, 0)
	if n := testing.AllocsPerRun(100, func() { s.notify(notifyString, "set", key, 0) }); n != 0 {
		t.Fatalf("notify with notifications off allocates %v times", n)
	}
	if r := d.do("CONFIG", "SET", "notify-keyspace-events", "KEA"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	if s.notifyFlags&notifyString == 0 {
		t.Fatal("CONFIG SET did not take effect")
	}
	// On but nobody subscribed: still nothing built.
	if n := testing.AllocsPerRun(100, func() { s.notify(notifyString, "set", key, 0) }); n != 0 {
		t.Fatalf("notify without subscribers allocates %v times", n)
	}
	sub := newClient(s, nil, 2)
	sub.db = s.dbs[0]
	sub.authed = true
	s.pubsub.Subscribe(sub, &sub.subs, pubsub.Pattern, []byte("*"))
	s.notify(notifyString, "set", key, 0)
	if got := string(sub.pushQ.bytes()); !strings.Contains(got, "__keyspace@0__:k") || !strings.Contains(got, "__keyevent@0__:set") {
		t.Fatalf("pushed %q", got)
	}
	sub.pushQ.reset()
	s.notify(notifyNew, "new", key, 0) // n is not in A
	s.loading = true
	s.notify(notifyString, "set", key, 0)
	s.loading = false
	if !sub.pushQ.empty() {
		t.Fatalf("pushed %q (class off or while loading)", sub.pushQ.bytes())
	}
}

// TestDiffNotifyServedLater checks the events of blocked clients served by
// a later push (sent by the pushing command's execution unit).
func TestDiffNotifyServedLater(t *testing.T) {
	p := newNotifyPair(t, allEvents)
	ob, rb := dial(t, p.ours.addr), dial(t, p.real.addr)
	for _, tc := range []struct{ block, push []string }{
		{[]string{"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"}, []string{"RPUSH", "src", "a"}},
		{[]string{"BLMPOP", "0", "2", "x", "src", "RIGHT", "COUNT", "3"}, []string{"RPUSH", "src", "a", "b"}},
		{[]string{"BZPOPMIN", "z", "0"}, []string{"ZADD", "z", "1", "m"}},
		{[]string{"BZMPOP", "0", "1", "z", "MAX"}, []string{"ZADD", "z", "1", "m", "2", "n"}},
	} {
		ob.send(tc.block...)
		rb.send(tc.block...)
		// Wait until both clients are blocked.
		for _, c := range []*respConn{p.octl, p.rctl} {
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(c.do("INFO", "clients"), "blocked_clients:1") {
				if time.Now().After(deadline) {
					t.Fatalf("%v did not block", tc.block)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		p.run([][]string{tc.push})
		if got, want := ob.read(), rb.read(); got != want {
			t.Fatalf("%v reply: ours %q, redis %q", tc.block, got, want)
		}
		p.run([][]string{cmd("DEL", "dst", "src", "z")})
	}
	p.checkDigest()
}

// Streams: the t_stream*.go commands already call notify; this pins their
// events (xadd, xtrim, xdel, xgroup-*, xsetid, keymiss) to Redis's.
func TestDiffNotifyStreams(t *testing.T) {
	notifyDiff(t, allEvents, [][]string{
		cmd("XADD", "s", "1-1", "a", "1"), cmd("XADD", "s", "MAXLEN", "1", "2-1", "b", "2"), cmd("XADD", "nos", "NOMKSTREAM", "*", "a", "1"),
		cmd("XTRIM", "s", "MAXLEN", "0"), cmd("XTRIM", "s", "MAXLEN", "0"), cmd("XADD", "s", "5-1", "a", "1"), cmd("XDEL", "s", "5-1"), cmd("XDEL", "s", "9-9"),
		cmd("XGROUP", "CREATE", "s", "g", "$"), cmd("XGROUP", "CREATE", "s2", "g", "$", "MKSTREAM"), cmd("XGROUP", "SETID", "s", "g", "0"),
		cmd("XGROUP", "CREATECONSUMER", "s", "g", "c1"), cmd("XGROUP", "CREATECONSUMER", "s", "g", "c1"), cmd("XADD", "s", "6-1", "a", "1"),
		nocmp("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">"), cmd("XACK", "s", "g", "6-1"), nocmp("XCLAIM", "s", "g", "c3", "0", "6-1"),
		nocmp("XAUTOCLAIM", "s", "g", "c4", "0", "0"), cmd("XGROUP", "DELCONSUMER", "s", "g", "c1"), cmd("XGROUP", "DESTROY", "s", "g"),
		cmd("XGROUP", "DESTROY", "s", "g"), cmd("XSETID", "s", "10-1"), cmd("XLEN", "nope"), cmd("XRANGE", "nope", "-", "+"),
		cmd("XREAD", "STREAMS", "nope", "0"), cmd("XINFO", "STREAM", "nope"),
	})
}
