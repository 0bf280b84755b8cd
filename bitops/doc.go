// Package bitops is the bit arithmetic of Redis 7.0.15's bitops.c on a
// string's bytes, without server state: counting and finding bits in a
// range (BITCOUNT, BITPOS), BITOP's word-wise operations, and BITFIELD's
// reads and writes of 1..64-bit integers at any bit offset with its
// overflow rules. Bit 0 is the most significant bit of byte 0, as in Redis.
package bitops
