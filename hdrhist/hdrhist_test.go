package hdrhist

import (
	"math"
	"testing"
)

func TestHdrHistLayout(t *testing.T) {
	// hdr_calculate_bucket_config(1, 1e9, 2), computed as the C does.
	subMag := int(math.Ceil(math.Log(2*math.Pow(10, 2)) / math.Log(2)))
	halfMag := max(subMag, 1) - 1
	subCount := 1 << (halfMag + 1)
	buckets := 1
	for v := int64(subCount); v <= Highest; v <<= 1 {
		buckets++
	}
	if halfMag != hdrSubBucketHalfMg || subCount != hdrSubBucketCount || buckets != hdrBucketCount ||
		(buckets+1)*(subCount/2) != hdrCountsLen {
		t.Fatalf("layout: half magnitude %d, sub-buckets %d, buckets %d; constants say %d, %d, %d",
			halfMag, subCount, buckets, hdrSubBucketHalfMg, hdrSubBucketCount, hdrBucketCount)
	}
	// Every value maps into range, to an index whose value range holds it.
	for _, v := range []int64{1, 2, 255, 256, 257, 511, 512, 1023, 1024, 1031, 1032, 8000, 8031, 8032,
		65535, 1 << 20, 999999999, Highest} {
		idx := hdrCountsIndex(v)
		lo, hi := hdrValueAtIndex(idx), HighestEquivalent(v)
		if idx < 0 || idx >= hdrCountsLen || lo != LowestEquivalent(v) || v < lo || v > hi || hdrCountsIndex(hi) != idx || hdrCountsIndex(hi+1) == idx {
			t.Errorf("value %d: index %d [%d, %d]", v, idx, lo, hi)
		}
	}
	// Bucket bounds Redis 7.0.15 was seen replying.
	for _, c := range []struct{ ns, hi int64 }{{8000, 8031}, {10016, 10047}, {1024, 1031}, {67108864, 67633151}, {131072, 132095}} {
		if got := HighestEquivalent(c.ns); got != c.hi {
			t.Errorf("highest equivalent of %d = %d, want %d", c.ns, got, c.hi)
		}
	}

	var h Hist
	for _, ns := range []int64{0, 500, 1030, 2050, 2060, 3000, 5e9} {
		h.Record(ns) // 0 and 5 s are clamped to 1 ns and 1 s
	}
	var got [][2]int64
	h.CDF(func(us, cum int64) { got = append(got, [2]int64{us, cum}) })
	want := [][2]int64{{1, 3}, {2, 5}, {4, 6}, {1073741, 7}}
	if len(got) != len(want) {
		t.Fatalf("cdf = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cdf = %v, want %v", got, want)
		}
	}
	for _, c := range []struct {
		p    float64
		want int64
	}{{0, 1}, {10, 1}, {50, 2063}, {57.2, 2063}, {85, 3007}, {99, HighestEquivalent(Highest)}, {100, HighestEquivalent(Highest)}} {
		if got := h.ValueAtPercentile(c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
}
