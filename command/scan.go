package command

import (
	"strconv"

	"github.com/aofserver/aofserver/dict"
	"github.com/aofserver/aofserver/rstring"
)

// ParseScanCursor parses a SCAN cursor as Redis 7.0 does with strtoul:
// an optional sign ("-1" wraps to 2^64-1), "" is 0, no leading space,
// nothing after the digits, no overflow.
func ParseScanCursor(c Replier, b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	s, neg := string(b), false
	if s[0] == '+' || s[0] == '-' {
		neg, s = s[0] == '-', s[1:]
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		c.Err("ERR invalid cursor")
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// ScanCollection is HSCAN/SSCAN/ZSCAN: the cursor, the key of type t (an
// absent key is an empty page), the options, then one page of elements
// from page (per elements per item: 2 for field/value and member/score
// pairs).
func ScanCollection[T any](c Ctx, argv [][]byte, t Type, per int, page func(o *T, cursor uint64, count int64) ([][]byte, uint64)) {
	cursor, ok := ParseScanCursor(c, argv[2])
	if !ok {
		return
	}
	o, wrong := ReadTyped[T](c, argv[1], t)
	if wrong {
		return
	}
	if o == nil {
		ReplyScan(c, 0, nil)
		return
	}
	opts, ok := parseScanOpts(c, argv[3:])
	if !ok {
		return
	}
	items, next := page(o, cursor, opts.count)
	ReplyScan(c, next, opts.filter(items, per))
}

// scanOpts are the options of HSCAN/SSCAN/ZSCAN.
type scanOpts struct {
	count int64
	pat   []byte
}

// parseScanOpts parses [MATCH pattern] [COUNT n] as scanGenericCommand
// does for a key's elements (TYPE is a syntax error there).
func parseScanOpts(c Ctx, args [][]byte) (scanOpts, bool) {
	o := scanOpts{count: 10}
	for i := 0; i < len(args); i += 2 {
		if i+1 >= len(args) {
			c.Err(ErrSyntax)
			return o, false
		}
		switch {
		case rstring.EqualFold(args[i], "count"):
			n, ok := rstring.String2ll(args[i+1])
			if !ok {
				c.Err(ErrNotInt)
				return o, false
			}
			if n < 1 {
				c.Err(ErrSyntax)
				return o, false
			}
			o.count = n
		case rstring.EqualFold(args[i], "match"):
			o.pat = args[i+1]
			if len(o.pat) == 1 && o.pat[0] == '*' {
				o.pat = nil
			}
		default:
			c.Err(ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// filter drops the groups of per items whose first item does not match.
func (o *scanOpts) filter(items [][]byte, per int) [][]byte {
	if o.pat == nil {
		return items
	}
	out := items[:0]
	for i := 0; i+per <= len(items); i += per {
		if rstring.Match(o.pat, items[i], false) {
			out = append(out, items[i:i+per]...)
		}
	}
	return out
}

// ScanDict runs Redis's scan loop over a dict: buckets until count items
// were collected or count*10 more buckets were visited. Callers pass twice
// the COUNT for hashes and sorted sets (field and value both count), as
// scanGenericCommand does.
func ScanDict[V any](d *dict.Dict[V], cursor uint64, count int64, emit func(out [][]byte, k string, v *V) [][]byte) ([][]byte, uint64) {
	var items [][]byte
	maxIter := count * 10
	for {
		cursor = d.Scan(cursor, func(k string, v *V) { items = emit(items, k, v) })
		if cursor == 0 || maxIter == 0 {
			break
		}
		maxIter--
		if int64(len(items)) >= count {
			break
		}
	}
	return items, cursor
}

// ReplyScan replies a SCAN page: the next cursor and the items.
func ReplyScan(c Replier, cursor uint64, items [][]byte) {
	c.ArrayLen(2)
	var buf [20]byte
	c.Bulk(strconv.AppendUint(buf[:0], cursor, 10))
	c.ArrayLen(len(items))
	for _, it := range items {
		c.Bulk(it)
	}
}
