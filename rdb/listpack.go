package rdb

import (
	"strconv"

	"github.com/aofserver/aofserver/listpack"
)

// lpStrings returns every element of p as a byte string; integers are
// formatted in decimal.
func lpStrings(p []byte, hint int) ([][]byte, error) {
	out := make([][]byte, 0, hint)
	_, err := listpack.Each(p, func(s []byte, v int64, isInt bool) error {
		if isInt {
			s = strconv.AppendInt(nil, v, 10)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}
