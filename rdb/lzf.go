package rdb

// LZF as in liblzf 3.6 (HLOG 16, VERY_FAST, not ULTRA_FAST). Redis 7.0.15
// as shipped by Debian links the system liblzf 3.6 rather than its vendored
// copy; the two differ: 3.6 also takes a match in the last 4 input bytes
// (the vendored copy requires ip+4 < in_end), which changes the output and
// sometimes whether the result fits. We follow 3.6, the golden files' writer.
//
// Compressed stream, one control byte at a time:
//
//	000LLLLL <L+1 literal bytes>
//	LLLooooo oooooooo           back-reference, length L+2 (L in 1..6)
//	111ooooo LLLLLLLL oooooooo  back-reference, length L+9
//
// The offset o counts back from the current output position minus one.
//
// Redis leaves the hash table uninitialised (INIT_HTAB 0), so a stale slot
// can in rare cases point into the new input and produce a different (still
// valid) encoding. We start every call with an empty table: the output is
// what Redis produces whenever its table holds no usable stale pointer.

const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
	// lzfMaxRatio bounds ulen/clen: a 3-byte back-reference expands to 264 bytes.
	lzfMaxRatio = 88
)

// lzfCompressor keeps the hash table between calls. Slots hold base+pos+1;
// a slot is valid for the current call only if it is above base, which
// avoids clearing 256 KiB for every small string.
type lzfCompressor struct {
	htab [lzfHSize]uint32
	base uint32
}

func lzfIdx(h uint32) uint32 { return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1) }

// compress writes the LZF form of in into out (whose length is the output
// limit) and returns the compressed length, or 0 if it does not fit, with the
// same limit checks as lzf_compress.
func (c *lzfCompressor) compress(in, out []byte) int {
	inEnd := len(in)
	outEnd := len(out)
	if inEnd == 0 || outEnd == 0 {
		return 0
	}
	if uint64(c.base)+uint64(inEnd)+2 >= 1<<32 {
		c.htab = [lzfHSize]uint32{}
		c.base = 0
	}
	base := c.base
	c.base += uint32(inEnd) + 1
	set := func(slot uint32, pos int) { c.htab[slot] = base + uint32(pos) + 1 }

	lit := 0
	op := 1 // out[0] is reserved for the length of the first literal run
	ip := 0
	var hval uint32
	if inEnd >= 2 {
		hval = uint32(in[0])<<8 | uint32(in[1])
	}
	for ip < inEnd-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := lzfIdx(hval)
		stored := c.htab[slot]
		set(slot, ip)
		ref := -1
		if stored > base {
			ref = int(stored - base - 1)
		}
		off := ip - ref - 1
		if ref > 0 && off < lzfMaxOff &&
			in[ref] == in[ip] && in[ref+1] == in[ip+1] && in[ref+2] == in[ip+2] {
			l := 2
			maxlen := inEnd - ip - l
			if maxlen > lzfMaxRef {
				maxlen = lzfMaxRef
			}
			undo := 0
			if lit == 0 {
				undo = 1
			}
			if op-undo+3+1 >= outEnd {
				return 0
			}
			out[op-lit-1] = byte(lit - 1) // stop run
			op -= undo                    // an empty run takes no byte
			stopped := false
			if maxlen > 16 {
				// liblzf's unrolled part compares 16 bytes without the maxlen test.
				for i := 0; i < 16; i++ {
					l++
					if in[ref+l] != in[ip+l] {
						stopped = true
						break
					}
				}
			}
			if !stopped {
				for {
					l++
					if !(l < maxlen && in[ref+l] == in[ip+l]) {
						break
					}
				}
			}
			l -= 2 // encoded length: match length minus two
			ip++
			if l < 7 {
				out[op] = byte(off>>8) + byte(l<<5)
				op++
			} else {
				out[op] = byte(off>>8) + 7<<5
				out[op+1] = byte(l - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += l + 1
			if ip >= inEnd-2 {
				break
			}
			// VERY_FAST: rehash the last two positions of the match.
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			set(lzfIdx(hval), ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			set(lzfIdx(hval), ip)
			ip++
		} else {
			if op >= outEnd {
				return 0
			}
			lit++
			out[op] = in[ip]
			op++
			ip++
			if lit == lzfMaxLit {
				out[op-lit-1] = byte(lit - 1)
				lit = 0
				op++
			}
		}
	}
	if op+3 > outEnd {
		return 0
	}
	for ip < inEnd {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1) // end run
	if lit == 0 {
		op--
	}
	return op
}

// lzfDecompress expands in into out, which must have exactly the expected
// uncompressed length. It reports false on any malformed or short input.
func lzfDecompress(in, out []byte) bool {
	ip, op := 0, 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 32 {
			n := ctrl + 1
			if op+n > len(out) || ip+n > len(in) {
				return false
			}
			copy(out[op:], in[ip:ip+n])
			op += n
			ip += n
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			if ip >= len(in) {
				return false
			}
			n += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return false
		}
		ref := op - (ctrl&0x1f)<<8 - int(in[ip]) - 1
		ip++
		n += 2
		if ref < 0 || op+n > len(out) {
			return false
		}
		// Byte by byte: source and destination may overlap.
		for i := 0; i < n; i++ {
			out[op] = out[ref]
			op++
			ref++
		}
	}
	return op == len(out)
}
