package hll

import (
	"strings"
	"testing"
)

func TestHLLRegisterAccess(t *testing.T) {
	// Register accessors round-trip without touching neighbours, including
	// the last register, which ends inside the last byte.
	regs := make([]byte, DenseSize-HdrSize)
	for _, stride := range []int{1, 7, 63} {
		for i := 0; i < Registers; i++ {
			DenseSetReg(regs, i, uint8((i*stride)%64))
		}
		for i := 0; i < Registers; i++ {
			if v := DenseGet(regs, i); v != uint8((i*stride)%64) {
				t.Fatalf("stride %d: register %d = %d", stride, i, v)
			}
		}
	}
	for _, e := range []string{"", "a", "abcdefgh", "abcdefghi", strings.Repeat("z", 100)} {
		idx, cnt := hllPatLen([]byte(e))
		if idx < 0 || idx >= Registers || cnt < 1 || cnt > hllQ+1 {
			t.Fatalf("hllPatLen(%q) = %d, %d", e, idx, cnt)
		}
	}
}
