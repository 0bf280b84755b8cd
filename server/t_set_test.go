package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/rdb"
)

func TestSetConversionAndOrder(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) { c.SetMaxIntsetEntries = 4 })
	d.expect(t, ":4\r\n", "SADD", "s", "10", "-3", "7", "0")
	d.expect(t, "$6\r\nintset\r\n", "OBJECT", "ENCODING", "s")
	d.expect(t, respArr("-3", "0", "7", "10"), "SMEMBERS", "s")
	d.expect(t, ":1\r\n", "SADD", "s", "11")
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "s")
	d.expect(t, ":1\r\n", "SADD", "t", "10")
	d.expect(t, ":1\r\n", "SADD", "t", "01")
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "t")
	d.expect(t, ":1\r\n", "SADD", "u", "abc")
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "u")
	// A STORE result of integers starts as an intset again, like Redis.
	d.expect(t, ":1\r\n", "SINTERSTORE", "dst", "s", "s", "t")
	d.expect(t, "$6\r\nintset\r\n", "OBJECT", "ENCODING", "dst")
	d.expect(t, ":3\r\n", "SUNIONSTORE", "dst", "t", "u")
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "dst")
	d.expect(t, ":2\r\n", "SADD", "i1", "3", "1")
	d.expect(t, ":2\r\n", "SADD", "i2", "2", "1")
	d.expect(t, respArr("1", "2", "3"), "SUNION", "i1", "i2")
	d.expect(t, respArr("3"), "SDIFF", "i1", "i2")
	d.expect(t, respArr("1"), "SINTER", "i1", "i2")
	d.expect(t, ":1\r\n", "SINTERCARD", "2", "i1", "i2")
	d.expect(t, ":0\r\n", "SINTERSTORE", "i1i2", "i1", "nokey")
}

func TestSetCommands(t *testing.T) {
	d := newDSServer(t, nil)
	d.expect(t, ":3\r\n", "SADD", "s", "a", "b", "c")
	d.expect(t, "*3\r\n:1\r\n:0\r\n:1\r\n", "SMISMEMBER", "s", "a", "zz", "c")
	d.expect(t, ":1\r\n", "SMOVE", "s", "d", "a")
	d.expect(t, ":0\r\n", "SMOVE", "s", "d", "a")
	d.expect(t, ":0\r\n", "SMOVE", "nokey", "d", "a")
	d.expect(t, "+OK\r\n", "SET", "str", "x")
	d.expect(t, "-"+errWrongType+"\r\n", "SMOVE", "s", "str", "b")
	d.expect(t, ":1\r\n", "SISMEMBER", "s", "b")
	d.expect(t, "*0\r\n", "SRANDMEMBER", "s", "0")
	d.expect(t, "-"+errLongRange+"\r\n", "SRANDMEMBER", "s", "-9223372036854775808")
	if got := d.do("SRANDMEMBER", "s", "-7"); !strings.HasPrefix(got, "*7\r\n") {
		t.Fatalf("SRANDMEMBER -7 = %q", got)
	}
	if got := d.do("SRANDMEMBER", "s", "7"); !strings.HasPrefix(got, "*2\r\n") {
		t.Fatalf("SRANDMEMBER 7 on 2 members = %q", got)
	}
	d.expect(t, "-ERR value is out of range, must be positive\r\n", "SPOP", "s", "x")
	d.expect(t, "-ERR syntax error\r\n", "SPOP", "s", "1", "2")
	d.ops()

	// Propagation: SPOP -> SREM; SPOP n (< size) -> one SREM per member;
	// SPOP n (>= size) -> DEL.
	d.expect(t, ":5\r\n", "SADD", "p", "1", "2", "3", "4", "5")
	d.ops()
	m := d.do("SPOP", "p")
	ops := d.ops()
	if len(ops) != 1 || !strings.HasPrefix(ops[0], "SREM p ") || !strings.Contains(m, strings.TrimPrefix(ops[0], "SREM p ")) {
		t.Fatalf("SPOP replied %q, propagated %v", m, ops)
	}
	d.do("SPOP", "p", "2")
	ops = d.ops()
	if len(ops) != 2 || !strings.HasPrefix(ops[0], "SREM p ") || !strings.HasPrefix(ops[1], "SREM p ") {
		t.Fatalf("SPOP 2 propagated %v", ops)
	}
	d.expect(t, ":2\r\n", "SCARD", "p")
	if got := d.do("SPOP", "p", "10"); !strings.HasPrefix(got, "*2\r\n") {
		t.Fatalf("SPOP 10 = %q", got)
	}
	if ops = d.ops(); len(ops) != 1 || ops[0] != "DEL p" {
		t.Fatalf("SPOP all propagated %v", ops)
	}
	d.expect(t, ":0\r\n", "EXISTS", "p")
}

// TestSetRandomDistinct checks SRANDMEMBER/SPOP distinctness on both paths
// of the sampler (large and small samples) and on both encodings.
func TestSetRandomDistinct(t *testing.T) {
	for _, limit := range []int{512, 0} {
		d := newDSServer(t, func(c *config.Config) { c.SetMaxIntsetEntries = limit })
		args := []string{"SADD", "s"}
		for i := 0; i < 100; i++ {
			args = append(args, fmt.Sprint(i))
		}
		d.do(args...)
		for _, n := range []int{5, 60, 99} {
			got := d.do("SRANDMEMBER", "s", fmt.Sprint(n))
			items := strings.Split(got, "\r\n")
			seen := map[string]bool{}
			for i := 2; i < len(items); i += 2 {
				if seen[items[i]] {
					t.Fatalf("limit %d: SRANDMEMBER %d repeated %q", limit, n, items[i])
				}
				seen[items[i]] = true
			}
			if len(seen) != n {
				t.Fatalf("limit %d: SRANDMEMBER %d gave %d members", limit, n, len(seen))
			}
		}
	}
}

func TestSetRDB(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) { c.SetMaxIntsetEntries = 3 })
	v := &rdb.Value{Kind: rdb.KindSet, Encoding: rdb.EncHashtable, Set: [][]byte{[]byte("5"), []byte("-1"), []byte("3")}}
	o := setFromRDB(v, d.s)
	if o.Encoding() != "intset" || o.Len() != 3 || o.Random(rand.New(rand.NewPCG(1, 2))) == nil {
		t.Fatalf("small int SET loads as %s/%d", o.Encoding(), o.Len())
	}
	var members []string
	o.Each(func(m []byte) bool { members = append(members, string(m)); return true })
	if strings.Join(members, " ") != "-1 3 5" {
		t.Fatalf("intset order %v", members)
	}
	v.Set = append(v.Set, []byte("9"))
	v.Encoding = rdb.EncIntset
	if o = setFromRDB(v, d.s); o.Encoding() != "hashtable" || o.Len() != 4 {
		t.Fatalf("oversized intset loads as %s/%d", o.Encoding(), o.Len())
	}
	out := o.ToRDB()
	if out.Encoding != rdb.EncHashtable || len(out.Set) != 4 {
		t.Fatalf("toRDB %+v", out)
	}
	cl := o.Clone()
	cl.Remove([]byte("9"))
	if !o.Contains([]byte("9")) {
		t.Fatalf("clone shares the dict")
	}
}
