package rdb

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/aofserver/aofserver/rstring"
)

// buildIntset encodes canonical-integer members as an intset: sorted,
// deduplicated, with the smallest width that holds every value. It reports
// false if some member is not a canonical int64.
func buildIntset(dst []byte, members [][]byte) ([]byte, bool) {
	vals := make([]int64, 0, len(members))
	for _, m := range members {
		v, ok := rstring.String2ll(m)
		if !ok {
			return dst, false
		}
		vals = append(vals, v)
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	width := 2
	for _, v := range vals {
		if v < -2147483648 || v > 2147483647 {
			width = 8
			break
		}
		if v < -32768 || v > 32767 {
			width = 4
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(width))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(vals)))
	for _, v := range vals {
		switch width {
		case 2:
			dst = binary.LittleEndian.AppendUint16(dst, uint16(v))
		case 4:
			dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
		default:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		}
	}
	return dst, true
}

// intsetStrings validates an intset blob and returns its members as
// decimal text. Redis checks the ascending order only when sanitizing
// (intsetValidateIntegrity with deep set); we always do, since a set
// whose members are out of order or repeated cannot be held faithfully.
func intsetStrings(p []byte) ([][]byte, error) {
	if len(p) < 8 {
		return nil, errIntset
	}
	width := binary.LittleEndian.Uint32(p)
	count := binary.LittleEndian.Uint32(p[4:])
	if count == 0 || (width != 2 && width != 4 && width != 8) { // Redis refuses an empty intset
		return nil, errIntset
	}
	if uint64(len(p)-8) != uint64(count)*uint64(width) {
		return nil, errIntset
	}
	out := make([][]byte, 0, count)
	var prev int64
	for i := 0; i < int(count); i++ {
		d := p[8+i*int(width):]
		var v int64
		switch width {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(d)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(d)))
		default:
			v = int64(binary.LittleEndian.Uint64(d))
		}
		if i > 0 && v <= prev {
			return nil, errIntset
		}
		prev = v
		out = append(out, strconv.AppendInt(nil, v, 10))
	}
	return out, nil
}
