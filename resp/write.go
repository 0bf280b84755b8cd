package resp

import (
	"math"
	"strconv"

	"github.com/tidwall/redcon"
)

// Reply encoders that depend only on the protocol the client chose (2 or
// 3, HELLO): RESP3's types and their RESP2 forms, as Redis's addReplyNull,
// addReplyMapLen, ... write them. Each appends to b and returns it.

// AppendNull appends shared.null[proto]: "$-1" in RESP2, "_" in RESP3.
func AppendNull(b []byte, proto int) []byte {
	if proto == 3 {
		return append(b, "_\r\n"...)
	}
	return append(b, "$-1\r\n"...)
}

// AppendNullArray appends shared.nullarray[proto]: "*-1" or "_".
func AppendNullArray(b []byte, proto int) []byte {
	if proto == 3 {
		return append(b, "_\r\n"...)
	}
	return append(b, "*-1\r\n"...)
}

// AppendAggLen appends an aggregate's header: kind ('*', '%', '~', '>')
// and its length.
func AppendAggLen(b []byte, kind byte, n int) []byte {
	b = append(b, kind)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// AppendMapLen starts a map of n pairs: "%n", or a flat array of 2n in
// RESP2.
func AppendMapLen(b []byte, proto, n int) []byte {
	if proto == 3 {
		return AppendAggLen(b, '%', n)
	}
	return redcon.AppendArray(b, 2*n)
}

// AppendSetLen starts a set: "~n", or an array in RESP2.
func AppendSetLen(b []byte, proto, n int) []byte {
	if proto == 3 {
		return AppendAggLen(b, '~', n)
	}
	return redcon.AppendArray(b, n)
}

// AppendPushLen starts an out-of-band push: ">n", or an array in RESP2.
func AppendPushLen(b []byte, proto, n int) []byte {
	if proto == 3 {
		return AppendAggLen(b, '>', n)
	}
	return redcon.AppendArray(b, n)
}

// AppendBulkHeader appends "$<n>\r\n", a bulk string's header.
func AppendBulkHeader(b []byte, n int) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// AppendCommand appends argv as a request: a RESP array of bulk strings
// ("*<argc>\r\n", then "$<len>\r\n<bytes>\r\n" per argument), the form
// clients send and the AOF stores.
func AppendCommand[S ~string | ~[]byte](b []byte, argv []S) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(argv)), 10)
	b = append(b, '\r', '\n')
	for _, arg := range argv {
		b = AppendBulkHeader(b, len(arg))
		b = append(b, arg...)
		b = append(b, '\r', '\n')
	}
	return b
}

// FormatDouble formats a double reply as Redis 7.0 does ("%.17g", inf).
func FormatDouble(f float64) []byte {
	if math.IsInf(f, 1) {
		return []byte("inf")
	}
	if math.IsInf(f, -1) {
		return []byte("-inf")
	}
	if math.IsNaN(f) { // glibc's printf: the sign bit shows
		if math.Signbit(f) {
			return []byte("-nan")
		}
		return []byte("nan")
	}
	return strconv.AppendFloat(nil, f, 'g', 17, 64)
}

// AppendDouble appends a double: ",<d>" or a bulk string in RESP2,
// formatted as Redis's addReplyDouble (%.17g, inf/-inf).
func AppendDouble(b []byte, proto int, f float64) []byte {
	if proto == 3 {
		b = append(b, ',')
		b = append(b, FormatDouble(f)...)
		return append(b, '\r', '\n')
	}
	return redcon.AppendBulk(b, FormatDouble(f))
}

// AppendBool appends "#t"/"#f", or 1 / 0 in RESP2 (addReplyBool).
func AppendBool(b []byte, proto int, v bool) []byte {
	if proto == 3 {
		if v {
			return append(b, "#t\r\n"...)
		}
		return append(b, "#f\r\n"...)
	}
	if v {
		return redcon.AppendInt(b, 1)
	}
	return redcon.AppendInt(b, 0)
}

// AppendVerbatim appends a verbatim string "=<len>\r\n<fmt>:<text>"
// (format is three letters, "txt" or "mkd"), or a bulk string in RESP2.
func AppendVerbatim(b []byte, proto int, format string, text []byte) []byte {
	if proto == 3 {
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(len(text)+4), 10)
		b = append(b, '\r', '\n')
		b = append(b, format...)
		b = append(b, ':')
		b = append(b, text...)
		return append(b, '\r', '\n')
	}
	return redcon.AppendBulk(b, text)
}

// AppendError appends "-<msg>\r\n" (msg starts with the error code),
// newlines in msg turned into spaces, as addReplyErrorLength does.
func AppendError(b []byte, msg string) []byte {
	b = append(b, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return append(b, '\r', '\n')
}
