package bitops

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestBitfieldOverflowModel checks the overflow helpers against exact
// arithmetic for every width.
func TestOverflowModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20000; i++ {
		w := 1 + r.IntN(64)
		incr := int64(r.Uint64()) >> r.IntN(64)
		if w < 64 {
			max := uint64(1)<<w - 1
			v := r.Uint64() & max
			exact := new(big.Int).Add(new(big.Int).SetUint64(v), big.NewInt(incr))
			want := 0
			if exact.Cmp(new(big.Int).SetUint64(max)) > 0 {
				want = 1
			} else if exact.Sign() < 0 {
				want = -1
			}
			of, lim := UnsignedOverflow(v, incr, w, Sat)
			if of != want || (of == 1 && lim != max) || (of == -1 && lim != 0) {
				t.Fatalf("u%d %d%+d: overflow %d limit %d, want %d", w, v, incr, of, lim, want)
			}
			if _, wl := UnsignedOverflow(v, incr, w, Wrap); of != 0 && wl != (v+uint64(incr))&max {
				t.Fatalf("u%d %d%+d: wrap %d", w, v, incr, wl)
			}
		}
		smax := int64(math.MaxInt64)
		if w < 64 {
			smax = 1<<(w-1) - 1
		}
		v := int64(r.Uint64()) >> (64 - w) // sign-extended w-bit value
		exact := new(big.Int).Add(big.NewInt(v), big.NewInt(incr))
		want := 0
		if exact.Cmp(big.NewInt(smax)) > 0 {
			want = 1
		} else if exact.Cmp(big.NewInt(-smax-1)) < 0 {
			want = -1
		}
		of, lim := SignedOverflow(v, incr, w, Sat)
		if of != want || (of == 1 && lim != smax) || (of == -1 && lim != -smax-1) {
			t.Fatalf("i%d %d%+d: overflow %d limit %d, want %d", w, v, incr, of, lim, want)
		}
		if of != 0 {
			_, wl := SignedOverflow(v, incr, w, Wrap)
			if got := GetSigned(binaryBE(uint64(wl)), 64-uint64(w), w); got != wl || uint64(wl)<<(64-w) != uint64(v+incr)<<(64-w) {
				t.Fatalf("i%d %d%+d: wrap %d", w, v, incr, wl)
			}
		}
	}
}

func binaryBE(v uint64) []byte {
	var b [8]byte
	for i := range b {
		b[i] = byte(v >> (56 - 8*i))
	}
	return b[:]
}
