package server

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/rdb"
)

func TestSetIntsetAgainstModel(t *testing.T) {
	d := newDSServer(t, nil)
	r := rand.New(rand.NewPCG(10, 11))
	o := newSetIntset()
	model := map[int64]bool{}
	for op := 0; op < 5000; op++ {
		v := int64(r.IntN(400)) - 200
		m := []byte(strconv.FormatInt(v, 10))
		if r.IntN(3) == 0 {
			if o.remove(m) != model[v] {
				t.Fatalf("remove(%d) disagrees", v)
			}
			delete(model, v)
		} else {
			if o.add(d.s, m) == model[v] {
				t.Fatalf("add(%d) disagrees", v)
			}
			model[v] = true
		}
	}
	if o.encoding() != "intset" || o.length() != len(model) {
		t.Fatalf("encoding %s len %d, model %d", o.encoding(), o.length(), len(model))
	}
	if !slices.IsSorted(o.ints) {
		t.Fatalf("intset not sorted")
	}
	for v := range model {
		if !o.contains([]byte(strconv.FormatInt(v, 10))) {
			t.Fatalf("missing %d", v)
		}
	}
	// Non-canonical spellings are other strings, not the same integer.
	if o.contains([]byte("+1")) || o.contains([]byte("01")) || o.contains([]byte("-0")) {
		t.Fatalf("non-canonical integer matched")
	}
}

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
	if o.encoding() != "intset" || !slices.Equal(o.ints, []int64{-1, 3, 5}) {
		t.Fatalf("small int SET loads as %s %v", o.encoding(), o.ints)
	}
	v.Set = append(v.Set, []byte("9"))
	v.Encoding = rdb.EncIntset
	if o = setFromRDB(v, d.s); o.encoding() != "hashtable" || o.length() != 4 {
		t.Fatalf("oversized intset loads as %s/%d", o.encoding(), o.length())
	}
	out := o.toRDB()
	if out.Encoding != rdb.EncHashtable || len(out.Set) != 4 {
		t.Fatalf("toRDB %+v", out)
	}
	cl := o.clone()
	cl.remove([]byte("9"))
	if !o.contains([]byte("9")) {
		t.Fatalf("clone shares the dict")
	}
}
