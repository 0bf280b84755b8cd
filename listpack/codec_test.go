package listpack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"
)

// buildOf builds a listpack of the fields of s split at '|'.
func buildOf(s string) ([]byte, [][]byte) {
	var b Builder
	b.Begin(nil)
	var want [][]byte
	for _, f := range bytes.Split([]byte(s), []byte("|")) {
		b.AppendString(f)
		want = append(want, f)
	}
	return b.Finish(), want
}

func TestBuilderSizeAndEach(t *testing.T) {
	long := string(bytes.Repeat([]byte("x"), 5000))
	lp, want := buildOf("a|0|-1|127|128|-4096|4095|32767|-32768|8388607|2147483647|9223372036854775807|" + long + "|007|1e3")
	if int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != terminator {
		t.Fatalf("header says %d bytes of %d, last byte %#x", binary.LittleEndian.Uint32(lp), len(lp), lp[len(lp)-1])
	}
	var got [][]byte
	n, err := Each(lp, func(s []byte, v int64, isInt bool) error {
		if isInt {
			s = strconv.AppendInt(nil, v, 10)
		}
		got = append(got, s)
		return nil
	})
	if err != nil || n != len(want) || Count(lp) != n {
		t.Fatalf("Each: n=%d err=%v Count=%d, want %d", n, err, Count(lp), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("element %d: %q, want %q", i, got[i], want[i])
		}
	}
	// Each refuses what lpValidateIntegrity refuses
	bad := append([]byte(nil), lp...)
	bad[len(bad)-1] = 0
	if _, err := Each(bad, func([]byte, int64, bool) error { return nil }); !errors.Is(err, ErrHeader) {
		t.Fatalf("no terminator: %v", err)
	}
	bad = append([]byte(nil), lp...)
	bad[4]++ // header count
	if _, err := Each(bad, func([]byte, int64, bool) error { return nil }); !errors.Is(err, ErrCount) {
		t.Fatalf("wrong count: %v", err)
	}
}

// FuzzEach: any bytes are validated without a panic, and whatever Builder
// writes reads back element for element, integers in canonical form.
func FuzzEach(f *testing.F) {
	for _, s := range []string{"", "a", "1|2|3", "-1|x|99999999999", "a||b", "\xff\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Each([]byte(s), func([]byte, int64, bool) error { return nil })
		lp, want := buildOf(s)
		i := 0
		_, err := Each(lp, func(b []byte, v int64, isInt bool) error {
			if isInt {
				b = strconv.AppendInt(nil, v, 10)
			}
			if !bytes.Equal(b, want[i]) {
				t.Fatalf("element %d: %q, want %q", i, b, want[i])
			}
			i++
			return nil
		})
		if err != nil || i != len(want) {
			t.Fatalf("read back %d of %d: %v", i, len(want), err)
		}
	})
}
