package server

import (
	"bytes"
	"sort"
	"unsafe"

	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/list"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/set"
	"github.com/aofserver/aofserver/skiplist"
	"github.com/aofserver/aofserver/zset"
)

// SORT and SORT_RO, following Redis 7.0's sortCommandGeneric.

func init() {
	register(
		&command{name: "sort", arity: -2, flags: cmdWrite | cmdDenyOOM, firstKey: 1, lastKey: 1, step: 1, proc: sortCommand,
			group: "generic", summary: "Sort the elements in a list, set or sorted set", since: "1.0.0",
			acl: []string{"@write", "@set", "@sortedset", "@list", "@slow", "@dangerous"}},
		&command{name: "sort_ro", arity: -2, flags: cmdReadonly, firstKey: 1, lastKey: 1, step: 1, proc: sortroCommand,
			group: "generic", summary: "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", since: "7.0.0",
			acl: []string{"@read", "@set", "@sortedset", "@list", "@slow", "@dangerous"}},
	)
}

func sortCommand(c *client, argv [][]byte)   { sortGeneric(c, argv, false) }
func sortroCommand(c *client, argv [][]byte) { sortGeneric(c, argv, true) }

// sortItem is one element of the sorting vector (redisSortObject).
type sortItem struct {
	obj    []byte
	score  float64
	cmpobj []byte // BY value in ALPHA mode; nil when the lookup failed
	hasCmp bool
}

// sortLookup is lookupKeyByPattern: "#" is the element itself; otherwise
// the first '*' is replaced by subst and an optional "->field" suffix
// reads a hash field. ok=false when there is nothing to return.
func (s *Server) sortLookup(c *client, pattern, subst []byte) ([]byte, bool) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return subst, true
	}
	p := bytes.IndexByte(pattern, '*')
	if p < 0 {
		return nil, false
	}
	var field []byte
	if f := bytes.Index(pattern[p+1:], []byte("->")); f >= 0 && p+1+f+2 < len(pattern) {
		field = pattern[p+1+f+2:]
	}
	postEnd := len(pattern)
	if field != nil {
		postEnd -= len(field) + 2
	}
	key := make([]byte, 0, p+len(subst)+postEnd-p-1)
	key = append(key, pattern[:p]...)
	key = append(key, subst...)
	key = append(key, pattern[p+1:postEnd]...)
	e, ok := s.lookupRead(c, key)
	if !ok {
		return nil, false
	}
	if field != nil {
		if e.typ() != typHash {
			return nil, false
		}
		return (*hash.Hash)(e.ptr).Get(field)
	}
	if e.typ() != typString {
		return nil, false
	}
	return e.str(), true
}

// sortStrtod is the check SORT applies to a weight: strtod over the C
// string must consume everything (an empty string is 0), with no ERANGE and
// no NaN.
func sortStrtod(b []byte) (float64, bool) {
	b = cString(b)
	if len(b) == 0 {
		return 0, true
	}
	i := 0
	for i < len(b) && rstring.IsSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return 0, false
	}
	f, erange, ok := rstring.Strtod(b[i:])
	if !ok || erange {
		return 0, false
	}
	return f, true
}

// sortCollate compares like strcoll in the C/C.UTF-8 locale: byte order of
// the strings up to their first NUL.
func sortCollate(a, b []byte) int { return bytes.Compare(cString(a), cString(b)) }

func sortGeneric(c *client, argv [][]byte, readonly bool) {
	s := c.srv
	desc, alpha, dontsort := false, false, false
	var limitStart, limitCount int64 = 0, -1
	var sortby, storekey []byte
	var gets [][]byte
	// BY and GET patterns name keys the ACL check did not see: they need
	// unrestricted read access (ACLUserCheckCmdWithUnrestrictedKeyAccess)
	fullKeys := c.user == nil || c.user.Open() || s.aclFullKeyAccess(c.user, argv)
	for j := 2; j < len(argv); j++ {
		left := len(argv) - j - 1
		a := argv[j]
		switch {
		case eqFold(a, "asc"):
			desc = false
		case eqFold(a, "desc"):
			desc = true
		case eqFold(a, "alpha"):
			alpha = true
		case eqFold(a, "limit") && left >= 2:
			v, ok := parseInt(argv[j+1])
			if !ok {
				c.errNotInt()
				return
			}
			limitStart = v
			v, ok = parseInt(argv[j+2])
			if !ok {
				c.errNotInt()
				return
			}
			limitCount = v
			j += 2
		case !readonly && eqFold(a, "store") && left >= 1:
			storekey = argv[j+1]
			j++
		case eqFold(a, "by") && left >= 1:
			sortby = argv[j+1]
			if bytes.IndexByte(sortby, '*') < 0 {
				dontsort = true
			} else if !fullKeys {
				c.err("ERR BY option of SORT denied due to insufficient ACL permissions.")
				return
			}
			j++
		case eqFold(a, "get") && left >= 1:
			if !fullKeys {
				c.err("ERR GET option of SORT denied due to insufficient ACL permissions.")
				return
			}
			gets = append(gets, argv[j+1])
			j++
		default:
			c.errSyntax()
			return
		}
	}

	key := argv[1]
	e, found := s.lookupRead(c, key)
	typ := typList
	if found {
		typ = e.typ()
		if typ != typSet && typ != typList && typ != typZSet {
			c.errWrongType()
			return
		}
	}
	// An unsorted set gives hash-table order: with STORE it is sorted so
	// that the stored list does not depend on the table layout.
	if dontsort && typ == typSet && storekey != nil {
		dontsort, alpha, sortby = false, true, nil
	}
	var zs *zset.Set
	if found && typ == typZSet {
		zs = (*zset.Set)(e.ptr)
		if !zs.Skiplist() {
			// Redis converts the sorted set to a skiplist for SORT.
			s.beforeModify(c.db, bstr(key))
			zs.ConvertToSkiplist()
		}
	}
	vectorlen := 0
	if found {
		switch typ {
		case typList:
			vectorlen = (*list.List)(e.ptr).Len()
		case typSet:
			vectorlen = (*set.Set)(e.ptr).Len()
		case typZSet:
			vectorlen = zs.Len()
		}
	}
	vl := int64(vectorlen)
	start := min(max(limitStart, 0), vl)
	limitCount = min(max(limitCount, -1), vl)
	end := vl - 1
	if limitCount >= 0 {
		end = start + limitCount - 1
	}
	if start >= vl {
		start, end = vl-1, vl-2
	}
	if end >= vl {
		end = vl - 1
	}
	if (typ == typZSet || typ == typList) && dontsort && (start != 0 || end != vl-1) {
		vl = end - start + 1
		if vl < 0 {
			vl = 0
		}
	}

	vector := make([]sortItem, 0, vl)
	switch {
	case !found:
	case typ == typList && dontsort:
		l := (*list.List)(e.ptr)
		if end >= start {
			n := l.Len()
			for i := int64(0); i < vl; i++ {
				idx := int(start + i)
				if desc {
					idx = n - 1 - idx
				}
				if idx < 0 || idx >= n {
					break
				}
				vector = append(vector, sortItem{obj: l.At(idx)})
			}
			end -= start
			start = 0
		}
	case typ == typList:
		(*list.List)(e.ptr).Each(func(v []byte) bool {
			vector = append(vector, sortItem{obj: v})
			return true
		})
	case typ == typSet:
		(*set.Set)(e.ptr).Each(func(m []byte) bool {
			vector = append(vector, sortItem{obj: cloneBytes(m)})
			return true
		})
	case typ == typZSet && dontsort:
		n := zs.Len()
		rk := int(start)
		if desc {
			rk = n - 1 - int(start)
		}
		cur := zs.Cursor(rk)
		for i := int64(0); i < vl && cur.Valid(); i++ {
			m, _ := cur.Get()
			vector = append(vector, sortItem{obj: m})
			cur.Step(desc)
		}
		end -= start
		start = 0
	default: // zset, in its dict's order (sorted below)
		zs.Dict().Range(func(_ string, n **skiplist.Node) bool {
			vector = append(vector, sortItem{obj: (*n).Member})
			return true
		})
	}

	convErr := false
	if !dontsort {
		for j := range vector {
			it := &vector[j]
			byval := it.obj
			if sortby != nil {
				v, ok := s.sortLookup(c, sortby, it.obj)
				if !ok {
					continue
				}
				byval = v
			}
			if alpha {
				if sortby != nil {
					it.cmpobj, it.hasCmp = byval, true
				}
				continue
			}
			f, ok := sortStrtod(byval)
			it.score = f
			if !ok {
				convErr = true
			}
		}
		store := storekey != nil
		cmp := func(a, b *sortItem) int {
			var r int
			switch {
			case !alpha:
				switch {
				case a.score > b.score:
					r = 1
				case a.score < b.score:
					r = -1
				default:
					r = bytes.Compare(a.obj, b.obj)
				}
			case sortby != nil:
				switch {
				case !a.hasCmp || !b.hasCmp:
					switch {
					case a.hasCmp == b.hasCmp:
						r = 0
					case !a.hasCmp:
						r = -1
					default:
						r = 1
					}
				case store:
					r = bytes.Compare(a.cmpobj, b.cmpobj)
				default:
					r = sortCollate(a.cmpobj, b.cmpobj)
				}
			case store:
				r = bytes.Compare(a.obj, b.obj)
			default:
				r = sortCollate(a.obj, b.obj)
			}
			if desc {
				return -r
			}
			return r
		}
		// glibc's qsort is a merge sort: stable for equal elements.
		sort.SliceStable(vector, func(i, j int) bool { return cmp(&vector[i], &vector[j]) < 0 })
	}

	n := end - start + 1
	if n < 0 {
		n = 0
	}
	outputlen := n
	if len(gets) > 0 {
		outputlen = int64(len(gets)) * n
	}
	if convErr {
		c.err("ERR One or more scores can't be converted into double")
		return
	}
	if storekey == nil {
		c.arrayLen(int(outputlen))
		for j := start; j <= end; j++ {
			obj := vector[j].obj
			if len(gets) == 0 {
				c.bulk(obj)
			}
			for _, g := range gets {
				v, ok := s.sortLookup(c, g, obj)
				c.bulkOrNull(v, ok)
			}
		}
		return
	}
	out := list.New()
	for j := start; j <= end; j++ {
		obj := vector[j].obj
		if len(gets) == 0 {
			out.PushBack(cloneBytes(obj))
			continue
		}
		for _, g := range gets {
			v, ok := s.sortLookup(c, g, obj)
			if !ok {
				v = nil
			}
			out.PushBack(cloneBytes(v))
		}
	}
	if outputlen > 0 {
		s.setKey(c.db, storekey, newObjEntry(typList, unsafe.Pointer(out)), false)
		s.signalModifiedKey(c.db, storekey)
		s.notify(notifyList, "sortstore", storekey, c.db.id)
		s.dirty += outputlen
	} else if s.deleteKey(c.db, storekey) {
		s.signalModifiedKey(c.db, storekey)
		s.notify(notifyGeneric, "del", storekey, c.db.id)
		s.dirty++
	}
	c.integer(outputlen)
}
