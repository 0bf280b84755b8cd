package rdb

// Redis's CRC-64 ("Jones"): reflected polynomial 0x95ac9329ac4bc9b5,
// initial value 0 and no final xor. hash/crc64 inverts the value before and
// after each update, so its Checksum gives a different number for the same
// table; this file implements the plain algorithm with slicing-by-8.
const crc64Poly = 0x95ac9329ac4bc9b5

var crc64Tab = makeCRC64Tables()

func makeCRC64Tables() *[8][256]uint64 {
	t := new([8][256]uint64)
	for i := 0; i < 256; i++ {
		crc := uint64(i)
		for j := 0; j < 8; j++ {
			if crc&1 == 1 {
				crc = crc>>1 ^ crc64Poly
			} else {
				crc >>= 1
			}
		}
		t[0][i] = crc
	}
	for i := 0; i < 256; i++ {
		crc := t[0][i]
		for k := 1; k < 8; k++ {
			crc = t[0][crc&0xff] ^ crc>>8
			t[k][i] = crc
		}
	}
	return t
}

// CRC64 continues Redis's CRC-64 over p. Start with crc = 0; the checksum of
// a whole RDB file is CRC64(0, everything up to and including the EOF opcode).
func CRC64(crc uint64, p []byte) uint64 {
	t := crc64Tab
	for len(p) >= 8 {
		crc ^= uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
			uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24&0xff] ^
			t[3][crc>>32&0xff] ^ t[2][crc>>40&0xff] ^ t[1][crc>>48&0xff] ^ t[0][crc>>56]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return crc
}
