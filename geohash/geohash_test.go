package geohash

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// bigSinCos evaluates sin and cos of x with 300-bit Taylor series.
func bigSinCos(x float64) (float64, float64) {
	sin, cos := bigSinCosBig(x)
	s, _ := sin.Float64()
	c, _ := cos.Float64()
	return s, c
}

func bigSinCosBig(x float64) (*big.Float, *big.Float) {
	const prec = 300
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	x2 := new(big.Float).SetPrec(prec).Mul(bx, bx)
	sin := new(big.Float).SetPrec(prec).Set(bx)
	cos := new(big.Float).SetPrec(prec).SetInt64(1)
	ts := new(big.Float).SetPrec(prec).Set(bx)
	tc := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := 1; k < 200; k++ {
		ts.Mul(ts, x2).Quo(ts, new(big.Float).SetInt64(int64((2*k)*(2*k+1))))
		tc.Mul(tc, x2).Quo(tc, new(big.Float).SetInt64(int64((2*k-1)*(2*k))))
		if k%2 == 1 {
			sin.Sub(sin, ts)
			cos.Sub(cos, tc)
		} else {
			sin.Add(sin, ts)
			cos.Add(cos, tc)
		}
	}
	return sin, cos
}

func TestGeoMathCorrectlyRounded(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 800; i++ {
		x := (rng.Float64()*2 - 1) * 8
		if i%3 == 0 {
			x *= 1e-4
		}
		ws, wc := bigSinCos(x)
		if got := sin(x); got != ws {
			t.Fatalf("sin(%x) = %x, want %x", x, got, ws)
		}
		if got := cos(x); got != wc {
			t.Fatalf("cos(%x) = %x, want %x", x, got, wc)
		}
		// asin: y = asin(v) must be the double nearest the inverse.
		v := rng.Float64()
		y := asin(v)
		// sin(y) must be closer to v than sin of y's neighbours
		// (sin is increasing on [0, pi/2]).
		bv := new(big.Float).SetPrec(300).SetFloat64(v)
		dist := func(c float64) *big.Float {
			s, _ := bigSinCosBig(c)
			return new(big.Float).SetPrec(300).Abs(new(big.Float).SetPrec(300).Sub(s, bv))
		}
		if i%10 == 0 || v > 0.99 {
			d0 := dist(y)
			if dist(math.Nextafter(y, 0)).Cmp(d0) < 0 || dist(math.Nextafter(y, 2)).Cmp(d0) < 0 {
				t.Fatalf("asin(%v) = %v is not the nearest", v, y)
			}
		}
	}
	if got := cos(0x1.4aa29abaf85cap-01); got != 0x1.98e6c0ea27a14p-1 {
		t.Fatalf("cos = %x", got)
	}
}

func BenchmarkGeoDistance(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Distance(15, 37, 13.361389, 38.115556+float64(i&7)*1e-3)
	}
}
