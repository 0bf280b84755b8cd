package rdb

import (
	"bufio"
	"io"
	"strconv"
	"testing"
)

// BenchmarkEncodeStrings writes 1e5 small string keys per iteration.
func BenchmarkEncodeStrings(b *testing.B) {
	const n = 100000
	keys := make([][]byte, n)
	vals := make([]Value, n)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
		vals[i] = Value{Kind: KindString, Str: []byte("value-" + strconv.Itoa(i*7))}
	}
	bw := bufio.NewWriterSize(io.Discard, 64<<10)
	var written int64
	b.ReportAllocs()
	for b.Loop() {
		bw.Reset(io.Discard)
		e := NewEncoder(bw, EncoderOptions{Compression: true, Checksum: true, Limits: DefaultLimits()})
		_ = e.Header(StandardAux(0, 0, false))
		_ = e.SelectDB(0, n, 0)
		for i := range keys {
			if err := e.Key(keys[i], &vals[i], -1); err != nil {
				b.Fatal(err)
			}
		}
		_ = e.Close()
		_ = bw.Flush()
		written = e.Written()
	}
	b.SetBytes(written)
}

func BenchmarkDecodeRich(b *testing.B) {
	file := readTestdata(b, "rich-dump.rdb")
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Decode(bufioReader(file), &collector{}, DecodeOptions{})
	}
}
