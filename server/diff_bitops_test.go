package server

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Bitmap commands (SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD
// BITFIELD_RO) and LCS against real Redis: every option and error, then
// random sequences whose replies, digest, dirty counter and AOF must match.

func TestDiffBitopsSetGetBit(t *testing.T) {
	diff(t, [][]string{
		cmd("SETBIT", "b", "7", "1"), cmd("GET", "b"), cmd("SETBIT", "b", "7", "1"), cmd("SETBIT", "b", "7", "0"),
		cmd("SETBIT", "b", "100", "1"), cmd("STRLEN", "b"), cmd("GET", "b"), cmd("OBJECT", "ENCODING", "b"),
		cmd("GETBIT", "b", "100"), cmd("GETBIT", "b", "99"), cmd("GETBIT", "b", "1000000"), cmd("GETBIT", "nokey", "5"),
		cmd("SETBIT", "b", "0", "2"), cmd("SETBIT", "b", "0", "-1"), cmd("SETBIT", "b", "0", "01"), cmd("SETBIT", "b", "0", "-0"),
		cmd("SETBIT", "b", "0", "1.0"), cmd("SETBIT", "b", "0", ""), cmd("SETBIT", "b", "-1", "1"), cmd("SETBIT", "b", "x", "1"),
		cmd("SETBIT", "b", "1.5", "1"), cmd("SETBIT", "b", "4294967296", "1"), cmd("SETBIT", "b", "9223372036854775807", "1"),
		cmd("GETBIT", "b", "-1"), cmd("GETBIT", "b", "4294967295"), cmd("GETBIT", "b", "4294967296"), cmd("GETBIT", "b", "x"),
		cmd("SETBIT", "b"), cmd("GETBIT", "b"), cmd("SETBIT", "b", "1", "1", "1"),
		cmd("SET", "n", "12345"), cmd("OBJECT", "ENCODING", "n"), cmd("GETBIT", "n", "2"), cmd("GETBIT", "n", "3"),
		cmd("OBJECT", "ENCODING", "n"), cmd("SETBIT", "n", "2", "1"), cmd("OBJECT", "ENCODING", "n"), cmd("GET", "n"),
		cmd("SET", "e", "hello"), cmd("SETBIT", "e", "0", "0"), cmd("OBJECT", "ENCODING", "e"),
		cmd("SET", "t", "x", "EX", "100000"), cmd("SETBIT", "t", "30", "1"), cmd("TTL", "t"), cmd("GET", "t"),
		cmd("RPUSH", "l", "a"), cmd("SETBIT", "l", "0", "1"), cmd("GETBIT", "l", "0"), cmd("SETBIT", "l", "-1", "1"),
		cmd("SETBIT", "l", "0", "5"), cmd("GETBIT", "l", "x"),
		cmd("SETBIT", "z", "0", "0"), cmd("EXISTS", "z"), cmd("GET", "z"),
		cmd("SET", "n2", "1"), cmd("SETBIT", "n2", "6", "1"), cmd("GET", "n2"), cmd("OBJECT", "ENCODING", "n2"),
		cmd("DEBUG", "RELOAD"), cmd("GET", "b"), cmd("OBJECT", "ENCODING", "b"), cmd("OBJECT", "ENCODING", "n2"),
		cmd("OBJECT", "ENCODING", "z"), cmd("SETBIT", "b", "1", "1"), cmd("GET", "b"), cmd("TTL", "t"),
	})
}

func TestDiffBitopsBitcount(t *testing.T) {
	cmds := [][]string{
		cmd("SET", "s", "foobar"), cmd("BITCOUNT", "s"), cmd("BITCOUNT", "nokey"), cmd("BITCOUNT", "nokey", "1"),
		cmd("BITCOUNT", "nokey", "a", "b"), cmd("BITCOUNT", "nokey", "0", "1", "foo"),
		cmd("BITCOUNT", "s", "1"), cmd("BITCOUNT", "s", "0", "1", "2"), cmd("BITCOUNT", "s", "0", "1", "2", "3"),
		cmd("BITCOUNT", "s", "a", "1"), cmd("BITCOUNT", "s", "0", "x"), cmd("BITCOUNT", "s", "0", "x", "foo"),
		cmd("BITCOUNT", "s", "-1", "-2", "foo"), cmd("BITCOUNT", "s", "0", "1", "foo"),
		cmd("BITCOUNT", "s", "0", "0"), cmd("BITCOUNT", "s", "1", "1"), cmd("BITCOUNT", "s", "1", "1", "BYTE"),
		cmd("BITCOUNT", "s", "5", "30", "bit"), cmd("BITCOUNT", "s", "-1", "-1", "BIT"), cmd("BITCOUNT", "s", "0", "-1", "bit"),
		cmd("BITCOUNT", "s", "-100", "100"), cmd("BITCOUNT", "s", "-100", "-100"), cmd("BITCOUNT", "s", "-100", "-50"),
		cmd("BITCOUNT", "s", "10", "5"), cmd("BITCOUNT", "s", "47", "47", "BIT"), cmd("BITCOUNT", "s", "48", "100", "BIT"),
		cmd("BITCOUNT", "s", "-9223372036854775808", "9223372036854775807"),
		cmd("BITCOUNT", "s", "-9223372036854775808", "9223372036854775807", "BIT"),
		cmd("SET", "n", "-123"), cmd("BITCOUNT", "n"), cmd("BITCOUNT", "n", "1", "2"),
		cmd("SET", "empty", ""), cmd("BITCOUNT", "empty"), cmd("BITCOUNT", "empty", "0", "-1"), cmd("BITCOUNT", "empty", "0", "0", "BIT"),
		cmd("HSET", "h", "f", "v"), cmd("BITCOUNT", "h"), cmd("BITCOUNT", "h", "0", "x"), cmd("BITCOUNT", "h", "1"),
		cmd("BITCOUNT"),
	}
	// Every range of a longer value, in both units.
	cmds = append(cmds, cmd("SET", "r", "\xff\x00\x81\x7e\x01\x80\xaa"))
	for s := -9; s <= 9; s += 3 {
		for e := -9; e <= 9; e += 2 {
			cmds = append(cmds, cmd("BITCOUNT", "r", strconv.Itoa(s), strconv.Itoa(e)))
			cmds = append(cmds, cmd("BITCOUNT", "r", strconv.Itoa(s*7), strconv.Itoa(e*7), "BIT"))
		}
	}
	diff(t, cmds)
}

func TestDiffBitopsBitpos(t *testing.T) {
	cmds := [][]string{
		cmd("BITPOS", "nokey", "2"), cmd("BITPOS", "nokey", "1"), cmd("BITPOS", "nokey", "0"), cmd("BITPOS", "nokey", "1", "a"),
		cmd("BITPOS", "nokey", "0", "0", "1", "foo"), cmd("BITPOS", "nokey", "x"),
		cmd("SET", "s", "\xff\xf0\x00"), cmd("BITPOS", "s", "0"), cmd("BITPOS", "s", "1"), cmd("BITPOS", "s", "1", "2"),
		cmd("BITPOS", "s", "1", "0", "1", "foo"), cmd("BITPOS", "s", "1", "0", "x", "foo"), cmd("BITPOS", "s", "1", "x", "1", "foo"),
		cmd("BITPOS", "s", "1", "0", "1", "bit", "x"), cmd("BITPOS", "s", "1.5"), cmd("BITPOS", "s", "01"), cmd("BITPOS", "s", "-1"),
		cmd("BITPOS", "s", "0", "0", "-1"), cmd("BITPOS", "s", "1", "2", "-1"), cmd("BITPOS", "s", "0", "10", "3"),
		cmd("BITPOS", "s", "0", "3", "20", "BIT"), cmd("BITPOS", "s", "0", "12", "20", "bit"), cmd("BITPOS", "s", "1", "12", "20", "bit"),
		cmd("SET", "ones", "\xff\xff"), cmd("BITPOS", "ones", "0"), cmd("BITPOS", "ones", "0", "0"), cmd("BITPOS", "ones", "0", "1"),
		cmd("BITPOS", "ones", "0", "0", "-1"), cmd("BITPOS", "ones", "0", "0", "15", "BIT"), cmd("BITPOS", "ones", "0", "2"),
		cmd("BITPOS", "ones", "0", "-1"), cmd("BITPOS", "ones", "1", "5", "4", "BIT"), cmd("BITPOS", "ones", "0", "-100", "100"),
		cmd("SET", "zeros", "\x00\x00\x00"), cmd("BITPOS", "zeros", "1"), cmd("BITPOS", "zeros", "0"), cmd("BITPOS", "zeros", "1", "1"),
		cmd("SET", "empty", ""), cmd("BITPOS", "empty", "0"), cmd("BITPOS", "empty", "1"), cmd("BITPOS", "empty", "0", "0"),
		cmd("BITPOS", "empty", "0", "0", "0"), cmd("BITPOS", "empty", "0", "0", "0", "BIT"),
		cmd("SET", "n", "777"), cmd("BITPOS", "n", "0"), cmd("BITPOS", "n", "1", "1"),
		cmd("SADD", "set", "a"), cmd("BITPOS", "set", "1"), cmd("BITPOS", "set", "2"), cmd("BITPOS", "set", "1", "x"),
		cmd("BITPOS", "s"),
	}
	cmds = append(cmds, cmd("SET", "r", "\xff\x00\x81\x7e\x01\x80\xaa\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe\x00\x00\x00\x00\x00\x00\x00\x00\x01"))
	for s := -30; s <= 30; s += 7 {
		for e := -30; e <= 30; e += 5 {
			for _, bit := range []string{"0", "1"} {
				cmds = append(cmds, cmd("BITPOS", "r", bit, strconv.Itoa(s)))
				cmds = append(cmds, cmd("BITPOS", "r", bit, strconv.Itoa(s), strconv.Itoa(e)))
				cmds = append(cmds, cmd("BITPOS", "r", bit, strconv.Itoa(s*7), strconv.Itoa(e*7), "BIT"))
			}
		}
	}
	diff(t, cmds)
}

func TestDiffBitopsBitop(t *testing.T) {
	diff(t, [][]string{
		cmd("SET", "a", "foobar"), cmd("SET", "b", "abcdef\xff\x01"), cmd("SET", "c", "12"),
		cmd("BITOP", "AND", "d", "a", "b"), cmd("GET", "d"), cmd("OBJECT", "ENCODING", "d"),
		cmd("BITOP", "or", "d", "a", "b", "c"), cmd("GET", "d"), cmd("BITOP", "Xor", "d", "a", "b", "c", "nokey"), cmd("GET", "d"),
		cmd("BITOP", "AND", "d", "a", "nokey"), cmd("GET", "d"), cmd("BITOP", "NOT", "d", "b"), cmd("GET", "d"),
		cmd("BITOP", "NOT", "d", "a", "b"), cmd("BITOP", "NOT", "d"), cmd("BITOP", "FOO", "d", "a"), cmd("BITOP", "DIFF", "d", "a", "b"),
		cmd("BITOP", "AND", "d"), cmd("BITOP"),
		cmd("BITOP", "OR", "d", "nokey", "nokey2"), cmd("EXISTS", "d"), cmd("BITOP", "OR", "d", "nokey"), cmd("EXISTS", "d"),
		cmd("SET", "empty", ""), cmd("SET", "d", "x"), cmd("BITOP", "OR", "d", "empty"), cmd("EXISTS", "d"),
		cmd("BITOP", "NOT", "d", "nokey"), cmd("EXISTS", "d"),
		cmd("SET", "d", "x", "EX", "10000"), cmd("BITOP", "OR", "d", "a"), cmd("TTL", "d"),
		cmd("BITOP", "AND", "c", "c"), cmd("GET", "c"), cmd("OBJECT", "ENCODING", "c"), cmd("BITOP", "XOR", "a", "a", "a"), cmd("GET", "a"),
		cmd("LPUSH", "l", "x"), cmd("BITOP", "AND", "d", "l"), cmd("BITOP", "AND", "d", "a", "l"), cmd("BITOP", "AND", "l", "a"),
		cmd("TYPE", "l"), cmd("GET", "l"),
	})
}

func TestDiffBitopsBitfield(t *testing.T) {
	cmds := [][]string{
		cmd("BITFIELD", "bf", "SET", "u8", "0", "255"), cmd("BITFIELD", "bf", "GET", "u8", "0"), cmd("BITFIELD", "bf", "GET", "i8", "0"),
		cmd("BITFIELD", "bf", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "incrby", "u2", "102", "1"), cmd("GET", "bf"),
		cmd("BITFIELD", "bf", "get", "u8", "#1", "set", "i16", "#2", "-300", "get", "i16", "#2", "incrby", "i16", "#2", "-40000"),
		cmd("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "200", "SET", "u4", "0", "16", "OVERFLOW", "WRAP", "SET", "u4", "0", "17"),
		cmd("BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "u4", "0", "-1", "SET", "i4", "0", "-100", "SET", "i4", "0", "100"),
		cmd("BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "i8", "0", "-9223372036854775808", "SET", "i8", "0", "9223372036854775807"),
		cmd("BITFIELD", "bf", "OVERFLOW", "WRAP", "SET", "i8", "0", "-9223372036854775808", "SET", "i8", "0", "9223372036854775807"),
		cmd("BITFIELD", "bf", "SET", "i64", "3", "-9223372036854775808", "INCRBY", "i64", "3", "-1", "INCRBY", "i64", "3", "1"),
		cmd("BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i64", "3", "-1", "INCRBY", "i64", "3", "9223372036854775807",
			"INCRBY", "i64", "3", "9223372036854775807", "INCRBY", "i64", "3", "9223372036854775807"),
		cmd("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i64", "3", "1", "INCRBY", "i64", "3", "-9223372036854775808"),
		cmd("BITFIELD", "bf", "SET", "u63", "1", "9223372036854775807", "INCRBY", "u63", "1", "1", "OVERFLOW", "SAT",
			"INCRBY", "u63", "1", "-5", "INCRBY", "u63", "1", "9223372036854775807", "INCRBY", "u63", "1", "-9223372036854775808"),
		cmd("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u1", "7", "1", "INCRBY", "u1", "7", "1", "INCRBY", "u1", "7", "-1",
			"INCRBY", "u1", "7", "-1", "INCRBY", "i1", "7", "-1", "INCRBY", "i1", "7", "1"),
		cmd("BITFIELD", "bf", "GET", "u8", "1000", "GET", "i64", "#100", "GET", "u63", "7"), cmd("STRLEN", "bf"),
		cmd("BITFIELD", "bf", "GET", "u8", "1000", "SET", "u8", "#200", "1"), cmd("STRLEN", "bf"), cmd("GET", "bf"),
		cmd("BITFIELD", "nokey", "GET", "u8", "0", "GET", "i5", "3"), cmd("EXISTS", "nokey"),
		cmd("BITFIELD", "nokey"), cmd("EXISTS", "nokey"), cmd("BITFIELD", "bf"),
		cmd("BITFIELD", "fail", "OVERFLOW", "FAIL", "SET", "u8", "0", "1000"), cmd("EXISTS", "fail"), cmd("GET", "fail"),
		cmd("BITFIELD", "fail", "SET", "u8", "0", "0"), cmd("BITFIELD", "fail", "INCRBY", "u8", "0", "0", "GET", "u8", "0"),
		cmd("SET", "n", "12345"), cmd("BITFIELD", "n", "GET", "u8", "0"), cmd("OBJECT", "ENCODING", "n"),
		cmd("BITFIELD", "n", "SET", "u8", "0", "49"), cmd("OBJECT", "ENCODING", "n"), cmd("GET", "n"),
		cmd("SET", "t", "abc", "PX", "100000000"), cmd("BITFIELD", "t", "SET", "u8", "#5", "65"), cmd("TTL", "t"), cmd("GET", "t"),
		// Parse errors, in the order Redis checks them.
		cmd("BITFIELD", "bf", "foo"), cmd("BITFIELD", "bf", "GET", "u8"), cmd("BITFIELD", "bf", "SET", "u8", "0"),
		cmd("BITFIELD", "bf", "GET", "u8", "0", "OVERFLOW"), cmd("BITFIELD", "bf", "OVERFLOW", "foo", "GET", "u8", "0"),
		cmd("BITFIELD", "bf", "GET", "u64", "0"), cmd("BITFIELD", "bf", "GET", "i65", "0"), cmd("BITFIELD", "bf", "GET", "u0", "0"),
		cmd("BITFIELD", "bf", "GET", "i", "0"), cmd("BITFIELD", "bf", "GET", "U8", "0"), cmd("BITFIELD", "bf", "GET", "u08", "0"),
		cmd("BITFIELD", "bf", "GET", "u+8", "0"), cmd("BITFIELD", "bf", "GET", "", "0"), cmd("BITFIELD", "bf", "GET", "u8\x00x", "0"),
		cmd("BITFIELD", "bf", "GET\x00x", "u8", "0"),
		cmd("BITFIELD", "bf", "GET", "u8", "-1"), cmd("BITFIELD", "bf", "GET", "u8", "x"), cmd("BITFIELD", "bf", "GET", "u8", "#-1"),
		cmd("BITFIELD", "bf", "GET", "u8", "#x"), cmd("BITFIELD", "bf", "GET", "u8", "#"), cmd("BITFIELD", "bf", "GET", "u8", "##1"),
		cmd("BITFIELD", "bf", "GET", "u8", "4294967295"), cmd("BITFIELD", "bf", "GET", "u8", "4294967296"),
		cmd("BITFIELD", "bf", "GET", "u8", "#536870911"), cmd("BITFIELD", "bf", "GET", "u8", "#536870912"),
		cmd("BITFIELD", "bf", "GET", "i64", "#67108863"), cmd("BITFIELD", "bf", "GET", "i64", "#67108864"),
		cmd("BITFIELD", "bf", "GET", "u8", "#9223372036854775807"), cmd("BITFIELD", "bf", "GET", "u8", "#1152921504606846976"),
		cmd("BITFIELD", "bf", "SET", "u8", "0", "x"), cmd("BITFIELD", "bf", "INCRBY", "u8", "0", "1.5"),
		cmd("BITFIELD", "bf", "SET", "u8", "0", "1", "GET", "u64", "0"), cmd("GET", "bf"),
		cmd("BITFIELD", "bf", "INCRBY", "u8", "0", "99999999999999999999"),
		cmd("LPUSH", "l", "a"), cmd("BITFIELD", "l", "GET", "u8", "0"), cmd("BITFIELD", "l", "SET", "u8", "0", "1"),
		cmd("BITFIELD", "l"), cmd("BITFIELD", "l", "foo"), cmd("BITFIELD", "l", "GET", "u64", "0"),
		cmd("BITFIELD"),
		// BITFIELD_RO.
		cmd("BITFIELD_RO", "bf", "GET", "u8", "0", "GET", "i3", "#7"), cmd("BITFIELD_RO", "nokey", "GET", "u8", "0"),
		cmd("BITFIELD_RO", "bf"), cmd("BITFIELD_RO", "bf", "SET", "u8", "0", "1"), cmd("BITFIELD_RO", "nokey", "INCRBY", "u8", "0", "1"),
		cmd("BITFIELD_RO", "bf", "OVERFLOW", "SAT", "GET", "u8", "0"), cmd("BITFIELD_RO", "bf", "SET", "u64", "0", "1"),
		cmd("BITFIELD_RO", "bf", "SET", "u8", "0", "x"), cmd("BITFIELD_RO", "l", "GET", "u8", "0"), cmd("BITFIELD_RO", "l"),
		cmd("BITFIELD_RO", "l", "SET", "u8", "0", "1"), cmd("BITFIELD_RO"), cmd("EXISTS", "nokey"),
	}
	// Every width and signedness at unaligned offsets.
	for w := 1; w <= 64; w += 3 {
		for _, sign := range []string{"i", "u"} {
			if sign == "u" && w == 64 {
				continue
			}
			typ := sign + strconv.Itoa(w)
			cmds = append(cmds,
				cmd("BITFIELD", "w", "SET", typ, "5", "-7", "GET", typ, "5", "INCRBY", typ, "5", "123456789", "GET", typ, "3"),
				cmd("BITFIELD", "w", "OVERFLOW", "SAT", "INCRBY", typ, "5", "-9223372036854775808", "INCRBY", typ, "5", "9223372036854775807"),
				cmd("BITFIELD", "w", "OVERFLOW", "FAIL", "SET", typ, "#3", "300", "INCRBY", typ, "#3", "-300"))
		}
	}
	cmds = append(cmds, cmd("GET", "w"))
	diff(t, cmds)
}

func TestDiffBitopsLCS(t *testing.T) {
	long := strings.Repeat("ab", 300)
	diff(t, [][]string{
		cmd("MSET", "a", "ohmytext", "b", "mynewtext", "n", "1234512345", "m", "5432"),
		cmd("LCS", "a", "b"), cmd("LCS", "a", "b", "LEN"), cmd("LCS", "a", "b", "IDX"), cmd("LCS", "a", "b", "idx", "withmatchlen"),
		cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "4"), cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
		cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "-5"), cmd("LCS", "a", "b", "MINMATCHLEN", "2"), cmd("LCS", "a", "b", "WITHMATCHLEN"),
		cmd("LCS", "a", "b", "LEN", "MINMATCHLEN", "100"), cmd("LCS", "b", "a", "IDX", "WITHMATCHLEN"),
		cmd("LCS", "n", "m"), cmd("LCS", "n", "m", "IDX", "WITHMATCHLEN"), cmd("LCS", "m", "n", "IDX"),
		cmd("LCS", "a", "a", "IDX", "WITHMATCHLEN"), cmd("LCS", "a", "nokey"), cmd("LCS", "nokey", "nokey2", "IDX"),
		cmd("LCS", "nokey", "a", "LEN"),
		cmd("LCS", "a", "b", "LEN", "IDX"), cmd("LCS", "a", "b", "IDX", "LEN"), cmd("LCS", "a", "b", "MINMATCHLEN"),
		cmd("LCS", "a", "b", "MINMATCHLEN", "x"), cmd("LCS", "a", "b", "MINMATCHLEN", "99999999999999999999"),
		cmd("LCS", "a", "b", "foo"), cmd("LCS", "a", "b", "idx", "foo"), cmd("LCS", "a", "b", "LEN", "LEN"),
		cmd("LPUSH", "l", "x"), cmd("LCS", "l", "a"), cmd("LCS", "a", "l"), cmd("LCS", "l", "a", "foo"), cmd("LCS", "a", "l", "LEN", "IDX"),
		cmd("LCS", "a"), cmd("LCS"),
		cmd("SET", "x", long), cmd("SET", "y", long[1:]+"c"), cmd("LCS", "x", "y", "LEN"),
		cmd("LCS", "x", "y", "IDX", "MINMATCHLEN", "10", "WITHMATCHLEN"),
		cmd("CONFIG", "SET", "proto-max-bulk-len", "1mb"), cmd("LCS", "x", "y", "LEN"), cmd("LCS", "a", "x", "IDX"),
		cmd("CONFIG", "SET", "proto-max-bulk-len", "512mb"),
	})
}

// infoField returns a field of INFO <section> from a raw reply.
func infoField(c *respConn, section, field string) string {
	for _, line := range strings.Split(bulkText(c.do("INFO", section)), "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// incrAOF reads the incremental AOF files of a directory (in name order).
func incrAOF(t *testing.T, dir string) []byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no incr AOF in %s: %v", dir, err)
	}
	var out []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, trimPrealloc(b)...)
	}
	return out
}

// TestDiffBitopsPropagation compares the AOF both servers write: SETBIT and
// BITFIELD are logged only when they changed something, BITOP only when it
// stored or deleted a key.
func TestDiffBitopsPropagation(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	p.run([][]string{
		cmd("SETBIT", "b", "3", "0"), cmd("SETBIT", "b", "3", "0"), cmd("SETBIT", "b", "3", "1"), cmd("SETBIT", "b", "3", "1"),
		cmd("SETBIT", "b", "20", "0"), cmd("SETBIT", "b", "x", "1"), cmd("SETBIT", "b", "1", "1"),
		cmd("BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u8", "0", "1000"), cmd("STRLEN", "f"),
		cmd("BITFIELD", "f", "SET", "u8", "0", "0", "INCRBY", "u8", "0", "0", "GET", "u8", "0"),
		cmd("BITFIELD", "f", "SET", "u8", "0", "1000", "OVERFLOW", "FAIL", "SET", "u8", "8", "1000"),
		cmd("BITFIELD", "f", "GET", "u8", "100"), cmd("BITFIELD", "f", "SET", "u8", "100", "0"), cmd("BITFIELD", "f", "INCRBY", "i4", "0", "3"),
		cmd("BITFIELD", "f", "OVERFLOW", "FAIL", "INCRBY", "i4", "0", "100"), cmd("BITFIELD_RO", "f", "GET", "i4", "0"),
		cmd("BITOP", "OR", "d", "nokey"), cmd("SET", "d", "x"), cmd("BITOP", "OR", "d", "nokey", "nokey2"),
		cmd("BITOP", "XOR", "d", "b", "f"), cmd("BITOP", "NOT", "d", "d"), cmd("BITOP", "AND", "d", "b", "nokey"),
		cmd("LCS", "b", "d"), cmd("LCS", "b", "nokey"), cmd("GETBIT", "b", "3"), cmd("GETBIT", "nokey", "3"),
		cmd("BITCOUNT", "b"), cmd("BITCOUNT", "nokey"), cmd("BITPOS", "b", "1"), cmd("BITPOS", "nokey", "1"),
		cmd("BITFIELD", "nokey", "GET", "u8", "100"), cmd("BITFIELD", "nokey2", "SET", "u8", "100", "0"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"), cmd("SET", "x1", "a", "PX", "20"), cmd("SET", "x2", "a", "PX", "20"),
		cmd("SET", "x3", "a", "PX", "20"), pause(60),
		cmd("BITOP", "OR", "x1", "b"), cmd("BITOP", "OR", "x2", "nokey"), cmd("SETBIT", "x3", "1", "0"),
		cmd("MULTI"), cmd("SETBIT", "m", "1", "1"), cmd("SETBIT", "m", "1", "1"), cmd("BITFIELD", "m", "SET", "u2", "0", "1"), cmd("EXEC"),
	})
	p.checkDigest()
	oc, rc := p.conn(0)
	for _, f := range []string{"rdb_changes_since_last_save", "keyspace_hits", "keyspace_misses"} {
		if got, want := infoField(oc, "all", f), infoField(rc, "all", f); got != want {
			t.Errorf("%s: ours %s, redis %s", f, got, want)
		}
	}
	// SET ... PX is logged with an absolute PXAT time that differs by a
	// few ms between the servers.
	pxat := regexp.MustCompile(`PXAT\r\n\$13\r\n[0-9]{13}`)
	got := pxat.ReplaceAll(incrAOF(t, p.ours.dir), []byte("PXAT"))
	want := pxat.ReplaceAll(incrAOF(t, p.real.dir), []byte("PXAT"))
	if !bytes.Equal(got, want) {
		t.Fatalf("AOF differs:\n ours:  %q\n redis: %q", got, want)
	}
}

// TestBitopsPropagatedForms checks the logged commands in-process.
func TestBitopsPropagatedForms(t *testing.T) {
	d := newDSServer(t, nil)
	d.expect(t, ":0\r\n", "SETBIT", "k", "9", "1")
	d.expect(t, ":1\r\n", "SETBIT", "k", "9", "1")
	d.expect(t, "*1\r\n$-1\r\n", "BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "8", "9")
	d.expect(t, "*2\r\n:0\r\n:1\r\n", "BITFIELD", "k", "SET", "u1", "0", "0", "INCRBY", "u1", "0", "1")
	d.expect(t, ":0\r\n", "BITOP", "AND", "dst", "missing")
	d.expect(t, ":2\r\n", "BITOP", "NOT", "dst", "k")
	want := []string{"SETBIT k 9 1", "BITFIELD k SET u1 0 0 INCRBY u1 0 1", "BITOP NOT dst k"}
	if got := d.ops(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("propagated %q, want %q", got, want)
	}
}

// randBitCmd returns a random bitmap/LCS command over a few keys.
func randBitCmd(r *rand.Rand) []string {
	keys := []string{"k0", "k1", "k2", "k3"}
	key := func() string {
		if r.IntN(30) == 0 {
			return "list"
		}
		return keys[r.IntN(len(keys))]
	}
	num := func(lo, hi int) string { return strconv.Itoa(lo + r.IntN(hi-lo+1)) }
	bigs := []string{"0", "1", "-1", "127", "-128", "255", "256", "9223372036854775807", "-9223372036854775808",
		"4611686018427387904", "-4611686018427387905", "65535", "-32769"}
	val := func() string {
		if r.IntN(3) == 0 {
			return bigs[r.IntN(len(bigs))]
		}
		return strconv.FormatInt(r.Int64N(2000)-1000, 10)
	}
	unit := func() []string {
		switch r.IntN(3) {
		case 0:
			return []string{"BIT"}
		case 1:
			return []string{"byte"}
		}
		return nil
	}
	switch r.IntN(14) {
	case 0:
		n := r.IntN(12)
		b := make([]byte, n)
		alpha := []byte{0, 0xff, 'a', 'b', '1', 0x80, 0x01, 0x7f}
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = alpha[r.IntN(len(alpha))]
			} else {
				b[i] = byte(r.IntN(256))
			}
		}
		if r.IntN(4) == 0 {
			return cmd("SET", key(), num(-999, 99999))
		}
		return cmd("SET", key(), string(b))
	case 1, 2:
		return cmd("SETBIT", key(), num(0, 120), num(0, 1))
	case 3:
		return cmd("GETBIT", key(), num(0, 130))
	case 4:
		switch r.IntN(3) {
		case 0:
			return cmd("BITCOUNT", key())
		case 1:
			return cmd("BITCOUNT", key(), num(-20, 20), num(-20, 20))
		}
		return append(cmd("BITCOUNT", key(), num(-130, 130), num(-130, 130)), unit()...)
	case 5, 6:
		c := cmd("BITPOS", key(), num(0, 1))
		switch r.IntN(4) {
		case 0:
			return c
		case 1:
			return append(c, num(-20, 20))
		case 2:
			return append(c, num(-20, 20), num(-20, 20))
		}
		return append(append(c, num(-130, 130), num(-130, 130)), unit()...)
	case 7:
		ops := []string{"AND", "OR", "XOR", "NOT", "and"}
		op := ops[r.IntN(len(ops))]
		c := cmd("BITOP", op, key())
		n := 1 + r.IntN(3)
		if op == "NOT" {
			n = 1
		}
		for i := 0; i < n; i++ {
			if r.IntN(5) == 0 {
				c = append(c, "missing")
			} else {
				c = append(c, key())
			}
		}
		return c
	case 8, 9, 10:
		name := "BITFIELD"
		c := cmd(name, key())
		for n := r.IntN(4) + 1; n > 0; n-- {
			w := 1 + r.IntN(64)
			typ := "i" + strconv.Itoa(w)
			if r.IntN(2) == 0 && w < 64 {
				typ = "u" + strconv.Itoa(w)
			}
			off := num(0, 90)
			if r.IntN(4) == 0 {
				off = "#" + num(0, 6)
			}
			switch r.IntN(5) {
			case 0:
				ows := []string{"WRAP", "SAT", "FAIL"}
				c = append(c, "OVERFLOW", ows[r.IntN(3)])
			case 1, 2:
				c = append(c, "GET", typ, off)
			case 3:
				c = append(c, "SET", typ, off, val())
			default:
				c = append(c, "INCRBY", typ, off, val())
			}
		}
		return c
	case 11:
		c := cmd("BITFIELD_RO", key())
		for n := r.IntN(3); n > 0; n-- {
			c = append(c, "GET", "i"+num(1, 64), num(0, 100))
		}
		return c
	case 12:
		c := cmd("LCS", key(), key())
		switch r.IntN(4) {
		case 0:
			c = append(c, "LEN")
		case 1:
			c = append(c, "IDX")
			if r.IntN(2) == 0 {
				c = append(c, "MINMATCHLEN", num(0, 3))
			}
			if r.IntN(2) == 0 {
				c = append(c, "WITHMATCHLEN")
			}
		}
		return c
	}
	switch r.IntN(4) {
	case 0:
		return cmd("OBJECT", "ENCODING", key())
	case 1:
		return cmd("PEXPIREAT", key(), "4102444800000")
	case 2:
		return cmd("PEXPIRETIME", key())
	}
	return cmd("GET", key())
}

func TestDiffBitopsRandom(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	p.run([][]string{cmd("RPUSH", "list", "x")})
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		var cmds [][]string
		for i := 0; i < 600; i++ {
			cmds = append(cmds, randBitCmd(r))
		}
		p.run(cmds)
		p.checkDigest()
	}
	oc, rc := p.conn(0)
	if got, want := infoField(oc, "persistence", "rdb_changes_since_last_save"), infoField(rc, "persistence", "rdb_changes_since_last_save"); got != want {
		t.Fatalf("dirty: ours %s, redis %s", got, want)
	}
	if got, want := incrAOF(t, p.ours.dir), incrAOF(t, p.real.dir); !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\r\n"), strings.Split(string(want), "\r\n")
		for i := range g {
			if i < len(w) && g[i] != w[i] {
				t.Fatalf("AOF differs at line %d: ours %q, redis %q\n%q", i, g[i], w[i], g[max(0, i-30):i+1])
			}
		}
		t.Fatalf("AOF differs (%d vs %d bytes)", len(got), len(want))
	}
	// The log replays to the same dataset.
	want := rc.do("DEBUG", "DIGEST")
	cp := t.TempDir()
	copyDir(t, p.real.dir, cp)
	ts := startOurServer(t, "--appendonly", "yes", "--dir", cp)
	if got := digestOf(t, ts.addr); got != want {
		t.Fatalf("digest after replaying the AOF %q, want %q", got, want)
	}
}

// TestDiffBitopsCommandInfo compares name, arity, flags, key positions and
// ACL categories of the new commands with Redis's COMMAND INFO.
func TestDiffBitopsCommandInfo(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	for _, name := range []string{"setbit", "getbit", "bitcount", "bitpos", "bitop", "bitfield", "bitfield_ro", "lcs"} {
		inner := func(raw string) []string {
			_, outer, ok := splitRaw(raw)
			if !ok || len(outer) != 1 {
				t.Fatalf("%s: COMMAND INFO %q", name, raw)
			}
			_, elems, ok := splitRaw(outer[0])
			if !ok || len(elems) < 7 {
				t.Fatalf("%s: COMMAND INFO %q", name, raw)
			}
			return elems[:7]
		}
		got, want := inner(oc.do("COMMAND", "INFO", name)), inner(rc.do("COMMAND", "INFO", name))
		if strings.Join(got, "") != strings.Join(want, "") {
			t.Errorf("%s: ours %q, redis %q", name, got, want)
		}
	}
}

// TestDiffBitopsWatch: unchanged SETBIT/BITFIELD writes do not touch a
// watched key, real changes do.
func TestDiffBitopsWatch(t *testing.T) {
	diff(t, [][]string{
		cmd("SETBIT", "k", "5", "1"),
		cmd("WATCH", "k"), conn2("SETBIT", "k", "5", "1"), conn2("BITFIELD", "k", "SET", "u1", "5", "1"), cmd("MULTI"), cmd("GET", "k"), cmd("EXEC"),
		cmd("WATCH", "k"), conn2("BITFIELD", "k", "INCRBY", "u1", "5", "1"), cmd("MULTI"), cmd("GET", "k"), cmd("EXEC"),
		cmd("WATCH", "d"), conn2("BITOP", "OR", "d", "nokey"), cmd("MULTI"), cmd("GET", "k"), cmd("EXEC"),
		cmd("WATCH", "d"), conn2("BITOP", "OR", "d", "k"), cmd("MULTI"), cmd("GET", "k"), cmd("EXEC"),
		cmd("WATCH", "k"), conn2("SETBIT", "k", "5", "0"), cmd("MULTI"), cmd("GET", "k"), cmd("EXEC"),
	})
}
