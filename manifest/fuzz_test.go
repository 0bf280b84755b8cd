package manifest

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkRoundTrip asserts parse → marshal → parse gives the same manifest and
// that marshalling is stable.
func checkRoundTrip(t *testing.T, m *Manifest) {
	t.Helper()
	text := m.Marshal()
	back, err := Parse(bytes.NewReader(text))
	if longestLine(text) > maxLine {
		// Quoting can push a name past Redis's line limit; Redis then cannot
		// read its own manifest either, and neither may we.
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Msg != msgTooLong {
			t.Fatalf("reparse of a %d-byte line: %v, want %q", longestLine(text), err, msgTooLong)
		}
		return
	}
	if err != nil {
		t.Fatalf("reparse of %q: %v", text, err)
	}
	if !reflect.DeepEqual(normalize(back), normalize(m)) {
		t.Fatalf("round trip changed the manifest:\n%s\n%s\ntext %q", dump(m), dump(back), text)
	}
	if again := back.Marshal(); !bytes.Equal(again, text) {
		t.Fatalf("Marshal not stable: %q vs %q", text, again)
	}
}

// longestLine is the length of the longest line including its '\n'.
func longestLine(text []byte) int {
	longest := 0
	for line := range bytes.SplitAfterSeq(text, []byte("\n")) {
		longest = max(longest, len(line))
	}
	return longest
}

// normalize maps empty slices to nil so DeepEqual compares content.
func normalize(m *Manifest) *Manifest {
	c := m.Clone()
	if len(c.History) == 0 {
		c.History = nil
	}
	if len(c.Incrs) == 0 {
		c.Incrs = nil
	}
	return c
}

func randName(rng *rand.Rand) string {
	n := rng.IntN(12)
	b := make([]byte, 0, n)
	for range n {
		c := byte(rng.IntN(256))
		if c == 0 || c == '/' || c == '\\' { // Parse rejects or cuts these
			c = 'a'
		}
		b = append(b, c)
	}
	return string(b)
}

// TestRoundTripProperty builds random valid manifests (any byte in names
// except NUL, '/', '\\'; any non-zero seq) and round-trips them.
func TestRoundTripProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for range 2000 {
		m := &Manifest{}
		if rng.IntN(3) > 0 {
			seq := rng.Int64() - rng.Int64()
			if seq == 0 {
				seq = 1
			}
			m.Base = &File{randName(rng), seq, Base}
			m.CurrBaseSeq = seq
		}
		for range rng.IntN(4) {
			m.History = append(m.History, File{randName(rng), rng.Int64N(100) + 1, History})
		}
		seq := int64(0)
		for range rng.IntN(4) {
			seq += rng.Int64N(1000) + 1
			m.Incrs = append(m.Incrs, File{randName(rng), seq, Incr})
			m.CurrIncrSeq = seq
		}
		if m.Base == nil && len(m.History) == 0 && len(m.Incrs) == 0 {
			continue // Marshal gives "", which Redis reads as an empty-file error
		}
		checkRoundTrip(t, m)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.manifest")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, c := range errCases {
		f.Add([]byte(c.in))
	}
	for _, c := range okCases {
		f.Add([]byte(c.in))
	}
	known := map[string]bool{msgEmpty: true, msgTooLong: true, msgInvalid: true, msgPath: true,
		msgDuplicate: true, msgNonMonotonic: true, msgUnknownType: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(bytes.NewReader(data))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrCorrupt) || !known[pe.Msg] {
				t.Fatalf("unexpected error %v", err)
			}
			if pe.Line < 0 || strings.ContainsAny(pe.Text, "\n") {
				t.Fatalf("bad position %+v", pe)
			}
			return
		}
		if m.Empty() && len(m.History) == 0 {
			if len(m.Marshal()) != 0 {
				t.Fatal("empty manifest marshals to text")
			}
			return
		}
		checkRoundTrip(t, m)
	})
}
