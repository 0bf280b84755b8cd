package rdb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// sampleFile encodes a small dataset with every value type.
func sampleFile(t testing.TB) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	var buf bytes.Buffer
	lim := DefaultLimits()
	lim.ListMaxListpackSize = 4
	lim.ListCompressDepth = 1
	e := NewEncoder(&buf, EncoderOptions{Compression: true, Checksum: true, Limits: lim})
	if err := e.Header(StandardAux(1700000000, 123456, true)); err != nil {
		t.Fatal(err)
	}
	_ = e.Function([]byte("#!lua name=l\nredis.register_function('f', function() return 1 end)"))
	_ = e.SelectDB(0, 20, 2)
	for i, ke := range kindEncodings {
		v := randValue(rng, ke.k, ke.enc)
		trimValue(v, 6)
		exp := int64(-1)
		if i%5 == 0 {
			exp = 1 << 42
		}
		if err := e.Key([]byte(fmt.Sprintf("k%d", i)), v, exp); err != nil {
			t.Fatal(err)
		}
	}
	_ = e.Key([]byte("lzf"), &Value{Kind: KindString, Str: bytes.Repeat([]byte("abc"), 30)}, -1)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// trimValue keeps at most n elements with at most 40 bytes each.
func trimValue(v *Value, n int) {
	cut := func(b []byte) []byte { return b[:min(len(b), 40)] }
	v.Str = cut(v.Str)
	v.List = v.List[:min(len(v.List), n)]
	for i := range v.List {
		v.List[i] = cut(v.List[i])
	}
	v.Set = v.Set[:min(len(v.Set), n)]
	v.ZSet = v.ZSet[:min(len(v.ZSet), n)]
	v.Hash = v.Hash[:min(len(v.Hash), n)]
	for i := range v.Hash {
		v.Hash[i][1] = cut(v.Hash[i][1])
	}
}

func TestTruncationEveryOffset(t *testing.T) {
	for name, file := range map[string][]byte{
		"sample":   sampleFile(t),
		"alltypes": readTestdata(t, "alltypes-aof-base.rdb"),
		"handmade": readTestdata(t, "handmade-plain-types.rdb"),
	} {
		if _, _, err := decodeBytes(file, DecodeOptions{}); err != nil && !errors.Is(err, ErrUnsupportedType) {
			t.Fatalf("%s: full file: %v", name, err)
		}
		for cut := 0; cut < len(file); cut++ {
			_, n, err := decodeBytes(file[:cut], DecodeOptions{})
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: cut at %d: err = %v", name, cut, err)
			}
			if cut >= 9 && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%s: cut at %d: not io.ErrUnexpectedEOF: %v", name, cut, err)
			}
			var ce *CorruptionError
			if cut >= 9 && (!errors.As(err, &ce) || ce.Offset != int64(cut) || n != int64(cut)) {
				t.Fatalf("%s: cut at %d: offset %v n %d", name, cut, err, n)
			}
		}
	}
}

func TestRandomByteFlips(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for name, file := range map[string][]byte{
		"sample": sampleFile(t),
		"rich":   readTestdata(t, "rich-dump.rdb"),
	} {
		iters := 1000
		if testing.Short() {
			iters = 300
		}
		for i := 0; i < iters; i++ {
			bad := append([]byte{}, file...)
			flips := 1 + rng.IntN(3)
			for j := 0; j < flips; j++ {
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			}
			_, _, err := decodeBytes(bad, DecodeOptions{})
			// Every change is caught: by a parse error or, at the latest, the checksum.
			if err == nil || (errors.Is(err, ErrUnsupportedType) && bytes.Equal(bad[:len(bad)-8], file[:len(file)-8])) {
				t.Fatalf("%s: flip %d not detected: %v", name, i, err)
			}
		}
	}
	// Payloads: corruption behind a resealed checksum must not panic.
	v := &Value{Kind: KindList, List: strs("a", "bb", "123", "x")}
	p := DumpPayload(v, EncoderOptions{})
	for i := 0; i < 3000; i++ {
		bad := append([]byte{}, p...)
		bad[rng.IntN(len(bad)-10)] = byte(rng.Uint32())
		reseal(bad)
		_, _ = ParseDumpPayload(bad)
	}
}

func reseal(q []byte) {
	crc := CRC64(0, q[:len(q)-8])
	for i := 0; i < 8; i++ {
		q[len(q)-8+i] = byte(crc >> (8 * i))
	}
}
