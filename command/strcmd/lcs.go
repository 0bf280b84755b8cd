package strcmd

import (
	"math"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
)

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN], Redis 7.0:
// the classic dynamic-programming table (bounded by proto-max-bulk-len),
// then one walk back from its corner that yields both the subsequence and
// the matching ranges, last range first.

type lcsRange struct{ aStart, aEnd, bStart, bEnd uint32 }

func lcsCommand(c command.Ctx, argv [][]byte) {
	a, strA, okA := c.LookupReadString(argv[1])
	b, strB, okB := c.LookupReadString(argv[2])
	if (okA && !strA) || (okB && !strB) {
		c.Err("ERR The specified keys must contain string values")
		return
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(argv); j++ {
		opt := argv[j]
		more := len(argv) - 1 - j
		switch {
		case rstring.CEqualFold(opt, "idx"):
			getIdx = true
		case rstring.CEqualFold(opt, "len"):
			getLen = true
		case rstring.CEqualFold(opt, "withmatchlen"):
			withMatchLen = true
		case rstring.CEqualFold(opt, "minmatchlen") && more > 0:
			v, ok := rstring.String2ll(argv[j+1])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			minMatchLen = max(v, 0)
			j++
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.Err("ERR If you want both the length and indexes, please just use IDX.")
		return
	}
	if uint64(len(a)) >= math.MaxUint32-1 || uint64(len(b)) >= math.MaxUint32-1 {
		c.Err("ERR String too long for LCS")
		return
	}
	alen, blen := len(a), len(b)
	cells := uint64(alen+1) * uint64(blen+1)
	if cells*4 > uint64(c.Config().ProtoMaxBulkLen) {
		c.Err("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
		return
	}
	// tab[i*(blen+1)+j] = LCS length of a[:i] and b[:j].
	w := blen + 1
	tab := make([]uint32, cells)
	for i := 1; i <= alen; i++ {
		row, prev := tab[i*w:(i+1)*w], tab[(i-1)*w:i*w]
		ai := a[i-1]
		for j := 1; j <= blen; j++ {
			switch {
			case ai == b[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] > row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
	total := tab[alen*w+blen]
	if getLen {
		c.Integer(int64(total))
		return
	}

	// Walk back from the corner, collecting the subsequence (backwards)
	// and the maximal diagonal runs of matches.
	res := make([]byte, total)
	k := total
	var ranges []lcsRange
	cur, open := lcsRange{}, false
	emit := func() {
		if n := int64(cur.aEnd - cur.aStart + 1); minMatchLen == 0 || n >= minMatchLen {
			ranges = append(ranges, cur)
		}
		open = false
	}
	i, j := alen, blen
	for i > 0 && j > 0 {
		flush := false
		if a[i-1] == b[j-1] {
			k--
			res[k] = a[i-1]
			switch {
			case !open:
				cur = lcsRange{uint32(i - 1), uint32(i - 1), uint32(j - 1), uint32(j - 1)}
				open = true
			case int(cur.aStart) == i && int(cur.bStart) == j:
				cur.aStart--
				cur.bStart--
			default:
				flush = true
			}
			if cur.aStart == 0 || cur.bStart == 0 {
				flush = true
			}
			i--
			j--
		} else {
			if tab[(i-1)*w+j] > tab[i*w+j-1] {
				i--
			} else {
				j--
			}
			if open {
				flush = true
			}
		}
		if flush {
			emit()
		}
	}
	if !getIdx {
		c.Bulk(res)
		return
	}
	c.MapLen(2)
	c.BulkString("matches")
	c.ArrayLen(len(ranges))
	for _, r := range ranges {
		if withMatchLen {
			c.ArrayLen(3)
		} else {
			c.ArrayLen(2)
		}
		c.ArrayLen(2)
		c.Integer(int64(r.aStart))
		c.Integer(int64(r.aEnd))
		c.ArrayLen(2)
		c.Integer(int64(r.bStart))
		c.Integer(int64(r.bEnd))
		if withMatchLen {
			c.Integer(int64(r.aEnd - r.aStart + 1))
		}
	}
	c.BulkString("len")
	c.Integer(int64(total))
}
