package memsize

import "testing"

// The classes jemalloc 5 has on x86-64 below 1 KB, and a few above.
func TestJemallocClasses(t *testing.T) {
	classes := []int64{8, 16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512,
		640, 768, 896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120}
	prev := int64(0)
	for _, c := range classes {
		for n := prev + 1; n <= c; n++ {
			if got := Jemalloc(n); got != c {
				t.Fatalf("Jemalloc(%d) = %d, want %d", n, got, c)
			}
		}
		prev = c
	}
}

func TestSdsNewLen(t *testing.T) {
	for _, tc := range []struct{ n, avail, zmalloc int }{
		{0, 4, 8},      // sdshdr8, 3+0+1 → 8
		{10, 0, 16},    // sdshdr5: no alloc field
		{40, 4, 48},    // sdshdr8: 3+40+1=44 → 48
		{300, 14, 320}, // sdshdr16: 5+300+1=306 → 320, less 5+1
	} {
		avail, z := SdsNewLen(tc.n)
		if avail != tc.avail || z != tc.zmalloc {
			t.Errorf("SdsNewLen(%d) = %d, %d; want %d, %d", tc.n, avail, z, tc.avail, tc.zmalloc)
		}
	}
}
