// Package hdrhist is the part of HdrHistogram_c (the 0.11 release Redis 7.0 bundles
// in deps/hdr_histogram) that Redis uses for its per-command latency
// histograms: hdr_init(1, 1000000000, 2), hdr_record_value,
// hdr_value_at_percentile (INFO latencystats) and the logarithmic iterator
// LATENCY HISTOGRAM walks. The bucket layout must be Redis's exactly: the
// values reported are bucket bounds, not the recorded durations.
//
// The layout for lowest discernible value 1 ns, highest trackable value 1 s
// and 2 significant figures (hdr_calculate_bucket_config):
//
//	sub_bucket_count = 2^ceil(log2(2*10^2)) = 256, half count 128 (magnitude 7)
//	unit_magnitude = log2(1) = 0
//	bucket_count = 23 (256<<22 is the first power-of-two step above 1e9)
//	counts_len = (bucket_count+1) * 128 = 3072
//
// Values below 256 ns each have a count of their own; above, a bucket holds
// 128 sub-buckets of width 2^bucket, so the precision is 1/128 of the value.
package hdrhist

import "math/bits"

// Hist is one command's latency histogram; the zero value is empty.
type Hist struct {
	total  int64
	counts [hdrCountsLen]int64
}

const (
	hdrLowest          = 1          // LATENCY_HISTOGRAM_MIN_VALUE: 1 ns
	Highest            = 1000000000 // LATENCY_HISTOGRAM_MAX_VALUE: 1 s
	hdrSubBucketCount  = 256
	hdrSubBucketHalf   = 128
	hdrSubBucketHalfMg = 7
	hdrSubBucketMask   = hdrSubBucketCount - 1 // << unit_magnitude 0
	hdrBucketCount     = 23
	hdrCountsLen       = (hdrBucketCount + 1) * hdrSubBucketHalf
)

// hdrBucketIndex is get_bucket_index: the power of two containing v, less
// the sub-bucket magnitude.
func hdrBucketIndex(v int64) int {
	return bits.Len64(uint64(v|hdrSubBucketMask)) - (hdrSubBucketHalfMg + 1)
}

// hdrCountsIndex is counts_index_for.
func hdrCountsIndex(v int64) int {
	b := hdrBucketIndex(v)
	sb := int(v >> b)
	return (b+1)<<hdrSubBucketHalfMg + sb - hdrSubBucketHalf
}

// hdrValueAtIndex is hdr_value_at_index: the lowest value counted at idx.
func hdrValueAtIndex(idx int) int64 {
	b := idx>>hdrSubBucketHalfMg - 1
	sb := idx&(hdrSubBucketHalf-1) + hdrSubBucketHalf
	if b < 0 {
		sb -= hdrSubBucketHalf
		b = 0
	}
	return int64(sb) << b
}

// LowestEquivalent is lowest_equivalent_value.
func LowestEquivalent(v int64) int64 {
	b := hdrBucketIndex(v)
	return (v >> b) << b
}

// HighestEquivalent is highest_equivalent_value: the last value that
// shares v's count (hdr_next_non_equivalent_value - 1).
func HighestEquivalent(v int64) int64 {
	b := hdrBucketIndex(v)
	sb := v >> b
	if sb >= hdrSubBucketCount {
		b++
	}
	return LowestEquivalent(v) + int64(1)<<b - 1
}

// Record is Redis's updateCommandLatencyHistogram after its clamp to
// [1 ns, 1 s] (the caller's), then hdr_record_value.
func (h *Hist) Record(ns int64) {
	ns = min(max(ns, hdrLowest), Highest)
	h.counts[hdrCountsIndex(ns)]++
	h.total++
}

// ValueAtPercentile is hdr_value_at_percentile of the 0.11 release: the
// bucket holding the requested count (at least 1), reported by its highest
// equivalent value, or its lowest for percentile 0.
func (h *Hist) ValueAtPercentile(p float64) int64 {
	req := min(p, 100.0)
	want := max(int64(req/100*float64(h.total)+0.5), 1)
	var seen, v int64
	for idx := range h.counts {
		seen += h.counts[idx]
		if seen >= want {
			v = hdrValueAtIndex(idx)
			break
		}
	}
	if p == 0 {
		return LowestEquivalent(v)
	}
	return HighestEquivalent(v)
}

// CDF calls fn with the (bucket upper bound in µs, cumulative count) pairs
// Redis's fillCommandCDF replies: hdr_iter_log_init(h, 1024, 2) walked step
// by step, a pair only where the cumulative count grew. Each step ends at
// the first index whose value reaches the next power-of-two reporting level
// (1024 ns, 2048 ns, ...) and reports that index's highest equivalent value;
// the last one, past the final level, reports the last index's.
func (h *Hist) CDF(fn func(usec, cumulative int64)) {
	idx := -1
	var cum, value, highest, prev int64
	level := int64(1024)
	levelLow := LowestEquivalent(level)
	for cum < h.total || (idx < hdrCountsLen && hdrValueAtIndex(idx+1) > levelLow) {
		for value < levelLow {
			idx++
			if idx >= hdrCountsLen {
				break
			}
			cum += h.counts[idx]
			value = hdrValueAtIndex(idx)
			highest = HighestEquivalent(value)
		}
		if idx < hdrCountsLen {
			level *= 2
			levelLow = LowestEquivalent(level)
		}
		if cum > prev {
			fn(highest/1000, cum)
		}
		prev = cum
	}
}

// LastBound is the highest value of the last bucket: the bound CDF reports
// for values past its final reporting level.
func LastBound() int64 { return HighestEquivalent(hdrValueAtIndex(hdrCountsLen - 1)) }

// Total is the number of values recorded.
func (h *Hist) Total() int64 { return h.total }
