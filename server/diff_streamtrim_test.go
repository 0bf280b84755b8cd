package server

import (
	"bytes"
	"strconv"
	"testing"
)

// Stream trimming against Redis 7.0.15: MAXLEN/MINID with "=" and "~",
// LIMIT, whole-node granularity under stream-node-max-entries and
// stream-node-max-bytes, and what XADD/XTRIM propagate (the AOF both
// servers write, and a reload under other node limits). Ported from
// tests/unit/type/stream.tcl; explicit IDs stand for "*" so that the logs
// compare byte for byte.

// streamAdds XADDs ids from..to-1 (as "<j>-1") with one field, every tenth
// one under another field name (Redis's tests alternate at random).
func streamAdds(key string, from, to int, opts ...string) [][]string {
	var out [][]string
	for j := from; j < to; j++ {
		f := "xitem"
		if j%10 == 3 {
			f = "yitem"
		}
		c := append([]string{"XADD", key}, opts...)
		out = append(out, append(c, strconv.Itoa(j)+"-1", f, strconv.Itoa(j)))
	}
	return out
}

func TestDiffStreamTrim(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	cfg := func(k, v string) []string { return cmd("CONFIG", "SET", k, v) }
	var cmds [][]string
	add := func(c ...[]string) { cmds = append(cmds, c...) }
	info := func(k string) {
		add(cmd("XLEN", k), cmd("XRANGE", k, "-", "+", "COUNT", "3"), cmd("XREVRANGE", k, "+", "-", "COUNT", "1"))
	}
	// XADD with MAXLEN option (=, ~)
	add(cmd("DEL", "mystream"))
	add(streamAdds("mystream", 1, 1001, "MAXLEN", "5")...)
	info("mystream")
	add(cmd("DEL", "mystream"), cfg("stream-node-max-entries", "100"))
	add(streamAdds("mystream", 1, 1001, "MAXLEN", "=", "5")...)
	info("mystream")
	add(cmd("DEL", "mystream"))
	add(streamAdds("mystream", 1, 1001, "MAXLEN", "~", "555")...)
	info("mystream")
	// XADD with MINID option
	add(cmd("DEL", "mystream"))
	for j := 1; j < 1001; j++ {
		minid := 1000
		if j >= 5 {
			minid = j - 5
		}
		add(cmd("XADD", "mystream", "MINID", strconv.Itoa(minid), strconv.Itoa(j), "xitem", strconv.Itoa(j)))
	}
	info("mystream")
	add(cmd("DEL", "mystream"))
	for j := 1; j < 1001; j++ {
		add(cmd("XADD", "mystream", "MINID", "~", strconv.Itoa(max(j-300, 0)), strconv.Itoa(j), "xitem", strconv.Itoa(j)))
	}
	info("mystream")
	// XTRIM with MINID option, and a big delta from the master record
	add(cmd("DEL", "mystream"), cmd("XADD", "mystream", "1-0", "f", "v"), cmd("XADD", "mystream", "2-0", "f", "v"),
		cmd("XADD", "mystream", "3-0", "f", "v"), cmd("XADD", "mystream", "4-0", "f", "v"), cmd("XADD", "mystream", "5-0", "f", "v"),
		cmd("XTRIM", "mystream", "MINID", "=", "3-0"), cmd("XRANGE", "mystream", "-", "+"))
	add(cmd("DEL", "mystream"), cmd("XADD", "mystream", "1-0", "f", "v"), cmd("XADD", "mystream", "1641544570597-0", "f", "v"),
		cmd("XADD", "mystream", "1641544570597-1", "f", "v"), cmd("XTRIM", "mystream", "MINID", "1641544570597-0"), cmd("XRANGE", "mystream", "-", "+"))
	// XADD with LIMIT delete entries no more than limit
	add(cmd("DEL", "yourstream"))
	add(streamAdds("yourstream", 1, 4)...)
	add(cmd("XADD", "yourstream", "MAXLEN", "~", "0", "LIMIT", "1", "4-1", "xitem", "v"), cmd("XLEN", "yourstream"))
	// XTRIM with MAXLEN option basic test
	add(cmd("DEL", "mystream"))
	add(streamAdds("mystream", 1, 1001)...)
	add(cmd("XTRIM", "mystream", "MAXLEN", "666"), cmd("XLEN", "mystream"), cmd("XTRIM", "mystream", "MAXLEN", "=", "555"),
		cmd("XLEN", "mystream"), cmd("XTRIM", "mystream", "MAXLEN", "~", "444"), cmd("XLEN", "mystream"),
		cmd("XTRIM", "mystream", "MAXLEN", "~", "400"), cmd("XLEN", "mystream"))
	// XADD with LIMIT consecutive calls
	add(cmd("DEL", "mystream"), cfg("stream-node-max-entries", "10"))
	add(streamAdds("mystream", 1, 101)...)
	add(cmd("XADD", "mystream", "MAXLEN", "~", "55", "LIMIT", "30", "101-1", "xitem", "v"), cmd("XLEN", "mystream"),
		cmd("XADD", "mystream", "MAXLEN", "~", "55", "LIMIT", "30", "102-1", "xitem", "v"), cmd("XLEN", "mystream"))
	info("mystream")
	// XTRIM with ~ is limited; without ~ not limited; without ~ with LIMIT
	for _, c := range [][]string{{"MAXLEN", "~", "1"}, {"MAXLEN", "1"}, {"MAXLEN", "1", "LIMIT", "30"}, {"MINID", "~", "90", "LIMIT", "0"}} {
		add(cmd("DEL", "mystream"), cfg("stream-node-max-entries", "1"))
		add(streamAdds("mystream", 1, 103)...)
		add(append([]string{"XTRIM", "mystream"}, c...), cmd("XLEN", "mystream"))
	}
	// XTRIM with LIMIT delete entries no more than limit
	add(cmd("DEL", "mystream"), cfg("stream-node-max-entries", "2"))
	add(streamAdds("mystream", 1, 4)...)
	add(cmd("XTRIM", "mystream", "MAXLEN", "~", "0", "LIMIT", "1"), cmd("XTRIM", "mystream", "MAXLEN", "~", "0", "LIMIT", "2"), cmd("XLEN", "mystream"))
	// the default LIMIT of "~" is 100 nodes, bounded to 10000..1000000
	for _, n := range []string{"0", "3", "20000"} {
		add(cmd("DEL", "mystream"), cfg("stream-node-max-entries", n))
		add(streamAdds("mystream", 1, 1500)...)
		add(cmd("XTRIM", "mystream", "MAXLEN", "~", "10"), cmd("XLEN", "mystream"), cmd("XTRIM", "mystream", "MINID", "~", "1400"), cmd("XLEN", "mystream"))
	}
	// nodes cut by stream-node-max-bytes
	add(cmd("DEL", "mystream"), cfg("stream-node-max-entries", "0"), cfg("stream-node-max-bytes", "200"))
	add(streamAdds("mystream", 1, 200)...)
	add(cmd("XTRIM", "mystream", "MAXLEN", "~", "100"), cmd("XLEN", "mystream"), cmd("XADD", "mystream", "MINID", "~", "150", "200-1", "f", "v"), cmd("XLEN", "mystream"))
	add(cfg("stream-node-max-bytes", "4096"), cfg("stream-node-max-entries", "100"))
	// tombstones left by exact trimming, then "~" over them
	add(cmd("DEL", "mystream"))
	add(streamAdds("mystream", 1, 301)...)
	add(cmd("XTRIM", "mystream", "MAXLEN", "250"), cmd("XDEL", "mystream", "60-1", "120-1"), cmd("XTRIM", "mystream", "MAXLEN", "~", "150"),
		cmd("XLEN", "mystream"), cmd("XTRIM", "mystream", "MINID", "~", "250"), cmd("XLEN", "mystream"))
	// "~" that empties the stream: the rewritten MINID is the max ID
	add(cmd("DEL", "mystream"))
	add(streamAdds("mystream", 1, 101)...)
	add(cmd("XADD", "mystream", "MINID", "~", "999", "101-1", "f", "v"), cmd("XLEN", "mystream"), cmd("XADD", "mystream", "MAXLEN", "~", "0", "102-1", "f", "v"), cmd("XLEN", "mystream"))
	add(cmd("DEL", "mystream"))
	add(streamAdds("mystream", 1, 101)...)
	add(cmd("XTRIM", "mystream", "MINID", "~", "999"), cmd("XLEN", "mystream"), cmd("XADD", "mystream", "MINID", "1000", "103-1", "f", "v"))
	p.run(cmds)
	p.checkDigest()
	if got, want := incrAOF(t, p.ours.dir), incrAOF(t, p.real.dir); !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("AOF differs at byte %d:\n ours:  %q\n redis: %q", i, got[max(0, i-200):min(len(got), i+200)], want[max(0, i-200):min(len(want), i+200)])
	}
}

// The propagation cases of stream.tcl: what XADD/XTRIM with "~" logged
// reloads to the same stream under other node limits.
func TestDiffStreamTrimPropagation(t *testing.T) {
	cases := []struct {
		name    string
		entries string
		cmds    [][]string
	}{
		{"XADD with MAXLEN > xlen", "100", append(streamAdds("mystream", 1, 101), cmd("XADD", "mystream", "MAXLEN", "200", "101-1", "xitem", "v"))},
		{"XADD with MINID > lastid", "100", append(streamAdds("mystream", 1, 101), cmd("XADD", "mystream", "MINID", "1", "101-1", "xitem", "v"))},
		{"XADD with ~ MAXLEN", "100", append(streamAdds("mystream", 1, 101), cmd("XADD", "mystream", "MAXLEN", "~", "100", "101-1", "xitem", "v"))},
		{"XADD with ~ MAXLEN and LIMIT", "10", append(streamAdds("mystream", 1, 101), cmd("XADD", "mystream", "MAXLEN", "~", "55", "LIMIT", "30", "101-1", "xitem", "v"))},
		{"XADD with ~ MINID", "100", append(streamAdds("mystream", 1, 101), cmd("XADD", "mystream", "MINID", "~", "100", "101-1", "xitem", "v"))},
		{"XADD with ~ MINID and LIMIT", "10", append(streamAdds("mystream", 1, 101), cmd("XADD", "mystream", "MINID", "~", "55", "LIMIT", "30", "101-1", "xitem", "v"))},
		{"XTRIM with ~ MAXLEN", "10", append(streamAdds("mystream", 1, 101), cmd("XTRIM", "mystream", "MAXLEN", "~", "85"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newDiffPair(t, "--appendonly", "yes", "--stream-node-max-entries", c.entries)
			p.run(c.cmds)
			p.run([][]string{
				cmd("XLEN", "mystream"), cmd("CONFIG", "SET", "stream-node-max-entries", "1"), cmd("DEBUG", "LOADAOF"),
				cmd("XADD", "mystream", "200-1", "xitem", "v"), cmd("XLEN", "mystream"), cmd("XRANGE", "mystream", "-", "+", "COUNT", "2"),
			})
			p.checkDigest()
		})
	}
}
