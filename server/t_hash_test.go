package server

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/rdb"
)

func TestHashListpackKeepsInsertionOrder(t *testing.T) {
	d := newDSServer(t, nil)
	r := rand.New(rand.NewPCG(8, 9))
	var order []string
	vals := map[string]string{}
	for op := 0; op < 2000; op++ {
		f := fmt.Sprint("f", r.IntN(40))
		if r.IntN(3) == 0 {
			d.do("HDEL", "h", f)
			if _, ok := vals[f]; ok {
				delete(vals, f)
				for i, o := range order {
					if o == f {
						order = append(order[:i], order[i+1:]...)
						break
					}
				}
			}
			continue
		}
		v := fmt.Sprint(op)
		d.do("HSET", "h", f, v)
		if _, ok := vals[f]; !ok {
			order = append(order, f)
		}
		vals[f] = v
	}
	var want []string
	for _, f := range order {
		want = append(want, f, vals[f])
	}
	if len(want) == 0 {
		d.expect(t, "*0\r\n", "HGETALL", "h")
		return
	}
	d.expect(t, respArr(want...), "HGETALL", "h")
	d.expect(t, "$8\r\nlistpack\r\n", "OBJECT", "ENCODING", "h")
	d.expect(t, respArr(order...), "HKEYS", "h")
}

func TestHashConversion(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) {
		c.HashMaxListpackEntries = 2
		c.HashMaxListpackValue = 3
	})
	d.expect(t, ":2\r\n", "HSET", "h", "a", "1", "b", "2")
	d.expect(t, "$8\r\nlistpack\r\n", "OBJECT", "ENCODING", "h")
	d.expect(t, ":1\r\n", "HSET", "h", "c", "3")
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "h")
	d.expect(t, ":3\r\n", "HDEL", "h", "a", "b", "c")
	d.expect(t, ":1\r\n", "HSET", "v", "a", "1234")
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "v")
	// A long field created by HINCRBY converts too (hashTypeSet).
	d.expect(t, ":1\r\n", "HSET", "w", "a", "1")
	d.expect(t, ":1\r\n", "HINCRBY", "w", "longfield", "1")
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "w")
	// HSETNX on an existing field changes nothing.
	d.expect(t, ":1\r\n", "HSET", "x", "a", "1")
	d.expect(t, ":0\r\n", "HSETNX", "x", "a", "12345")
	d.expect(t, "$8\r\nlistpack\r\n", "OBJECT", "ENCODING", "x")
}

func TestHashCommands(t *testing.T) {
	d := newDSServer(t, nil)
	d.expect(t, "-ERR wrong number of arguments for 'hset' command\r\n", "HSET", "h", "a", "1", "b")
	d.expect(t, "-ERR wrong number of arguments for 'hmset' command\r\n", "HMSET", "h", "a", "1", "b")
	d.expect(t, "+OK\r\n", "HMSET", "h", "a", "1", "b", "x")
	d.expect(t, "*3\r\n$1\r\n1\r\n$-1\r\n$1\r\nx\r\n", "HMGET", "h", "a", "zz", "b")
	d.expect(t, "-ERR hash value is not an integer\r\n", "HINCRBY", "h", "b", "1")
	d.expect(t, "-ERR hash value is not a float\r\n", "HINCRBYFLOAT", "h", "b", "1")
	d.expect(t, "-ERR value is NaN or Infinity\r\n", "HINCRBYFLOAT", "h", "a", "inf")
	d.expect(t, "-ERR increment or decrement would overflow\r\n", "HINCRBY", "h", "a", "9223372036854775807")
	d.ops()
	d.expect(t, "$3\r\n1.5\r\n", "HINCRBYFLOAT", "h", "a", "0.5")
	if ops := d.ops(); len(ops) != 1 || ops[0] != "HSET h a 1.5" {
		t.Fatalf("HINCRBYFLOAT propagated as %v", ops)
	}
	d.expect(t, ":3\r\n", "HSTRLEN", "h", "a")
	d.expect(t, ":0\r\n", "HSTRLEN", "h", "zz")
	d.expect(t, "*-1\r\n"[:0]+"*0\r\n", "HRANDFIELD", "nokey", "3")
	d.expect(t, "$-1\r\n", "HRANDFIELD", "nokey")
	d.expect(t, respArr("a", "1.5", "b", "x"), "HRANDFIELD", "h", "5", "WITHVALUES")
	d.expect(t, "-ERR value is out of range\r\n", "HRANDFIELD", "h", "9223372036854775807", "WITHVALUES")
	d.expect(t, "-"+errLongRange+"\r\n", "HRANDFIELD", "h", "-9223372036854775808")
	if got := d.do("HRANDFIELD", "h", "-5"); !strings.HasPrefix(got, "*5\r\n") {
		t.Fatalf("HRANDFIELD -5 = %q, want 5 elements", got)
	}
	d.expect(t, ":2\r\n", "HDEL", "h", "a", "b", "c")
	d.expect(t, ":0\r\n", "EXISTS", "h")
	d.expect(t, "*2\r\n$1\r\n0\r\n*0\r\n", "HSCAN", "h", "0", "BAD")
	d.expect(t, "-ERR invalid cursor\r\n", "HSCAN", "h", "x")
}

// TestHashScanHashtable checks HSCAN's guarantee on the hashtable encoding:
// fields present for the whole scan are returned at least once, even when
// the table grows meanwhile, and MATCH filters after counting.
func TestHashScanHashtable(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) { c.HashMaxListpackEntries = 0 })
	for i := 0; i < 300; i++ {
		d.do("HSET", "h", "f"+strconv.Itoa(i), "v")
	}
	d.expect(t, "$9\r\nhashtable\r\n", "OBJECT", "ENCODING", "h")
	seen := map[string]bool{}
	cursor := "0"
	for round := 0; ; round++ {
		if round == 3 {
			for i := 300; i < 900; i++ { // force a resize mid-scan
				d.do("HSET", "h", "f"+strconv.Itoa(i), "v")
			}
		}
		cur, items := parseScanReply(t, d.do("HSCAN", "h", cursor, "COUNT", "20"))
		if len(items)%2 != 0 {
			t.Fatalf("odd HSCAN item count %d", len(items))
		}
		for i := 0; i < len(items); i += 2 {
			seen[items[i]] = true
		}
		cursor = cur
		if cursor == "0" {
			break
		}
		if round > 10000 {
			t.Fatal("scan does not terminate")
		}
	}
	for i := 0; i < 300; i++ {
		if !seen["f"+strconv.Itoa(i)] {
			t.Fatalf("field f%d missed by the scan", i)
		}
	}
	_, items := parseScanReply(t, d.do("HSCAN", "h", "0", "MATCH", "f1?", "COUNT", "100000"))
	if len(items) != 20 {
		t.Fatalf("MATCH f1? returned %d items, want 10 pairs", len(items))
	}
}

// parseScanReply splits a RESP2 scan reply into cursor and items.
func parseScanReply(t *testing.T, s string) (string, []string) {
	t.Helper()
	lines := strings.Split(s, "\r\n")
	if len(lines) < 4 || lines[0] != "*2" {
		t.Fatalf("bad scan reply %q", s)
	}
	cursor := lines[2]
	n, err := strconv.Atoi(strings.TrimPrefix(lines[3], "*"))
	if err != nil {
		t.Fatalf("bad scan reply %q", s)
	}
	var items []string
	for i := 0; i < n; i++ {
		items = append(items, lines[5+2*i])
	}
	return cursor, items
}

func TestHashRDB(t *testing.T) {
	d := newDSServer(t, func(c *config.Config) { c.HashMaxListpackEntries = 3 })
	v := &rdb.Value{Kind: rdb.KindHash, Encoding: rdb.EncHashtable, Hash: [][2][]byte{{[]byte("z"), []byte("1")}, {[]byte("a"), []byte("2")}}}
	h := hashFromRDB(v, d.s)
	if h.Encoding() != "listpack" {
		t.Fatalf("small HASH loads as %s", h.Encoding())
	}
	out := h.ToRDB()
	if out.Encoding != rdb.EncListpack || string(out.Hash[0][0]) != "z" || string(out.Hash[1][1]) != "2" {
		t.Fatalf("toRDB order/encoding wrong: %+v", out)
	}
	for i := 0; i < 4; i++ {
		v.Hash = append(v.Hash, [2][]byte{[]byte(fmt.Sprint("k", i)), []byte("v")})
	}
	v.Encoding = rdb.EncListpack
	h = hashFromRDB(v, d.s)
	if h.Encoding() != "hashtable" || h.Len() != 6 {
		t.Fatalf("oversized listpack loads as %s/%d", h.Encoding(), h.Len())
	}
	cl := h.Clone()
	cl.Set([]byte("z"), []byte("changed"), hash.Limits{Entries: d.s.cfg.HashMaxListpackEntries, Value: d.s.cfg.HashMaxListpackValue})
	if got, _ := h.Get([]byte("z")); string(got) != "1" {
		t.Fatalf("clone shares values")
	}
}
