package rstring

import (
	"strings"
	"testing"
)

func TestEqualFold(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"", "", true}, {"SET", "set", true}, {"sEt", "SeT", true}, {"set", "sets", false},
		{"[", "{", false}, {"@", "`", false}, {"\xc9", "\xe9", false}, {"K", "\u212a", false},
	} {
		if got := EqualFold(tc.a, tc.b); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := EqualFold([]byte(tc.a), tc.b); got != tc.want {
			t.Errorf("EqualFold([]byte(%q), %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		// strings.EqualFold folds Unicode too; on ASCII they agree
		if isASCII(tc.a+tc.b) && strings.EqualFold(tc.a, tc.b) != tc.want {
			t.Errorf("strings.EqualFold disagrees on %q %q", tc.a, tc.b)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
