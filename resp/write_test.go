package resp

import (
	"math"
	"testing"
)

// Each encoder's bytes in both protocols, as Redis 7.0.15 writes them.
func TestWriteEncoders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		r2, r3 func(b []byte, proto int) []byte
		w2, w3 string
	}{
		{name: "null", r2: AppendNull, w2: "$-1\r\n", w3: "_\r\n"},
		{name: "nullarray", r2: AppendNullArray, w2: "*-1\r\n", w3: "_\r\n"},
		{name: "map", r2: func(b []byte, p int) []byte { return AppendMapLen(b, p, 2) }, w2: "*4\r\n", w3: "%2\r\n"},
		{name: "set", r2: func(b []byte, p int) []byte { return AppendSetLen(b, p, 3) }, w2: "*3\r\n", w3: "~3\r\n"},
		{name: "push", r2: func(b []byte, p int) []byte { return AppendPushLen(b, p, 3) }, w2: "*3\r\n", w3: ">3\r\n"},
		{name: "double", r2: func(b []byte, p int) []byte { return AppendDouble(b, p, 1.5) }, w2: "$3\r\n1.5\r\n", w3: ",1.5\r\n"},
		{name: "inf", r2: func(b []byte, p int) []byte { return AppendDouble(b, p, math.Inf(-1)) }, w2: "$4\r\n-inf\r\n", w3: ",-inf\r\n"},
		{name: "bool", r2: func(b []byte, p int) []byte { return AppendBool(b, p, true) }, w2: ":1\r\n", w3: "#t\r\n"},
		{name: "verbatim", r2: func(b []byte, p int) []byte { return AppendVerbatim(b, p, "txt", []byte("hi")) },
			w2: "$2\r\nhi\r\n", w3: "=6\r\ntxt:hi\r\n"},
	} {
		if got := string(tc.r2([]byte("x"), 2)); got != "x"+tc.w2 {
			t.Errorf("%s RESP2: %q, want %q", tc.name, got, "x"+tc.w2)
		}
		if got := string(tc.r2(nil, 3)); got != tc.w3 {
			t.Errorf("%s RESP3: %q, want %q", tc.name, got, tc.w3)
		}
	}
	if got := string(AppendError(nil, "ERR a\r\nb")); got != "-ERR a  b\r\n" {
		t.Errorf("error: %q", got)
	}
	if got := string(AppendBulkHeader(nil, 12)); got != "$12\r\n" {
		t.Errorf("bulk header: %q", got)
	}
	if got := string(FormatDouble(0.1)); got != "0.10000000000000001" {
		t.Errorf("FormatDouble(0.1): %q", got)
	}
}
