package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// collector is a Visitor that records everything.
type collector struct {
	aux       [][2]string
	dbs       []int
	resizes   [][2]uint64
	functions []string
	keys      []keyRec
}

type keyRec struct {
	db     int
	key    string
	v      *Value
	expire int64
}

func (c *collector) Aux(k, v []byte) error {
	c.aux = append(c.aux, [2]string{string(k), string(v)})
	return nil
}
func (c *collector) SelectDB(db int) error { c.dbs = append(c.dbs, db); return nil }
func (c *collector) ResizeDB(a, b uint64) error {
	c.resizes = append(c.resizes, [2]uint64{a, b})
	return nil
}
func (c *collector) Function(code []byte) error {
	c.functions = append(c.functions, string(code))
	return nil
}
func (c *collector) Key(db int, k []byte, v *Value, e int64) error {
	c.keys = append(c.keys, keyRec{db, string(k), v, e})
	return nil
}

func (c *collector) find(t *testing.T, db int, key string) keyRec {
	t.Helper()
	for _, k := range c.keys {
		if k.db == db && k.key == key {
			return k
		}
	}
	t.Fatalf("key %q not found in db %d", key, db)
	return keyRec{}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeBytes(b []byte, opt DecodeOptions) (*collector, int64, error) {
	c := &collector{}
	n, err := Decode(bufio.NewReader(bytes.NewReader(b)), c, opt)
	return c, n, err
}

func strs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func eqStrings(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestDecodeHandmade(t *testing.T) {
	for _, name := range []string{"handmade-plain-types.rdb", "handmade-plain-types-nocrc-noaux.rdb"} {
		t.Run(name, func(t *testing.T) {
			file := readTestdata(t, name)
			c, n, err := decodeBytes(file, DecodeOptions{MaxDatabases: 16})
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(file)) {
				t.Fatalf("consumed %d of %d bytes", n, len(file))
			}
			if name == "handmade-plain-types.rdb" {
				want := [][2]string{{"redis-ver", "7.0.15"}, {"aof-base", "1"}}
				if len(c.aux) != 2 || c.aux[0] != want[0] || c.aux[1] != want[1] {
					t.Fatalf("aux = %v", c.aux)
				}
			} else if len(c.aux) != 0 {
				t.Fatalf("aux = %v", c.aux)
			}
			if len(c.keys) != 7 || len(c.dbs) != 2 || c.dbs[1] != 1 || c.resizes[0] != [2]uint64{6, 1} {
				t.Fatalf("keys=%d dbs=%v resizes=%v", len(c.keys), c.dbs, c.resizes)
			}
			if k := c.find(t, 0, "pstr"); string(k.v.Str) != "hello" || k.expire != -1 || k.v.Kind != KindString {
				t.Errorf("pstr = %+v", k)
			}
			if k := c.find(t, 0, "pttl"); string(k.v.Str) != "v" || k.expire != 4102444800000 {
				t.Errorf("pttl = %+v", k)
			}
			if k := c.find(t, 0, "plist"); k.v.Kind != KindList || k.v.Encoding != EncQuicklist || !eqStrings(k.v.List, strs("a", "b", "3")) {
				t.Errorf("plist = %+v", k.v)
			}
			if k := c.find(t, 0, "pset"); k.v.Kind != KindSet || k.v.Encoding != EncHashtable || !eqStrings(k.v.Set, strs("1", "x", "2")) {
				t.Errorf("pset = %+v", k.v)
			}
			k := c.find(t, 0, "pzset")
			if k.v.Kind != KindZSet || k.v.Encoding != EncSkiplist || len(k.v.ZSet) != 2 ||
				string(k.v.ZSet[0].Member) != "m1" || k.v.ZSet[0].Score != 1.5 ||
				string(k.v.ZSet[1].Member) != "m2" || k.v.ZSet[1].Score != -2 {
				t.Errorf("pzset = %+v", k.v)
			}
			k = c.find(t, 0, "phash")
			if k.v.Kind != KindHash || k.v.Encoding != EncHashtable || len(k.v.Hash) != 2 ||
				string(k.v.Hash[0][0]) != "f1" || string(k.v.Hash[0][1]) != "v1" ||
				string(k.v.Hash[1][0]) != "f2" || string(k.v.Hash[1][1]) != "2" {
				t.Errorf("phash = %+v", k.v)
			}
			if k := c.find(t, 1, "indb1"); string(k.v.Str) != "x" {
				t.Errorf("indb1 = %+v", k)
			}
		})
	}
}

func TestDecodeEmptyBase(t *testing.T) {
	file := readTestdata(t, "empty-aof-base.rdb")
	c, n, err := decodeBytes(file, DecodeOptions{})
	if err != nil || n != 89 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	want := [][2]string{{"redis-ver", "7.0.15"}, {"redis-bits", "64"}, {"ctime", "1796197758"}, {"used-mem", "876816"}, {"aof-base", "1"}}
	if len(c.aux) != len(want) {
		t.Fatalf("aux = %v", c.aux)
	}
	for i := range want {
		if c.aux[i] != want[i] {
			t.Errorf("aux[%d] = %v, want %v", i, c.aux[i], want[i])
		}
	}
	if len(c.keys) != 0 || len(c.dbs) != 0 {
		t.Fatalf("unexpected keys %v dbs %v", c.keys, c.dbs)
	}
	// Re-encode the same header: the file must come out identical.
	var buf bytes.Buffer
	e := NewEncoder(&buf, EncoderOptions{Compression: true, Checksum: true, Limits: DefaultLimits()})
	if err := e.Header(StandardAux(1796197758, 876816, true)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), file) {
		t.Fatalf("encoded\n%x\nwant\n%x", buf.Bytes(), file)
	}
	if e.Written() != int64(len(file)) {
		t.Fatalf("Written = %d", e.Written())
	}
}

func TestDecodeStreamsLoaded(t *testing.T) {
	cases := []struct {
		file    string
		streams []string
		keys    int // keys seen, streams included
	}{
		{"alltypes-aof-base.rdb", []string{"s2", "st"}, 19 + 1 + 4},
		{"rich-dump.rdb", []string{"emptystream", "bigstream"}, 22 + 1},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			file := readTestdata(t, tc.file)
			c, n, err := decodeBytes(file, DecodeOptions{MaxDatabases: 16})
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(file)) {
				t.Fatalf("consumed %d of %d", n, len(file))
			}
			if len(c.keys) != tc.keys {
				t.Fatalf("saw %d keys, want %d", len(c.keys), tc.keys)
			}
			for _, name := range tc.streams {
				found := false
				for _, kr := range c.keys {
					if kr.key == name {
						found = true
						if kr.v.Kind != KindStream || kr.v.Encoding != EncStream || kr.v.Stream == nil {
							t.Errorf("%s: kind %s enc %s", name, kr.v.Kind, kr.v.Encoding)
						}
					}
				}
				if !found {
					t.Errorf("stream %q not delivered", name)
				}
			}
		})
	}
}

func TestDecodeRichValues(t *testing.T) {
	c, _, err := decodeBytes(readTestdata(t, "rich-dump.rdb"), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if es := c.find(t, 0, "emptystream").v; es.Kind != KindStream || len(es.Stream.Entries) != 0 {
		t.Errorf("emptystream = %+v", es)
	}
	// bigstream: 150 XADDs and one XDEL, whose tombstone Redis keeps.
	if bs := c.find(t, 0, "bigstream").v.Stream; len(bs.Entries) != 149 || bs.EntriesAdded != 150 || bs.LastID != (StreamID{Ms: 150}) {
		t.Errorf("bigstream: %d entries, %d added, last %v", len(bs.Entries), bs.EntriesAdded, bs.LastID)
	}
	checkStr := func(key, want string) {
		if k := c.find(t, 0, key); k.v.Kind != KindString || string(k.v.Str) != want {
			t.Errorf("%s = %q, want %q", key, k.v.Str, want)
		}
	}
	checkStr("i8", "100")
	checkStr("i16", "1000")
	checkStr("i32", "100000")
	checkStr("i64", "10000000000")
	checkStr("neg", "-5")
	checkStr("lead0", "007")
	checkStr("123", "int-key")
	checkStr("lzf", string(bytes.Repeat([]byte("abcdefgh"), 40)))
	checkStr("bin", "a\x00b\xff")
	if k := c.find(t, 0, "exp"); k.expire != 4102444800000 {
		t.Errorf("exp expire = %d", k.expire)
	}
	if k := c.find(t, 9, "indb9"); string(k.v.Str) != "x" {
		t.Errorf("indb9 = %q", k.v.Str)
	}
	bz := c.find(t, 0, "bigzset").v
	if bz.Encoding != EncSkiplist || len(bz.ZSet) != 200 || string(bz.ZSet[0].Member) != "member200" || bz.ZSet[0].Score != 300 {
		t.Errorf("bigzset: enc %s len %d first %+v", bz.Encoding, len(bz.ZSet), bz.ZSet[0])
	}
	zi := c.find(t, 0, "zinf").v
	if zi.Encoding != EncListpack || len(zi.ZSet) != 3 || string(zi.ZSet[0].Member) != "bottom" || zi.ZSet[0].Score > -1e308 ||
		string(zi.ZSet[2].Member) != "top" || zi.ZSet[2].Score < 1e308 {
		t.Errorf("zinf = %+v", zi.ZSet)
	}
	bh := c.find(t, 0, "bighash").v
	if bh.Encoding != EncHashtable || len(bh.Hash) != 600 {
		t.Errorf("bighash: %s %d", bh.Encoding, len(bh.Hash))
	}
	seen := map[string]string{}
	for _, fv := range bh.Hash {
		seen[string(fv[0])] = string(fv[1])
	}
	if len(seen) != 600 || seen["field1"] != "value1" || seen["field600"] != "value600" {
		t.Errorf("bighash content wrong")
	}
	if s := c.find(t, 0, "bigintset").v; s.Encoding != EncHashtable || len(s.Set) != 600 {
		t.Errorf("bigintset: %s %d", s.Encoding, len(s.Set))
	}
	if s := c.find(t, 0, "smallintset").v; s.Encoding != EncIntset || !eqStrings(s.Set, strs("-3", "1", "70000")) {
		t.Errorf("smallintset: %+v", s)
	}
	if s := c.find(t, 0, "int64set").v; s.Encoding != EncIntset || !eqStrings(s.Set, strs("1", "5000000000")) {
		t.Errorf("int64set: %+v", s)
	}
	if l := c.find(t, 0, "smalllist").v; !eqStrings(l.List, strs("a", "1", "300", "-70000", "5000000000")) {
		t.Errorf("smalllist: %q", l.List)
	}
	bl := c.find(t, 0, "biglist").v
	if len(bl.List) != 1000 {
		t.Fatalf("biglist len %d", len(bl.List))
	}
	for i, e := range bl.List {
		want := string(bytes.Repeat([]byte("x"), 90)) + itoa(i+1)
		if string(e) != want {
			t.Fatalf("biglist[%d] = %q", i, e)
		}
	}
}

func itoa(i int) string { return string(formatInt(int64(i))) }

// encodeKey returns what Encoder.Key writes for one key.
func encodeKey(t testing.TB, opt EncoderOptions, k keyRec) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := NewEncoder(&buf, opt)
	if err := e.Key([]byte(k.key), k.v, k.expire); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGoldenKeysByteExact re-encodes every key Redis wrote (with the
// encoding and element order found in the file) and requires the exact
// bytes to appear in the file.
func TestGoldenKeysByteExact(t *testing.T) {
	for _, tc := range []struct {
		file  string
		depth int
	}{{"alltypes-aof-base.rdb", 0}, {"rich-dump.rdb", 1}} {
		t.Run(tc.file, func(t *testing.T) {
			file := readTestdata(t, tc.file)
			c, _, _ := decodeBytes(file, DecodeOptions{})
			lim := DefaultLimits()
			lim.ListCompressDepth = tc.depth
			opt := EncoderOptions{Compression: true, Checksum: true, Limits: lim}
			if len(c.keys) < 10 {
				t.Fatalf("only %d keys", len(c.keys))
			}
			for _, k := range c.keys {
				if s := k.v.Stream; s != nil && (s.MaxDeletedID != StreamID{} || s.EntriesAdded != uint64(len(s.Entries))) {
					continue // Redis keeps XDEL tombstones in the nodes; we write live entries only
				}
				enc := encodeKey(t, opt, k)
				if !bytes.Contains(file, enc) {
					t.Errorf("key %q (%s/%s): encoded bytes not found in file:\n%x", k.key, k.v.Kind, k.v.Encoding, enc[:min(len(enc), 200)])
				}
			}
		})
	}
}

func TestGoldenLZF(t *testing.T) {
	// Spec §7.3: SET big <72 x 'a'> is stored as c3 09 40 48 01 61 61 e0 3b 00 01 61 61.
	w := &valueWriter{compression: true}
	got := w.appendString(nil, bytes.Repeat([]byte("a"), 72))
	want := []byte{0xc3, 0x09, 0x40, 0x48, 0x01, 0x61, 0x61, 0xe0, 0x3b, 0x00, 0x01, 0x61, 0x61}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
}

func TestCRC64Vectors(t *testing.T) {
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64(123456789) = %x", got)
	}
	file := readTestdata(t, "empty-aof-base.rdb")
	if got := CRC64(0, file[:81]); got != 0x808d7bd1f8f87fd9 || got != binary.LittleEndian.Uint64(file[81:]) {
		t.Fatalf("file crc = %x", got)
	}
	// Incremental equals one-shot, across the slicing-by-8 boundary.
	data := bytes.Repeat([]byte("redis rdb crc64 "), 100)
	for split := 0; split < 40; split++ {
		if CRC64(CRC64(0, data[:split]), data[split:]) != CRC64(0, data) {
			t.Fatalf("split %d differs", split)
		}
	}
}
