package scripting

import "bytes"

// fixExpAt is fixExp for the number at b[start:], fixed in place (redis.call
// appends its arguments to one buffer).
func fixExpAt(b []byte, start int) []byte {
	i := bytes.IndexByte(b[start:], 'e')
	if i < 0 || len(b)-start-i-2 >= 2 {
		return b
	}
	i += start + 2 // the exponent's first digit
	b = append(b, 0)
	copy(b[i+1:], b[i:])
	b[i] = '0'
	return b
}
