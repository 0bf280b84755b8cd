package digest

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/aofserver/aofserver/rdb"
)

// Digest is a SHA1-sized digest; the zero value is Redis's zeroed one.
type Digest [20]byte

func (d *Digest) Xor(b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

func (d *Digest) XorDigest(o *Digest) {
	d.Xor(o[:])
}

func (d *Digest) Mix(b []byte) {
	d.Xor(b)
	*d = sha1.Sum(d[:])
}

func (d *Digest) MixUint32(v uint32) {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v) // htonl
	d.Mix(b[:])
}

// appendScore formats a zset score like C's "%.17g" (Redis 7.0's
// debug.c), including "inf"/"-inf".
func appendScore(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// MixCollection adds a collection's content to d, from its RDB form.
func (d *Digest) MixCollection(v *rdb.Value) {
	switch v.Kind {
	case rdb.KindList:
		for _, el := range v.List {
			d.Mix(el)
		}
	case rdb.KindSet:
		for _, m := range v.Set {
			d.Xor(m)
		}
	case rdb.KindZSet:
		var buf [32]byte
		for _, m := range v.ZSet {
			var ed Digest
			ed.Mix(m.Member)
			ed.Mix(appendScore(buf[:0], m.Score))
			d.XorDigest(&ed)
		}
	case rdb.KindHash:
		for _, p := range v.Hash {
			var ed Digest
			ed.Mix(p[0])
			ed.Mix(p[1])
			d.XorDigest(&ed)
		}
	case rdb.KindStream:
		// Redis: mix "<ms>.<seq>" then each field and value, in ID order
		// (groups are not digested).
		var buf [48]byte
		for _, e := range v.Stream.Entries {
			b := strconv.AppendUint(buf[:0], e.ID.Ms, 10)
			b = append(b, '.')
			b = strconv.AppendUint(b, e.ID.Seq, 10)
			d.Mix(b)
			for _, p := range e.Fields {
				d.Mix(p[0])
				d.Mix(p[1])
			}
		}
	}
}
