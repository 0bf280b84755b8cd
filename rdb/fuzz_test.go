package rdb

import (
	"encoding/binary"
	"errors"
	"testing"
)

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"alltypes-aof-base.rdb", "empty-aof-base.rdb", "handmade-plain-types.rdb", "handmade-plain-types-nocrc-noaux.rdb"} {
		f.Add(readTestdata(f, name))
	}
	f.Add(sampleFile(f))
	f.Add([]byte("REDIS0009\xff"))
	for _, p := range sampleStreamPayloads() {
		f.Add(streamFile(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &collector{}
		n, err := Decode(bufioReader(data), c, DecodeOptions{MaxDatabases: 16})
		if n < 0 || n > int64(len(data)) {
			t.Fatalf("consumed %d of %d", n, len(data))
		}
		if err != nil {
			var ce *CorruptionError
			if errors.As(err, &ce) && (ce.Offset < 0 || ce.Offset > int64(len(data))) {
				t.Fatalf("offset %d out of range", ce.Offset)
			}
			return
		}
		// Whatever decodes must re-encode and decode to the same data.
		for _, k := range c.keys {
			p, err := AppendDumpPayload(nil, k.v, EncoderOptions{Compression: true, Limits: DefaultLimits()})
			if err != nil {
				continue // e.g. an intset is never empty, but other invalid shapes are skipped
			}
			back, err := ParseDumpPayload(p)
			if err != nil {
				t.Fatalf("key %q: re-encoded payload does not parse: %v", k.key, err)
			}
			if valueContents(back) != valueContents(k.v) || k.v.Kind == KindStream && streamText(back) != streamText(k.v) {
				t.Fatalf("key %q: round trip differs", k.key)
			}
		}
	})
}

func FuzzParseDumpPayload(f *testing.F) {
	opt := EncoderOptions{Compression: true, Limits: DefaultLimits()}
	for _, v := range []*Value{
		{Kind: KindString, Str: []byte("hello")},
		{Kind: KindString, Str: []byte("12345")},
		{Kind: KindList, List: strs("a", "1", "300", "-70000")},
		{Kind: KindSet, Set: strs("1", "2", "3")},
		{Kind: KindSet, Set: strs("x", "y")},
		{Kind: KindZSet, ZSet: []ZMember{{[]byte("a"), 1}, {[]byte("b"), 2.5}}},
		{Kind: KindZSet, Encoding: EncSkiplist, ZSet: []ZMember{{[]byte("a"), 1}}},
		{Kind: KindHash, Hash: [][2][]byte{{[]byte("f"), []byte("v")}}},
		{Kind: KindHash, Encoding: EncHashtable, Hash: [][2][]byte{{[]byte("f"), []byte("v")}}},
	} {
		f.Add(DumpPayload(v, opt))
	}
	for _, p := range sampleStreamPayloads() {
		f.Add(p)
	}
	// Encodings only read: ziplists, a zipmap, an intset, a quicklist of
	// ziplists; and a hash listpack with a repeated field.
	seal := func(body []byte) []byte {
		p := append(body, 10, 0)
		return binary.LittleEndian.AppendUint64(p, CRC64(0, p))
	}
	f.Add(seal(cat([]byte{typeHashZiplist}, blob(ziplist(zlStr("f"), zlStr("v"), zlStr("g"), []byte{0xF3})))))
	f.Add(seal(cat([]byte{typeZSetZiplist}, blob(ziplist(zlStr("a"), zlStr("1.5"), zlStr("b"), []byte{0xF3})))))
	f.Add(seal(cat([]byte{typeListQuicklist, 2}, blob(ziplist(zlStr("a"))), blob(ziplist(zlStr("b"), []byte{0xF5})))))
	f.Add(seal(cat([]byte{typeHashZipmap}, blob([]byte{2, 1, 'f', 1, 0, 'v', 1, 'g', 2, 1, 'x', 'y', 0, 0xFF}))))
	f.Add(seal(cat([]byte{typeSetIntset}, blob([]byte{2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 5, 0}))))
	f.Add(seal(cat([]byte{typeHashListpack}, blob(ziplistFreeListpack("f", "1", "f", "2")))))
	lim := DefaultLimits()
	f.Fuzz(func(t *testing.T, p []byte) {
		// Sanitizing only adds checks: what passes them passes without.
		shallow, serr := ParseDumpPayloadWith(p, PayloadOptions{Limits: &lim})
		v, err := ParseDumpPayload(p)
		if err == nil && serr != nil {
			t.Fatalf("deep check accepts what the shallow one refuses: %v", serr)
		}
		if serr == nil && shallow.Kind == KindHash && shallow.Encoding == EncListpack {
			if _, err := AppendDumpPayload(nil, shallow, opt); err != nil {
				t.Fatalf("shallow value does not encode: %v", err)
			}
		}
		if err != nil {
			return
		}
		q, err := AppendDumpPayload(nil, v, opt)
		if err != nil {
			t.Fatalf("parsed value does not encode: %v", err)
		}
		back, err := ParseDumpPayload(q)
		if err != nil || valueContents(back) != valueContents(v) || v.Kind == KindStream && streamText(back) != streamText(v) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// streamFile wraps a stream DUMP payload into an RDB file with one key.
func streamFile(p []byte) []byte {
	f := []byte("REDIS0010\xfe\x00\xfb\x01\x00")
	f = append(f, p[0], 1, 'k')
	f = append(f, p[1:len(p)-10]...)
	f = append(f, opEOF)
	return append(f, byteLE64(CRC64(0, f))...)
}
