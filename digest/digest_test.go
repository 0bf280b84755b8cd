package digest

import (
	"crypto/sha1"
	"math"
	"testing"
)

func TestPrimitives(t *testing.T) {
	// Reference values of Redis's SHA1-based mixing, computed by hand from
	// the definition: mix(d, x) = SHA1(d ^ SHA1(x)).
	var d Digest
	d.Mix([]byte("a"))
	h := sha1.Sum([]byte("a"))
	want := sha1.Sum(h[:])
	if d != want {
		t.Fatalf("mix: %x, want %x", d, want)
	}
	var x Digest
	x.Xor([]byte("a"))
	x.Xor([]byte("b"))
	var y Digest
	y.Xor([]byte("b"))
	y.Xor([]byte("a"))
	if x != y || x == (Digest{}) {
		t.Fatal("xor is not order-insensitive")
	}
	var m1, m2 Digest
	m1.Mix([]byte("a"))
	m1.Mix([]byte("b"))
	m2.Mix([]byte("b"))
	m2.Mix([]byte("a"))
	if m1 == m2 {
		t.Fatal("mix is order-insensitive")
	}
	for _, c := range []struct {
		f    float64
		want string
	}{{0.1, "0.10000000000000001"}, {1, "1"}, {-2.5, "-2.5"}, {1e300, "1.0000000000000001e+300"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.Copysign(0, -1), "-0"}, {5e-324, "4.9406564584124654e-324"},
		{123456789012345678, "1.2345678901234568e+17"}, {1e16, "10000000000000000"}, {1e17, "1e+17"}} {
		if got := string(appendScore(nil, c.f)); got != c.want {
			t.Errorf("appendScore(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
