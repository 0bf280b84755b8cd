package server

import (
	"fmt"
	"testing"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/rdb"
)

func TestZsetConversionLimits(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) {
		c.ZSetMaxListpackEntries = 3
		c.ZSetMaxListpackValue = 4
	})
	d.expect(t, ":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c")
	d.expect(t, "$8\r\nlistpack\r\n", "OBJECT", "ENCODING", "z")
	d.expect(t, ":1\r\n", "ZADD", "z", "4", "d")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "z")
	d.expect(t, ":3\r\n", "ZREM", "z", "a", "b", "c")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "z") // never back
	d.expect(t, ":1\r\n", "ZADD", "y", "1", "abcde")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "y")
	d.expect(t, ":2\r\n", "ZADD", "x", "1", "abcd", "2", "abcdef")
	d.expect(t, "$8\r\nskiplist\r\n", "OBJECT", "ENCODING", "x")
}

func TestZsetCommands(t *testing.T) {
	for _, enc := range []int{128, 0} {
		t.Run(fmt.Sprint("max-entries=", enc), func(t *testing.T) {
			d := newDSServer(t, func(c *config.Config) { c.ZSetMaxListpackEntries = enc })
			d.expect(t, ":4\r\n", "ZADD", "z", "1", "a", "1", "b", "2.5", "c", "-inf", "m")
			d.expect(t, respArr("m", "-inf", "a", "1", "b", "1", "c", "2.5"), "ZRANGE", "z", "0", "-1", "WITHSCORES")
			d.expect(t, respArr("c", "b"), "ZRANGE", "z", "0", "1", "REV")
			d.expect(t, respArr("b", "c"), "ZRANGE", "z", "1", "+inf", "BYSCORE", "LIMIT", "1", "5")
			d.expect(t, "*0\r\n", "ZRANGE", "z", "(1", "+inf", "BYSCORE", "LIMIT", "1", "5")
			d.expect(t, respArr("c", "b"), "ZREVRANGEBYSCORE", "z", "3", "1", "LIMIT", "0", "2")
			d.expect(t, "*0\r\n", "ZRANGEBYSCORE", "z", "-inf", "inf", "LIMIT", "-1", "5")
			d.expect(t, "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n", "ZRANGE", "z", "0", "1", "LIMIT", "0", "1")
			d.expect(t, "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n", "ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES")
			d.expect(t, "-ERR min or max is not a float\r\n", "ZCOUNT", "z", "x", "1")
			d.expect(t, "-ERR min or max not valid string range item\r\n", "ZLEXCOUNT", "z", "a", "b")
			d.expect(t, ":2\r\n", "ZCOUNT", "z", "1", "2")
			d.expect(t, ":2\r\n", "ZRANK", "z", "b")
			d.expect(t, ":1\r\n", "ZREVRANK", "z", "b")
			d.expect(t, "$-1\r\n", "ZRANK", "z", "zz")
			d.expect(t, "-ERR XX and NX options at the same time are not compatible\r\n", "ZADD", "z", "NX", "XX", "1", "a")
			d.expect(t, "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n", "ZADD", "z", "GT", "LT", "1", "a")
			d.expect(t, "-ERR INCR option supports a single increment-element pair\r\n", "ZADD", "z", "INCR", "1", "a", "2", "b")
			d.expect(t, "-ERR resulting score is not a number (NaN)\r\n", "ZADD", "z", "INCR", "+inf", "m")
			d.expect(t, "-ERR value is not a valid float\r\n", "ZADD", "z", "1e-400", "a")
			d.expect(t, ":1\r\n", "ZADD", "z", "GT", "CH", "5", "a", "0", "b")
			d.expect(t, "$-1\r\n", "ZADD", "z", "INCR", "LT", "1", "a")
			d.expect(t, "$3\r\n6.5\r\n", "ZINCRBY", "z", "1.5", "a")
			d.expect(t, "*3\r\n$3\r\n6.5\r\n$-1\r\n$1\r\n1\r\n", "ZMSCORE", "z", "a", "zz", "b")
			d.expect(t, respArr("m", "-inf", "b", "1"), "ZPOPMIN", "z", "2")
			d.expect(t, respArr("a", "6.5"), "ZPOPMAX", "z")
			d.expect(t, "-ERR value is out of range, must be positive\r\n", "ZPOPMIN", "z", "x")
			d.expect(t, ":1\r\n", "ZREMRANGEBYSCORE", "z", "-inf", "+inf")
			d.expect(t, ":0\r\n", "EXISTS", "z")
			d.expect(t, ":5\r\n", "ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e")
			d.expect(t, respArr("b", "c"), "ZRANGEBYLEX", "l", "(a", "[e", "LIMIT", "0", "2")
			d.expect(t, respArr("d", "c", "b"), "ZREVRANGEBYLEX", "l", "(e", "[b")
			d.expect(t, ":3\r\n", "ZLEXCOUNT", "l", "[b", "[d")
			d.expect(t, ":2\r\n", "ZREMRANGEBYLEX", "l", "-", "[b")
			d.expect(t, ":1\r\n", "ZREMRANGEBYRANK", "l", "-1", "-1")
			d.expect(t, ":2\r\n", "ZRANGESTORE", "dst", "l", "0", "-1")
			d.expect(t, respArr("c", "d"), "ZRANGE", "dst", "0", "-1")
			if enc > 0 { // a listpack scans in order, in one call
				d.expect(t, "*2\r\n$1\r\n0\r\n"+respArr("c", "0", "d", "0"), "ZSCAN", "dst", "0")
			}
		})
	}
}

func TestZsetRDBRoundTrip(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) { c.ZSetMaxListpackEntries = 4 })
	small := &rdb.Value{Kind: rdb.KindZSet, Encoding: rdb.EncSkiplist, ZSet: []rdb.ZMember{{Member: []byte("b"), Score: 2}, {Member: []byte("a"), Score: 1}}}
	z := zsetFromRDB(small, d.s)
	if z.Encoding() != "listpack" {
		t.Fatalf("small skiplist from RDB loads as %s, Redis converts it to listpack", z.Encoding())
	}
	big := &rdb.Value{Kind: rdb.KindZSet, Encoding: rdb.EncListpack}
	for i := 0; i < 6; i++ {
		big.ZSet = append(big.ZSet, rdb.ZMember{Member: []byte(fmt.Sprint("m", i)), Score: float64(5 - i)})
	}
	z = zsetFromRDB(big, d.s)
	if z.Encoding() != "skiplist" || z.Len() != 6 {
		t.Fatalf("oversized listpack loads as %s/%d", z.Encoding(), z.Len())
	}
	v := z.ToRDB()
	if v.Encoding != rdb.EncSkiplist || len(v.ZSet) != 6 || string(v.ZSet[0].Member) != "m5" {
		t.Fatalf("toRDB = %+v", v)
	}
	cl := z.Clone()
	cl.Remove([]byte("m5"))
	if _, ok := z.Score([]byte("m5")); !ok {
		t.Fatalf("clone shares the dict")
	}
}
