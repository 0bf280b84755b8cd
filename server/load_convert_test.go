package server

import (
	"strconv"
	"strings"
	"testing"
)

// TestLoadConversionsDiff checks the encodings Redis's loader converts to
// (rdbLoadObject) for values near each limit: payloads DUMPed by
// redis-server under its defaults, and hand-built zipmap, ziplist, intset
// and plain-set payloads, are RESTOREd into our server and redis-server
// configured with smaller limits; OBJECT ENCODING and the contents must
// match, before and after DEBUG RELOAD.
func TestLoadConversionsDiff(t *testing.T) {
	p := newDiffPair(t)
	s := func(x string) []byte { return rdbStr([]byte(x)) }
	n := func(prefix string, k int, val func(int) string) []string {
		var out []string
		for i := 0; i < k; i++ {
			out = append(out, prefix+strconv.Itoa(i), val(i))
		}
		return out
	}
	long := strings.Repeat("x", 10)
	// Values made on real Redis under its defaults and DUMPed from there.
	p.run([][]string{
		cmd(append([]string{"HSET", "h4"}, n("f", 4, func(int) string { return "v" })...)...),
		cmd("HSET", "hlong", "f", long, "g", "1"),
		cmd("ZADD", "z4", "1", "a", "2", "b", "3", "c", "4", "d"),
		cmd("ZADD", "zlong", "1", long, "2", "b"),
		cmd("SADD", "s4", "1", "2", "3", "4"),
		cmd("SADD", "smix", "1", "2", "x"),
		cmd("RPUSH", "l", "a", "b", "1", "2"),
	})
	dumps := map[string][]byte{}
	for _, k := range []string{"h4", "hlong", "z4", "zlong", "s4", "smix", "l"} {
		dumps[k] = []byte(bulkText(p.rc[0].do("DUMP", k)))
	}
	// Legacy encodings Redis 7.0 only reads.
	dumps["zipmap4"] = mkPayload(9, rdbStr(zipmapOf(n("f", 4, func(int) string { return "v" })...)))
	dumps["zipmaplong"] = mkPayload(9, rdbStr(zipmapOf("f", long, "g", "1")))
	dumps["hziplist4"] = mkPayload(13, rdbStr(zlOf(n("f", 4, func(int) string { return "v" })...)))
	dumps["hziplistlong"] = mkPayload(13, rdbStr(zlOf("f", long, "g", "1")))
	dumps["zziplist4"] = mkPayload(12, rdbStr(zlOf("a", "1", "b", "2", "c", "3", "d", "4")))
	dumps["zziplistlong"] = mkPayload(12, rdbStr(zlOf(long, "1", "b", "2")))
	dumps["intset4"] = mkPayload(11, rdbStr(intsetOf(1, 2, 3, 4)))
	dumps["set2ints"] = mkPayload(2, []byte{4}, s("1"), s("2"), s("3"), s("4"))
	dumps["set2mix"] = mkPayload(2, []byte{3}, s("1"), s("x"), s("2"))
	dumps["hash4"] = mkPayload(4, []byte{2}, s("f"), s(long), s("g"), s("1"))
	dumps["zset2"] = mkPayload(5, []byte{2}, s(long), f64(1), s("b"), f64(2))
	dumps["listziplist"] = mkPayload(10, rdbStr(zlOf("a", "b", "c")))
	dumps["quicklist1"] = mkPayload(14, []byte{2}, rdbStr(zlOf("a", "b")), rdbStr(zlOf("c")))
	for _, limits := range [][]string{
		{"hash-max-listpack-entries", "3", "zset-max-listpack-entries", "3", "set-max-intset-entries", "3", "hash-max-listpack-value", "64", "zset-max-listpack-value", "64"},
		{"hash-max-listpack-entries", "4", "zset-max-listpack-entries", "4", "set-max-intset-entries", "4", "hash-max-listpack-value", "9", "zset-max-listpack-value", "9"},
		{"hash-max-listpack-entries", "5", "zset-max-listpack-entries", "5", "set-max-intset-entries", "5", "hash-max-listpack-value", "10", "zset-max-listpack-value", "10"},
	} {
		p.run([][]string{cmd(append([]string{"CONFIG", "SET"}, limits...)...)})
		for k, payload := range dumps {
			key := "r:" + k
			p.run([][]string{cmd("RESTORE", key, "0", string(payload), "REPLACE")})
			p.compareKey(key)
		}
		p.run([][]string{cmd("DEBUG", "RELOAD")})
		for k := range dumps {
			p.compareKey("r:" + k)
		}
	}
}

// compareKey compares a key's TYPE, OBJECT ENCODING and contents.
func (p *diffPair) compareKey(key string) {
	p.t.Helper()
	typ := bulkText(p.rc[0].do("TYPE", key))
	cmds := [][]string{cmd("TYPE", key), cmd("OBJECT", "ENCODING", key)}
	switch typ {
	case "hash":
		cmds = append(cmds, pairs("HGETALL", key))
	case "zset":
		cmds = append(cmds, cmd("ZRANGE", key, "0", "-1", "WITHSCORES"))
	case "set":
		cmds = append(cmds, sorted("SMEMBERS", key))
	case "list":
		cmds = append(cmds, cmd("LRANGE", key, "0", "-1"))
	}
	p.run(cmds)
}
