package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/listpack"
)

// rdbFile wraps body in a header for version ver and, for ver >= 5, the
// EOF opcode and a real checksum.
func rdbFile(ver string, body ...[]byte) []byte {
	b := []byte("REDIS" + ver)
	for _, p := range body {
		b = append(b, p...)
	}
	b = append(b, opEOF)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

func rawStr(s string) []byte { return append([]byte{byte(len(s))}, s...) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// ziplist builds a ziplist from pre-encoded entries (encoding+data).
func ziplist(entries ...[]byte) []byte {
	var body []byte
	prev, tail := 0, zlHeaderSize
	for _, e := range entries {
		tail = zlHeaderSize + len(body)
		var pl []byte
		if prev < 254 {
			pl = []byte{byte(prev)}
		} else {
			pl = binary.LittleEndian.AppendUint32([]byte{0xFE}, uint32(prev))
		}
		ent := append(pl, e...)
		body = append(body, ent...)
		prev = len(ent)
	}
	zl := make([]byte, 10)
	zl = append(zl, body...)
	zl = append(zl, 0xFF)
	binary.LittleEndian.PutUint32(zl, uint32(len(zl)))
	binary.LittleEndian.PutUint32(zl[4:], uint32(tail))
	binary.LittleEndian.PutUint16(zl[8:], uint16(len(entries)))
	return zl
}

func zlStr(s string) []byte { return append([]byte{byte(len(s))}, s...) }

func blob(b []byte) []byte { return append(appendLen(nil, uint64(len(b))), b...) }

func TestDecodeLegacyEncodings(t *testing.T) {
	// Spec §7.8 example: ["2","5"].
	spec := []byte{0x0f, 0, 0, 0, 0x0c, 0, 0, 0, 0x02, 0, 0x00, 0xf3, 0x02, 0xf6, 0xff}
	zlInts := ziplist(
		[]byte{0xFE, 0x80},             // int8 -128
		[]byte{0xC0, 0x00, 0x80},       // int16 -32768
		[]byte{0xF0, 0xff, 0xff, 0x7f}, // int24 8388607
		[]byte{0xF0, 0x00, 0x00, 0x80}, // int24 -8388608
		[]byte{0xD0, 0xff, 0xff, 0xff, 0x7f},
		append([]byte{0xE0}, binary.LittleEndian.AppendUint64(nil, uint64(math.MaxInt64))...),
		[]byte{0xF1}, []byte{0xFD},
		append([]byte{0x40 | 1, 0x2C}, strings.Repeat("L", 300)...), // 14-bit length, prevlen of next is 5 bytes
		zlStr("end"),
	)
	zipmap := []byte{2, 2, 'f', '1', 2, 0, 'v', '1', 1, 'g', 3, 2, 'x', 'y', 'z', 0, 0, 0xFF} // second value has 2 free bytes
	oldFn := cat([]byte{opFunction}, rawStr("mylib"), rawStr("LUA"), []byte{1}, rawStr("desc"), rawStr("return 1"))
	file := rdbFile("0009",
		[]byte{opAux}, rawStr("x"), rawStr("y"),
		oldFn,
		[]byte{opSelectDB, 0},
		[]byte{opExpireTime}, binary.LittleEndian.AppendUint32(nil, 2000000000),
		[]byte{opIdle, 0x40, 0x10}, []byte{opFreq, 7},
		[]byte{typeListZiplist}, rawStr("zl"), blob(spec),
		[]byte{typeListZiplist}, rawStr("zlints"), blob(zlInts),
		[]byte{typeHashZipmap}, rawStr("zm"), blob(zipmap),
		[]byte{typeZSetZiplist}, rawStr("zz"), blob(ziplist(zlStr("a"), zlStr("1.5"), zlStr("b"), []byte{0xF3})),
		[]byte{typeHashZiplist}, rawStr("hz"), blob(ziplist(zlStr("f"), zlStr("v"))),
		[]byte{typeListQuicklist}, rawStr("ql1"), []byte{3}, blob(ziplist(zlStr("a"))), blob(ziplist()), blob(ziplist(zlStr("b"), []byte{0xF5})),
		[]byte{typeZSet}, rawStr("z3"), []byte{3}, rawStr("m"), rawStr("1.5"), rawStr("n"), []byte{255}, rawStr("o"), []byte{254},
		[]byte{typeList}, rawStr("l1"), []byte{2}, rawStr("x"), []byte{0xC0, 0xFB},
		[]byte{typeListQuicklist2}, rawStr("plain"), []byte{2, quicklistPlain}, rawStr("big element"), []byte{quicklistPacked}, blob(ziplistFreeListpack("z", "7")),
		[]byte{typeSet}, rawStr("empty"), []byte{0},
		[]byte{typeHashListpack}, rawStr("emptylp"), blob(ziplistFreeListpack()),
		[]byte{typeString}, rawStr("after"), rawStr("ok"),
	)
	c, n, err := decodeBytes(file, DecodeOptions{})
	if err != nil || n != int64(len(file)) {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if len(c.functions) != 1 || c.functions[0] != "#!LUA name=mylib\nreturn 1" {
		t.Fatalf("functions = %q", c.functions)
	}
	check := func(key string, kind Kind, enc Encoding, want string) keyRec {
		t.Helper()
		k := c.find(t, 0, key)
		if k.v.Kind != kind || k.v.Encoding != enc {
			t.Errorf("%s: %s/%s", key, k.v.Kind, k.v.Encoding)
		}
		var got string
		switch kind {
		case KindList:
			got = string(bytes.Join(k.v.List, []byte(",")))
		case KindHash:
			for _, fv := range k.v.Hash {
				got += string(fv[0]) + "=" + string(fv[1]) + ","
			}
		case KindZSet:
			for _, m := range k.v.ZSet {
				got += string(m.Member) + "=" + string(appendD2String(nil, m.Score)) + ","
			}
		case KindString:
			got = string(k.v.Str)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
		return k
	}
	if k := check("zl", KindList, EncQuicklist, "2,5"); k.expire != 2000000000000 {
		t.Errorf("EXPIRETIME seconds -> %d", k.expire)
	}
	check("zlints", KindList, EncQuicklist, "-128,-32768,8388607,-8388608,2147483647,9223372036854775807,0,12,"+strings.Repeat("L", 300)+",end")
	if k := check("zm", KindHash, EncListpack, "f1=v1,g=xyz,"); k.expire != -1 {
		t.Error("expire leaked to the next key")
	}
	check("zz", KindZSet, EncListpack, "a=1.5,b=2,")
	check("hz", KindHash, EncListpack, "f=v,")
	check("ql1", KindList, EncQuicklist, "a,b,4")
	check("z3", KindZSet, EncSkiplist, "m=1.5,n=-inf,o=inf,")
	check("l1", KindList, EncQuicklist, "x,-5")
	check("plain", KindList, EncQuicklist, "big element,z,7")
	check("after", KindString, EncAuto, "ok")
	for _, k := range c.keys {
		if k.key == "empty" || k.key == "emptylp" {
			t.Errorf("empty collection %q delivered", k.key)
		}
	}
}

// ziplistFreeListpack builds a listpack with the package's builder.
func ziplistFreeListpack(items ...string) []byte {
	var b listpack.Builder
	b.Begin(nil)
	for _, s := range items {
		b.AppendString([]byte(s))
	}
	return b.Finish()
}

func TestDecodeOldVersionNoChecksum(t *testing.T) {
	// Version 4 has no checksum: Decode stops right after EOF, leaving the rest.
	file := []byte("REDIS0004")
	file = append(file, cat([]byte{typeString}, rawStr("k"), rawStr("v"), []byte{opEOF})...)
	tail := []byte("*1\r\n$4\r\nPING\r\n")
	c, n, err := decodeBytes(append(file, tail...), DecodeOptions{})
	if err != nil || n != int64(len(file)) || len(c.keys) != 1 {
		t.Fatalf("n=%d err=%v keys=%d", n, err, len(c.keys))
	}
}

func TestDecodeStopsAfterChecksum(t *testing.T) {
	file := readTestdata(t, "handmade-plain-types.rdb")
	tail := []byte("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n")
	r := bufioReader(append(append([]byte{}, file...), tail...))
	n, err := Decode(r, &collector{}, DecodeOptions{})
	if err != nil || n != int64(len(file)) {
		t.Fatalf("n=%d err=%v", n, err)
	}
	rest, _ := io.ReadAll(r)
	if !bytes.Equal(rest, tail) {
		t.Fatalf("rest = %q", rest)
	}
}

func TestDecodeModules(t *testing.T) {
	modBody := cat([]byte{len64}, make([]byte, 8), // module id
		[]byte{1, 5}, []byte{2, 6}, []byte{3}, make([]byte, 4), []byte{4}, make([]byte, 8), []byte{5}, rawStr("s"), []byte{0})
	moduleAux := cat([]byte{opModuleAux, 1, 2, 1}, []byte{5}, rawStr("x"), []byte{0})
	file := rdbFile("0010", moduleAux, []byte{typeModule2}, rawStr("m"), modBody, []byte{typeString}, rawStr("k"), rawStr("v"))
	c, n, err := decodeBytes(file, DecodeOptions{})
	var ue *UnsupportedTypeError
	if !errors.As(err, &ue) || ue.Type != opModuleAux || n != int64(len(file)) {
		t.Fatalf("err=%v n=%d", err, n)
	}
	if len(ue.Keys) != 1 || ue.Keys[0] != "m" || len(c.keys) != 1 || c.keys[0].key != "k" {
		t.Fatalf("Keys=%v keys=%v", ue.Keys, c.keys)
	}
	// A module v1 value cannot be skipped: decoding stops there.
	file = rdbFile("0010", []byte{typeString}, rawStr("a"), rawStr("1"), []byte{typeModule}, rawStr("m1"), []byte{1, 2, 3})
	c, _, err = decodeBytes(file, DecodeOptions{})
	if !errors.As(err, &ue) || ue.Key != "m1" || ue.Name != "module" || len(c.keys) != 1 {
		t.Fatalf("err=%v keys=%d", err, len(c.keys))
	}
	// RDB 11+ types.
	file = rdbFile("0010", []byte{20}, rawStr("sl"), []byte{1, 2})
	if _, _, err = decodeBytes(file, DecodeOptions{}); !errors.As(err, &ue) || ue.Type != 20 ||
		!strings.Contains(err.Error(), `key "sl"`) {
		t.Fatalf("err=%v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	good := readTestdata(t, "handmade-plain-types.rdb")
	cases := []struct {
		name  string
		file  []byte
		opt   DecodeOptions
		check func(error) bool
		text  string
	}{
		{"version 11", append([]byte("REDIS0011"), good[9:]...), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrUnsupportedVersion) }, "Can't handle RDB format version 11"},
		{"version 0", []byte("REDIS0000\xff"), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrUnsupportedVersion) }, "version 0"},
		{"magic", append([]byte("RADIS"), good[5:]...), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "Wrong signature trying to load DB from file"},
		{"short magic", []byte("RED"), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "Wrong signature"},
		{"checksum", append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^1), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "Wrong RDB checksum expected: (ffea82c9f6e4b119) but got (feea82c9f6e4b119)"},
		{"databases", good, DecodeOptions{MaxDatabases: 1},
			func(err error) bool { return err != nil }, "configured to handle more than 1 databases"},
		{"unknown type 8", rdbFile("0010", []byte{8}, rawStr("k")), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, `key "k"`},
		{"bad length 0x82", rdbFile("0010", []byte{typeString, 0x82}), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "unknown length encoding 0x82"},
		{"bad string enc", rdbFile("0010", []byte{typeString, 1, 'k', 0xC4}), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "unknown RDB string encoding type 4"},
		{"bad lzf", rdbFile("0010", []byte{typeString, 1, 'k', 0xC3, 2, 5, 0x05, 'a'}), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "invalid LZF"},
		{"bad listpack", rdbFile("0010", []byte{typeHashListpack}, rawStr("k"), blob([]byte{9, 0, 0, 0, 0, 0, 0x81, 'a', 0xFF})), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "listpack"},
		{"odd hash listpack", rdbFile("0010", []byte{typeHashListpack}, rawStr("k"), blob(ziplistFreeListpack("a"))), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "odd number"},
		{"empty intset", rdbFile("0010", []byte{typeSetIntset}, rawStr("k"), blob([]byte{2, 0, 0, 0, 0, 0, 0, 0})), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "Intset"},
		{"unsorted intset", rdbFile("0010", []byte{typeSetIntset}, rawStr("k"), blob([]byte{2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 5, 0})), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "Intset"},
		{"bad node container", rdbFile("0010", []byte{typeListQuicklist2}, rawStr("k"), []byte{1, 3}, rawStr("x")), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "container 3"},
		{"bad score", rdbFile("0010", []byte{typeZSet}, rawStr("k"), []byte{1}, rawStr("m"), rawStr("abc")), DecodeOptions{},
			func(err error) bool { return errors.Is(err, ErrCorrupt) }, "score"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := decodeBytes(tc.file, tc.opt)
			if err == nil || !tc.check(err) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want %q", err, tc.text)
			}
		})
	}
	// A zero checksum is accepted.
	noCRC := append(append([]byte{}, good[:len(good)-8]...), make([]byte, 8)...)
	if _, _, err := decodeBytes(noCRC, DecodeOptions{}); err != nil {
		t.Fatalf("zero checksum: %v", err)
	}
}

func TestParseDumpPayloadErrors(t *testing.T) {
	v := &Value{Kind: KindString, Str: []byte("hello")}
	p := DumpPayload(v, EncoderOptions{})
	if want := []byte{0, 5, 'h', 'e', 'l', 'l', 'o', 10, 0}; !bytes.Equal(p[:9], want) {
		t.Fatalf("payload %x", p)
	}
	bad := func(mut func([]byte) []byte) error {
		q := mut(append([]byte{}, p...))
		_, err := ParseDumpPayload(q)
		return err
	}
	reseal := func(q []byte) []byte {
		binary.LittleEndian.PutUint64(q[len(q)-8:], CRC64(0, q[:len(q)-8]))
		return q
	}
	for name, err := range map[string]error{
		"short":    bad(func(q []byte) []byte { return q[:9] }),
		"crc":      bad(func(q []byte) []byte { q[2] ^= 1; return q }),
		"version":  bad(func(q []byte) []byte { q[len(q)-10] = 11; return reseal(q) }),
		"zero crc": bad(func(q []byte) []byte { clear(q[len(q)-8:]); return q }),
	} {
		if !errors.Is(err, ErrDumpVersionOrChecksum) || err.Error() != "ERR DUMP payload version or checksum are wrong" {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, err := range map[string]error{
		"type 8":    bad(func(q []byte) []byte { q[0] = 8; return reseal(q) }),
		"truncated": bad(func(q []byte) []byte { return reseal(append(q[:3], q[len(q)-10:]...)) }),
		"empty set": bad(func(q []byte) []byte { return reseal(append([]byte{typeSet, 0}, q[len(q)-10:]...)) }),
		"opcode":    bad(func(q []byte) []byte { q[0] = opEOF; return reseal(q) }),
		"no body":   bad(func(q []byte) []byte { return reseal(q[len(q)-10:]) }),
	} {
		if !errors.Is(err, ErrBadDataFormat) || err.Error() != "ERR Bad data format" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := bad(func(q []byte) []byte { return reseal(append([]byte{typeString, 0x82}, q[len(q)-10:]...)) }); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad data should wrap the corruption: %v", err)
	}
	// Old version numbers are fine.
	if _, err := ParseDumpPayload(reseal(append([]byte{}, append(p[:len(p)-10], 6, 0, 0, 0, 0, 0, 0, 0, 0, 0)...))); err != nil {
		t.Errorf("version 6 payload: %v", err)
	}
	// An all-zero stream is an empty stream, which RESTORE accepts.
	st := reseal(append([]byte{typeStreamListpacks2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, p[len(p)-10:]...))
	if v, err := ParseDumpPayload(st); err != nil || v.Kind != KindStream || len(v.Stream.Entries) != 0 {
		t.Errorf("stream payload: %v", err)
	}
	// Module values are reported as unsupported.
	md := reseal(append([]byte{typeModule2, 0, 0}, p[len(p)-10:]...))
	if _, err := ParseDumpPayload(md); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("module payload: %v", err)
	}
}
