package server

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand"
	"strconv"
	"strings"
)

// HyperLogLog (PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST) with Redis
// 7.0's exact representation, so that an HLL string written by either
// server is read identically by the other:
//
//	header (16 bytes): "HYLL", encoding (0 dense, 1 sparse), 3 unused
//	bytes, cached cardinality (64-bit little endian; bit 63 set = stale).
//	dense: 16384 6-bit registers packed LSB first (12288 bytes).
//	sparse: run-length opcodes ZERO 00xxxxxx (1..64 zero registers),
//	XZERO 01xxxxxx yyyyyyyy (1..16384 zero registers), VAL 1vvvvvxx
//	(value 1..32 repeated 1..4 times).
//
// HLLs are plain strings: they are kept as raw (growable) strings and
// modified in place after the snapshot hook has run, as Redis modifies its
// unshared sds.

const (
	hllP           = 14
	hllQ           = 64 - hllP
	hllRegisters   = 1 << hllP
	hllPMask       = hllRegisters - 1
	hllBits        = 6
	hllRegisterMax = 1<<hllBits - 1
	hllHdrSize     = 16
	hllDenseSize   = hllHdrSize + (hllRegisters*hllBits+7)/8
	hllDense       = 0
	hllSparse      = 1
	hllMaxEncoding = 1

	hllSparseValMaxValue = 32
	hllSparseValMaxLen   = 4
	hllSparseZeroMaxLen  = 64
	hllSparseXZeroMaxLen = 16384

	hllAlphaInf = 0.721347520444481703680 // 0.5/ln(2)
	hllSeed     = 0xadc83b19

	errHLLInvalid   = "INVALIDOBJ Corrupted HLL object detected"
	errHLLWrongType = "WRONGTYPE Key is not a valid HyperLogLog string value."
)

func init() {
	hll := func(name string, arity int, flags uint64, first, last int, proc cmdProc, summary string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: 1, proc: proc,
			group: "hyperloglog", summary: summary, since: "2.8.9", acl: acl}
	}
	register(
		hll("pfadd", -2, cmdWrite|cmdDenyOOM|cmdFast, 1, 1, pfaddCommand,
			"Adds the specified elements to the specified HyperLogLog.", "@write", "@hyperloglog", "@fast"),
		hll("pfcount", -2, cmdReadonly, 1, -1, pfcountCommand,
			"Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", "@read", "@hyperloglog", "@slow"),
		hll("pfmerge", -2, cmdWrite|cmdDenyOOM, 1, -1, pfmergeCommand,
			"Merge N different HyperLogLogs into a single one.", "@write", "@hyperloglog", "@slow"),
		hll("pfdebug", 3, cmdWrite|cmdDenyOOM|cmdAdmin, 2, 2, pfdebugCommand,
			"Internal commands for debugging HyperLogLog values", "@write", "@hyperloglog", "@admin", "@slow", "@dangerous"),
		hll("pfselftest", 1, cmdAdmin, 0, 0, pfselftestCommand,
			"An internal command for testing HyperLogLog values", "@hyperloglog", "@admin", "@slow", "@dangerous"),
	)
}

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

func hllDenseGet(regs []byte, i int) uint8 {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	v := uint(regs[b]) >> fb
	if fb > 8-hllBits { // the register spills into the next byte
		v |= uint(regs[b+1]) << (8 - fb)
	}
	return uint8(v & hllRegisterMax)
}

func hllDenseSetReg(regs []byte, i int, val uint8) {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	v := uint(val)
	regs[b] &^= byte(hllRegisterMax << fb)
	regs[b] |= byte(v << fb)
	if fb > 8-hllBits {
		regs[b+1] &^= byte(hllRegisterMax >> (8 - fb))
		regs[b+1] |= byte(v >> (8 - fb))
	}
}

// hllDenseSet raises register i to count; it reports whether it changed.
func hllDenseSet(regs []byte, i int, count uint8) bool {
	if count > hllDenseGet(regs, i) {
		hllDenseSetReg(regs, i, count)
		return true
	}
	return false
}

func hllDenseRegHisto(regs []byte, h *[64]int) {
	// Four 6-bit registers per three bytes.
	for i := 0; i+3 <= hllRegisters*hllBits/8; i += 3 {
		b0, b1, b2 := regs[i], regs[i+1], regs[i+2]
		h[b0&63]++
		h[(b0>>6|b1<<2)&63]++
		h[(b1>>4|b2<<4)&63]++
		h[b2>>2]++
	}
}

// ---------------------------------------------------------------------------
// Sparse representation

func hllIsZero(op byte) bool  { return op&0xc0 == 0 }
func hllIsXZero(op byte) bool { return op&0xc0 == 0x40 }
func hllIsVal(op byte) bool   { return op&0x80 != 0 }
func hllZeroLen(op byte) int  { return int(op&0x3f) + 1 }
func hllValValue(op byte) int { return int(op>>2&0x1f) + 1 }
func hllValLen(op byte) int   { return int(op&3) + 1 }

// hllXZeroLen decodes the XZERO at b[p]; a truncated opcode reads the byte
// past the end as 0, as Redis reads the sds terminator.
func hllXZeroLen(b []byte, p int) int {
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

// hllNew returns an empty sparse HLL (one XZERO opcode).
func hllNew() []byte {
	b := make([]byte, hllHdrSize+2, hllHdrSize+8)
	copy(b, "HYLL")
	b[4] = hllSparse
	n := hllRegisters
	for p := hllHdrSize; n > 0; p += 2 {
		x := min(n, hllSparseXZeroMaxLen)
		b[p], b[p+1] = hllXZeroOp(x)
		n -= x
	}
	return b
}

// hllSparseToDense converts a sparse HLL; ok=false if it is corrupted.
// The header (magic, cached cardinality) is kept.
func hllSparseToDense(sp []byte) (dense []byte, ok bool) {
	if sp[4] == hllDense {
		return sp, true
	}
	dense = make([]byte, hllDenseSize)
	copy(dense, sp[:hllHdrSize])
	dense[4] = hllDense
	regs := dense[hllHdrSize:]
	idx := 0
	for p := hllHdrSize; p < len(sp); {
		op := sp[p]
		switch {
		case hllIsZero(op):
			idx += hllZeroLen(op)
			p++
		case hllIsXZero(op):
			idx += hllXZeroLen(sp, p)
			p += 2
		default:
			n, v := hllValLen(op), hllValValue(op)
			if n+idx > hllRegisters {
				return nil, false // overflow
			}
			for ; n > 0; n-- {
				hllDenseSetReg(regs, idx, uint8(v))
				idx++
			}
			p++
		}
	}
	if idx != hllRegisters {
		return nil, false
	}
	return dense, true
}

func hllSparseRegHisto(sp []byte, h *[64]int) (valid bool) {
	idx := 0
	for p := hllHdrSize; p < len(sp); {
		op := sp[p]
		switch {
		case hllIsZero(op):
			n := hllZeroLen(op)
			idx += n
			h[0] += n
			p++
		case hllIsXZero(op):
			n := hllXZeroLen(sp, p)
			idx += n
			h[0] += n
			p += 2
		default:
			n := hllValLen(op)
			idx += n
			h[hllValValue(op)] += n
			p++
		}
	}
	return idx == hllRegisters
}

// hllSparseMaxBytes is the hll-sparse-max-bytes directive.
func (s *Server) hllSparseMaxBytes() int64 { return s.cfg.HLLSparseMaxBytes }

// hllSparseSet raises register index to count in the HLL held by rs (Redis
// hllSparseSet): 1 if it changed, 0 if not, -1 if the HLL is corrupted.
// The HLL may be promoted to dense (value > 32, or hll-sparse-max-bytes).
func hllSparseSet(rs *rawString, index int, count uint8, maxBytes int64) int {
	if count > hllSparseValMaxValue {
		return hllPromote(rs, index, count)
	}
	// Work on the bytes plus zeroed slack: Redis may read the sds
	// terminator after a truncated XZERO and grows by up to 3 bytes.
	n := len(rs.b)
	b := append(rs.b, 0, 0, 0, 0, 0)
	end := n

	// Step 1: find the opcode covering index.
	sparse := hllHdrSize
	p, first, prev, span := sparse, 0, -1, 0
	for p < end {
		oplen := 1
		op := b[p]
		switch {
		case hllIsZero(op):
			span = hllZeroLen(op)
		case hllIsVal(op):
			span = hllValLen(op)
		default:
			span = hllXZeroLen(b[:end+1], p)
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
		rs.b = b[:n]
		return -1
	}
	next := p + 1
	if hllIsXZero(b[p]) {
		next = p + 2
	}
	hasNext := next < end

	op := b[p]
	isZero, isXZero, isVal := false, false, false
	var runlen int
	switch {
	case hllIsZero(op):
		isZero, runlen = true, hllZeroLen(op)
	case hllIsXZero(op):
		isXZero, runlen = true, hllXZeroLen(b[:end+1], p)
	default:
		isVal, runlen = true, hllValLen(op)
	}

	// Step 2: the trivial cases are updated in place.
	updated := false
	if isVal {
		if hllValValue(op) >= int(count) {
			rs.b = b[:n]
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
			cur := hllValValue(op)
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
			rs.b = b[:n]
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
		if hllIsXZero(op) {
			p += 2
			continue
		}
		if hllIsZero(op) {
			p++
			continue
		}
		if p+1 < end && hllIsVal(b[p+1]) {
			v1, v2 := hllValValue(op), hllValValue(b[p+1])
			if v1 == v2 {
				l := hllValLen(op) + hllValLen(b[p+1])
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
	rs.b = b
	return 1
}

// hllPromote converts rs to dense and sets the register there.
func hllPromote(rs *rawString, index int, count uint8) int {
	dense, ok := hllSparseToDense(rs.b)
	if !ok {
		return -1
	}
	rs.b = dense
	hllDenseSet(dense[hllHdrSize:], index, count)
	return 1
}

// hllAdd adds ele to the HLL in rs: 1 if a register changed, 0 if not,
// -1 if the HLL is corrupted.
func hllAdd(rs *rawString, ele []byte, maxBytes int64) int {
	index, count := hllPatLen(ele)
	switch rs.b[4] {
	case hllDense:
		if hllDenseSet(rs.b[hllHdrSize:], index, count) {
			return 1
		}
		return 0
	case hllSparse:
		return hllSparseSet(rs, index, count, maxBytes)
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

// hllCountHisto estimates the cardinality from the register histogram.
func hllCountHisto(h *[64]int) uint64 {
	m := float64(hllRegisters)
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

// hllCount computes the cardinality of a validated HLL; valid=false if a
// sparse HLL is corrupted.
func hllCount(b []byte) (card uint64, valid bool) {
	var h [64]int
	if b[4] == hllDense {
		hllDenseRegHisto(b[hllHdrSize:], &h)
	} else if !hllSparseRegHisto(b, &h) {
		return 0, false
	}
	return hllCountHisto(&h), true
}

// hllMerge sets max[i] = MAX(max[i], register i of b); false if a sparse
// HLL is corrupted.
func hllMerge(max *[hllRegisters]uint8, b []byte) bool {
	if b[4] == hllDense {
		regs := b[hllHdrSize:]
		for i := 0; i < hllRegisters; i++ {
			if v := hllDenseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return true
	}
	i := 0
	for p := hllHdrSize; p < len(b); {
		op := b[p]
		switch {
		case hllIsZero(op):
			i += hllZeroLen(op)
			p++
		case hllIsXZero(op):
			i += hllXZeroLen(b, p)
			p += 2
		default:
			n, v := hllValLen(op), uint8(hllValValue(op))
			if n+i > hllRegisters {
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
	return i == hllRegisters
}

// isHLL checks a string value as Redis's isHLLObjectOrReply.
func isHLL(b []byte) bool {
	if len(b) < hllHdrSize || string(b[:4]) != "HYLL" || b[4] > hllMaxEncoding {
		return false
	}
	return b[4] != hllDense || len(b) == hllDenseSize
}

// hllCheck replies the right error and returns false unless e is an HLL.
func hllCheck(c *client, e entry) bool {
	if e.typ() != typString {
		c.errWrongType()
		return false
	}
	if !isHLL(e.str()) {
		c.err(errHLLWrongType)
		return false
	}
	return true
}

// unshareString makes the string at p a raw (modifiable) string, as
// Redis's dbUnshareStringValue, keeping LRU and snapshot mark.
func unshareString(p *entry) *rawString {
	if rs := p.rawString(); rs != nil {
		return rs
	}
	cur := p.str()
	b := make([]byte, len(cur), len(cur)+8)
	copy(b, cur)
	lru, mark := p.lru(), p.snapMark()
	*p = newRawStringEntry(b)
	p.setLRU(lru)
	p.setSnapMark(mark)
	return p.rawString()
}

func hllInvalidateCache(b []byte) { b[15] |= 0x80 }

// ---------------------------------------------------------------------------
// Commands

func pfaddCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	var rs *rawString
	updated := 0
	p := s.lookupWrite(c, key)
	if p == nil {
		e := newRawStringEntry(hllNew())
		rs = e.rawString()
		s.addKey(c.db, key, e)
		updated++
	} else {
		if !hllCheck(c, *p) {
			return
		}
		rs = unshareString(p)
	}
	maxBytes := s.hllSparseMaxBytes()
	for _, ele := range argv[2:] {
		switch hllAdd(rs, ele, maxBytes) {
		case 1:
			updated++
		case -1:
			c.err(errHLLInvalid)
			return
		}
	}
	if updated > 0 {
		s.signalModifiedKey(c.db, key)
		s.notify(notifyString, "pfadd", key, c.db.id)
		s.dirty += int64(updated)
		hllInvalidateCache(rs.b)
	}
	if updated > 0 {
		c.integer(1)
	} else {
		c.integer(0)
	}
}

func pfcountCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 2 {
		// Cardinality of the union.
		var max [hllRegisters]uint8
		for _, key := range argv[1:] {
			e, ok := s.lookupRead(c, key)
			if !ok {
				continue
			}
			if !hllCheck(c, e) {
				return
			}
			if !hllMerge(&max, e.str()) {
				c.err(errHLLInvalid)
				return
			}
		}
		var h [64]int
		for _, v := range max {
			h[v]++
		}
		c.integer(int64(hllCountHisto(&h)))
		return
	}
	key := argv[1]
	e, ok := s.lookupRead(c, key)
	if !ok {
		c.integer(0)
		return
	}
	if !hllCheck(c, e) {
		return
	}
	p := c.db.keys.GetPtr(bstr(key))
	rs := unshareString(p)
	b := rs.b
	if b[15]&0x80 == 0 {
		c.integer(int64(binary.LittleEndian.Uint64(b[8:16])))
		return
	}
	card, valid := hllCount(b)
	if !valid {
		c.err(errHLLInvalid)
		return
	}
	// The cache update modifies the value: Redis counts it as a change
	// (so PFCOUNT is propagated) although PFCOUNT is a read command.
	s.beforeModify(c.db, bstr(key))
	binary.LittleEndian.PutUint64(rs.b[8:16], card)
	s.signalModifiedKey(c.db, key)
	s.dirty++
	c.integer(int64(card))
}

func pfmergeCommand(c *client, argv [][]byte) {
	s := c.srv
	var max [hllRegisters]uint8
	useDense := false
	for _, key := range argv[1:] {
		e, ok := s.lookupRead(c, key)
		if !ok {
			continue
		}
		if !hllCheck(c, e) {
			return
		}
		if e.str()[4] == hllDense {
			useDense = true
		}
		if !hllMerge(&max, e.str()) {
			c.err(errHLLInvalid)
			return
		}
	}
	key := argv[1]
	var rs *rawString
	if p := s.lookupWrite(c, key); p == nil {
		e := newRawStringEntry(hllNew())
		rs = e.rawString()
		s.addKey(c.db, key, e)
	} else {
		rs = unshareString(p)
	}
	if useDense {
		dense, ok := hllSparseToDense(rs.b)
		if !ok {
			c.err(errHLLInvalid)
			return
		}
		rs.b = dense
	}
	maxBytes := s.hllSparseMaxBytes()
	for j, v := range max {
		if v == 0 {
			continue
		}
		switch rs.b[4] {
		case hllDense:
			hllDenseSet(rs.b[hllHdrSize:], j, v)
		case hllSparse:
			hllSparseSet(rs, j, v, maxBytes)
		}
	}
	hllInvalidateCache(rs.b)
	s.signalModifiedKey(c.db, key)
	s.notify(notifyString, "pfadd", key, c.db.id)
	s.dirty++
	c.ok()
}

func pfdebugCommand(c *client, argv [][]byte) {
	s := c.srv
	sub := argv[1]
	p := s.lookupWrite(c, argv[2])
	if p == nil {
		c.err("ERR The specified key does not exist")
		return
	}
	if !hllCheck(c, *p) {
		return
	}
	rs := unshareString(p)
	switch {
	case eqFold(sub, "getreg"):
		if rs.b[4] == hllSparse {
			dense, ok := hllSparseToDense(rs.b)
			if !ok {
				c.err(errHLLInvalid)
				return
			}
			rs.b = dense
			s.dirty++ // force propagation on encoding change
		}
		regs := rs.b[hllHdrSize:]
		c.arrayLen(hllRegisters)
		for j := 0; j < hllRegisters; j++ {
			c.integer(int64(hllDenseGet(regs, j)))
		}
	case eqFold(sub, "decode"):
		b := rs.b
		if b[4] != hllSparse {
			c.err("ERR HLL encoding is not sparse")
			return
		}
		var sb strings.Builder
		for q := hllHdrSize; q < len(b); {
			op := b[q]
			switch {
			case hllIsZero(op):
				sb.WriteString("z:")
				sb.WriteString(strconv.Itoa(hllZeroLen(op)))
				q++
			case hllIsXZero(op):
				sb.WriteString("Z:")
				sb.WriteString(strconv.Itoa(hllXZeroLen(b, q)))
				q += 2
			default:
				sb.WriteString("v:")
				sb.WriteString(strconv.Itoa(hllValValue(op)))
				sb.WriteByte(',')
				sb.WriteString(strconv.Itoa(hllValLen(op)))
				q++
			}
			sb.WriteByte(' ')
		}
		c.bulkString(strings.TrimRight(sb.String(), " "))
	case eqFold(sub, "encoding"):
		if rs.b[4] == hllDense {
			c.status("dense")
		} else {
			c.status("sparse")
		}
	case eqFold(sub, "todense"):
		conv := int64(0)
		if rs.b[4] == hllSparse {
			dense, ok := hllSparseToDense(rs.b)
			if !ok {
				c.err(errHLLInvalid)
				return
			}
			rs.b = dense
			conv = 1
			s.dirty++
		}
		c.integer(conv)
	default:
		c.err("ERR Unknown PFDEBUG subcommand '" + string(cString(sub)) + "'")
	}
}

// pfselftestCommand checks the register accessors and that the sparse and
// dense representations agree (a lighter version of Redis's test).
func pfselftestCommand(c *client, argv [][]byte) {
	s := c.srv
	rng := rand.New(rand.NewSource(rand.Int63()))
	regs := make([]byte, hllDenseSize-hllHdrSize)
	var want [hllRegisters]uint8
	for cycle := 0; cycle < 20; cycle++ {
		for i := range want {
			want[i] = uint8(rng.Intn(hllRegisterMax + 1))
			hllDenseSetReg(regs, i, want[i])
		}
		for i := range want {
			if v := hllDenseGet(regs, i); v != want[i] {
				c.err("TESTFAILED Register " + strconv.Itoa(i) + " should be " + strconv.Itoa(int(want[i])) +
					" but is " + strconv.Itoa(int(v)))
				return
			}
		}
	}
	dense := &rawString{b: make([]byte, hllDenseSize)}
	copy(dense.b, "HYLL")
	sparse := &rawString{b: hllNew()}
	maxBytes := s.hllSparseMaxBytes()
	seed := rng.Uint64()
	var ele [8]byte
	checkpoint := 1
	for j := 1; j <= 100000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		hllAdd(dense, ele[:], maxBytes)
		hllAdd(sparse, ele[:], maxBytes)
		if j != checkpoint {
			continue
		}
		if int64(j) < maxBytes/2 && sparse.b[4] != hllSparse {
			c.err("TESTFAILED sparse encoding not used")
			return
		}
		cd, _ := hllCount(dense.b)
		cs, _ := hllCount(sparse.b)
		if cd != cs {
			c.err("TESTFAILED dense/sparse disagree")
			return
		}
		abserr := int64(j) - int64(cd)
		if abserr < 0 {
			abserr = -abserr
		}
		maxerr := int64(math.Ceil(1.04 / math.Sqrt(hllRegisters) * 6 * float64(j)))
		if j == 10 {
			maxerr = 1
		}
		if abserr > maxerr {
			c.err("TESTFAILED Too big error. card:" + strconv.Itoa(j) + " abserr:" + strconv.FormatInt(abserr, 10))
			return
		}
		checkpoint *= 10
	}
	c.ok()
}
