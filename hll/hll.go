// Package hll is the HyperLogLog representation of Redis 7.0's hyperloglog.c,
// so that an HLL string written by either server is read identically by
// the other:
//
//	header (16 bytes): "HYLL", encoding (0 dense, 1 sparse), 3 unused
//	bytes, cached cardinality (64-bit little endian; bit 63 set = stale).
//	dense: 16384 6-bit registers packed LSB first (12288 bytes).
//	sparse: run-length opcodes ZERO 00xxxxxx (1..64 zero registers),
//	XZERO 01xxxxxx yyyyyyyy (1..16384 zero registers), VAL 1vvvvvxx
//	(value 1..32 repeated 1..4 times).
//
// The commands (PFADD & co.) live in package server, which keeps HLLs as
// raw (growable) strings and modifies them in place, as Redis its unshared
// sds.

package hll

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Registers is the number of registers (HLL_REGISTERS), RegisterMax the
// largest register value; HdrSize is the header's size and DenseSize a
// dense HLL's; Dense and Sparse are the encodings (header byte 4).
const (
	hllP           = 14
	hllQ           = 64 - hllP
	Registers      = 1 << hllP
	hllPMask       = Registers - 1
	hllBits        = 6
	RegisterMax    = 1<<hllBits - 1
	HdrSize        = 16
	DenseSize      = HdrSize + (Registers*hllBits+7)/8
	Dense          = 0
	Sparse         = 1
	hllMaxEncoding = 1

	hllSparseValMaxValue = 32
	hllSparseValMaxLen   = 4
	hllSparseZeroMaxLen  = 64
	hllSparseXZeroMaxLen = 16384

	hllAlphaInf = 0.721347520444481703680 // 0.5/ln(2)
	hllSeed     = 0xadc83b19
)

// ---------------------------------------------------------------------------
// Hashing

// murmurHash64A is MurmurHash2, 64-bit version, endian neutral, as Redis.
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ (uint64(len(key)) * m)
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[n:]
	switch len(tail) {
	case 7:
		h ^= uint64(tail[6]) << 48
		fallthrough
	case 6:
		h ^= uint64(tail[5]) << 40
		fallthrough
	case 5:
		h ^= uint64(tail[4]) << 32
		fallthrough
	case 4:
		h ^= uint64(tail[3]) << 24
		fallthrough
	case 3:
		h ^= uint64(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint64(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint64(tail[0])
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// hllPatLen returns the register index of ele and the length of the
// 000..1 pattern of its hash (1..Q+1).
func hllPatLen(ele []byte) (index int, count uint8) {
	hash := murmurHash64A(ele, hllSeed)
	index = int(hash & hllPMask)
	hash >>= hllP
	hash |= 1 << hllQ
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}

// ---------------------------------------------------------------------------
// Dense representation (regs = the 12288 register bytes after the header)

// DenseGet is HLL_DENSE_GET_REGISTER: register i of regs.
func DenseGet(regs []byte, i int) uint8 {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	v := uint(regs[b]) >> fb
	if fb > 8-hllBits { // the register spills into the next byte
		v |= uint(regs[b+1]) << (8 - fb)
	}
	return uint8(v & RegisterMax)
}

// DenseSetReg is HLL_DENSE_SET_REGISTER: register i of regs := val.
func DenseSetReg(regs []byte, i int, val uint8) {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	v := uint(val)
	regs[b] &^= byte(RegisterMax << fb)
	regs[b] |= byte(v << fb)
	if fb > 8-hllBits {
		regs[b+1] &^= byte(RegisterMax >> (8 - fb))
		regs[b+1] |= byte(v >> (8 - fb))
	}
}

// DenseSet raises register i to count; it reports whether it changed.
func DenseSet(regs []byte, i int, count uint8) bool {
	if count > DenseGet(regs, i) {
		DenseSetReg(regs, i, count)
		return true
	}
	return false
}

func hllDenseRegHisto(regs []byte, h *[64]int) {
	// Four 6-bit registers per three bytes.
	for i := 0; i+3 <= Registers*hllBits/8; i += 3 {
		b0, b1, b2 := regs[i], regs[i+1], regs[i+2]
		h[b0&63]++
		h[(b0>>6|b1<<2)&63]++
		h[(b1>>4|b2<<4)&63]++
		h[b2>>2]++
	}
}

// ---------------------------------------------------------------------------
// Sparse representation

// The sparse opcodes (HLL_SPARSE_IS_ZERO & co.): which kind op is, and the
// run length and value it holds.
func IsZero(op byte) bool   { return op&0xc0 == 0 }
func IsXZero(op byte) bool  { return op&0xc0 == 0x40 }
func hllIsVal(op byte) bool { return op&0x80 != 0 }
func ZeroLen(op byte) int   { return int(op&0x3f) + 1 }
func ValValue(op byte) int  { return int(op>>2&0x1f) + 1 }
func ValLen(op byte) int    { return int(op&3) + 1 }

// XZeroLen decodes the XZERO at b[p]; a truncated opcode reads the byte
// past the end as 0, as Redis reads the sds terminator.
func XZeroLen(b []byte, p int) int {
	var lo byte
	if p+1 < len(b) {
		lo = b[p+1]
	}
	return (int(b[p]&0x3f)<<8 | int(lo)) + 1
}

func hllValOp(val, n int) byte { return byte((val-1)<<2|(n-1)) | 0x80 }
func hllZeroOp(n int) byte     { return byte(n - 1) }
func hllXZeroOp(n int) (byte, byte) {
	l := n - 1
	return byte(l>>8) | 0x40, byte(l)
}

// New returns an empty sparse HLL (one XZERO opcode).
func New() []byte {
	b := make([]byte, HdrSize+2, HdrSize+8)
	copy(b, "HYLL")
	b[4] = Sparse
	n := Registers
	for p := HdrSize; n > 0; p += 2 {
		x := min(n, hllSparseXZeroMaxLen)
		b[p], b[p+1] = hllXZeroOp(x)
		n -= x
	}
	return b
}

// SparseToDense converts a sparse HLL; ok=false if it is corrupted.
// The header (magic, cached cardinality) is kept.
func SparseToDense(sp []byte) (dense []byte, ok bool) {
	if sp[4] == Dense {
		return sp, true
	}
	dense = make([]byte, DenseSize)
	copy(dense, sp[:HdrSize])
	dense[4] = Dense
	regs := dense[HdrSize:]
	idx := 0
	for p := HdrSize; p < len(sp); {
		op := sp[p]
		switch {
		case IsZero(op):
			idx += ZeroLen(op)
			p++
		case IsXZero(op):
			idx += XZeroLen(sp, p)
			p += 2
		default:
			n, v := ValLen(op), ValValue(op)
			if n+idx > Registers {
				return nil, false // overflow
			}
			for ; n > 0; n-- {
				DenseSetReg(regs, idx, uint8(v))
				idx++
			}
			p++
		}
	}
	if idx != Registers {
		return nil, false
	}
	return dense, true
}

func hllSparseRegHisto(sp []byte, h *[64]int) (valid bool) {
	idx := 0
	for p := HdrSize; p < len(sp); {
		op := sp[p]
		switch {
		case IsZero(op):
			n := ZeroLen(op)
			idx += n
			h[0] += n
			p++
		case IsXZero(op):
			n := XZeroLen(sp, p)
			idx += n
			h[0] += n
			p += 2
		default:
			n := ValLen(op)
			idx += n
			h[ValValue(op)] += n
			p++
		}
	}
	return idx == Registers
}

// SparseSet raises register index to count in the HLL held by rs (Redis
// SparseSet): 1 if it changed, 0 if not, -1 if the HLL is corrupted.
// The HLL may be promoted to dense (value > 32, or hll-sparse-max-bytes).
func SparseSet(rs *[]byte, index int, count uint8, maxBytes int64) int {
	if count > hllSparseValMaxValue {
		return hllPromote(rs, index, count)
	}
	// Work on the bytes plus zeroed slack: Redis may read the sds
	// terminator after a truncated XZERO and grows by up to 3 bytes.
	n := len(*rs)
	b := append(*rs, 0, 0, 0, 0, 0)
	end := n

	// Step 1: find the opcode covering index.
	sparse := HdrSize
	p, first, prev, span := sparse, 0, -1, 0
	for p < end {
		oplen := 1
		op := b[p]
		switch {
		case IsZero(op):
			span = ZeroLen(op)
		case hllIsVal(op):
			span = ValLen(op)
		default:
			span = XZeroLen(b[:end+1], p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		*rs = b[:n]
		return -1
	}
	next := p + 1
	if IsXZero(b[p]) {
		next = p + 2
	}
	hasNext := next < end

	op := b[p]
	isZero, isXZero, isVal := false, false, false
	var runlen int
	switch {
	case IsZero(op):
		isZero, runlen = true, ZeroLen(op)
	case IsXZero(op):
		isXZero, runlen = true, XZeroLen(b[:end+1], p)
	default:
		isVal, runlen = true, ValLen(op)
	}

	// Step 2: the trivial cases are updated in place.
	updated := false
	if isVal {
		if ValValue(op) >= int(count) {
			*rs = b[:n]
			return 0
		}
		if runlen == 1 {
			b[p] = hllValOp(int(count), 1)
			updated = true
		}
	}
	if !updated && isZero && runlen == 1 {
		b[p] = hllValOp(int(count), 1)
		updated = true
	}

	if !updated {
		// General case: split the opcode into up to three (at most 5 bytes).
		var seq [5]byte
		sn := 0
		last := first + span - 1
		if isZero || isXZero {
			if index != first {
				l := index - first
				if l > hllSparseZeroMaxLen {
					seq[sn], seq[sn+1] = hllXZeroOp(l)
					sn += 2
				} else {
					seq[sn] = hllZeroOp(l)
					sn++
				}
			}
			seq[sn] = hllValOp(int(count), 1)
			sn++
			if index != last {
				l := last - index
				if l > hllSparseZeroMaxLen {
					seq[sn], seq[sn+1] = hllXZeroOp(l)
					sn += 2
				} else {
					seq[sn] = hllZeroOp(l)
					sn++
				}
			}
		} else {
			cur := ValValue(op)
			if index != first {
				seq[sn] = hllValOp(cur, index-first)
				sn++
			}
			seq[sn] = hllValOp(int(count), 1)
			sn++
			if index != last {
				seq[sn] = hllValOp(cur, last-index)
				sn++
			}
		}

		// Step 3: substitute the new sequence for the old opcode.
		oldlen := 1
		if isXZero {
			oldlen = 2
		}
		delta := sn - oldlen
		if delta > 0 && int64(n+delta) > maxBytes {
			*rs = b[:n]
			return hllPromote(rs, index, count)
		}
		if delta != 0 && hasNext {
			copy(b[next+delta:end+delta], b[next:end])
		}
		n += delta
		copy(b[p:], seq[:sn])
		end += delta
	}

	// Step 4: merge adjacent VAL opcodes with the same value where possible,
	// scanning up to 5 opcodes from the previous one.
	p = sparse
	if prev >= 0 {
		p = prev
	}
	scan := 5
	for p < end {
		if scan == 0 {
			break
		}
		scan--
		op := b[p]
		if IsXZero(op) {
			p += 2
			continue
		}
		if IsZero(op) {
			p++
			continue
		}
		if p+1 < end && hllIsVal(b[p+1]) {
			v1, v2 := ValValue(op), ValValue(b[p+1])
			if v1 == v2 {
				l := ValLen(op) + ValLen(b[p+1])
				if l <= hllSparseValMaxLen {
					b[p+1] = hllValOp(v1, l)
					copy(b[p:end-1], b[p+1:end])
					n--
					end--
					continue
				}
			}
		}
		p++
	}
	b = b[:n]
	b[15] |= 0x80 // invalidate the cached cardinality
	*rs = b
	return 1
}

// hllPromote converts rs to dense and sets the register there.
func hllPromote(rs *[]byte, index int, count uint8) int {
	dense, ok := SparseToDense(*rs)
	if !ok {
		return -1
	}
	*rs = dense
	DenseSet(dense[HdrSize:], index, count)
	return 1
}

// Add adds ele to the HLL in rs: 1 if a register changed, 0 if not,
// -1 if the HLL is corrupted.
func Add(rs *[]byte, ele []byte, maxBytes int64) int {
	index, count := hllPatLen(ele)
	switch (*rs)[4] {
	case Dense:
		if DenseSet((*rs)[HdrSize:], index, count) {
			return 1
		}
		return 0
	case Sparse:
		return SparseSet(rs, index, count, maxBytes)
	}
	return -1
}

// ---------------------------------------------------------------------------
// Cardinality estimation (Ertl, "New cardinality estimation algorithms for
// HyperLogLog sketches", arXiv:1702.01284, as Redis 7.0). The explicit
// float64 conversions forbid fused multiply-adds, so that results are
// bit-identical with Redis's build on every architecture.

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y := 1.0
	z := x
	for {
		x *= x
		zp := z
		z += float64(x * y)
		y += y
		if zp == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y := 1.0
	z := 1 - x
	for {
		x = math.Sqrt(x)
		zp := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if zp == z {
			return z / 3
		}
	}
}

// CountHisto estimates the cardinality from the register histogram.
func CountHisto(h *[64]int) uint64 {
	m := float64(Registers)
	z := m * hllTau((m-float64(h[hllQ+1]))/m)
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += float64(m * hllSigma(float64(h[0])/m))
	alpha := float64(hllAlphaInf)
	e := float64(float64(alpha*m)*m) / z
	return llround(e)
}

// llround converts as Redis's (uint64_t)llroundl(x) does on x86-64: values
// outside the long long range (and NaN) give LLONG_MIN.
func llround(x float64) uint64 {
	r := math.Round(x)
	if math.IsNaN(r) || r >= 9223372036854775808.0 || r < -9223372036854775808.0 {
		return 1 << 63
	}
	return uint64(int64(r))
}

// Count computes the cardinality of a validated HLL; valid=false if a
// sparse HLL is corrupted.
func Count(b []byte) (card uint64, valid bool) {
	var h [64]int
	if b[4] == Dense {
		hllDenseRegHisto(b[HdrSize:], &h)
	} else if !hllSparseRegHisto(b, &h) {
		return 0, false
	}
	return CountHisto(&h), true
}

// Merge sets max[i] = MAX(max[i], register i of b); false if a sparse
// HLL is corrupted.
func Merge(max *[Registers]uint8, b []byte) bool {
	if b[4] == Dense {
		regs := b[HdrSize:]
		for i := 0; i < Registers; i++ {
			if v := DenseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return true
	}
	i := 0
	for p := HdrSize; p < len(b); {
		op := b[p]
		switch {
		case IsZero(op):
			i += ZeroLen(op)
			p++
		case IsXZero(op):
			i += XZeroLen(b, p)
			p += 2
		default:
			n, v := ValLen(op), uint8(ValValue(op))
			if n+i > Registers {
				return false // overflow
			}
			for ; n > 0; n-- {
				if v > max[i] {
					max[i] = v
				}
				i++
			}
			p++
		}
	}
	return i == Registers
}

// Valid checks a string value as Redis's isHLLObjectOrReply.
func Valid(b []byte) bool {
	if len(b) < HdrSize || string(b[:4]) != "HYLL" || b[4] > hllMaxEncoding {
		return false
	}
	return b[4] != Dense || len(b) == DenseSize
}

// InvalidateCache marks the cached cardinality stale (HLL_INVALIDATE_CACHE).
func InvalidateCache(b []byte) { b[15] |= 0x80 }
