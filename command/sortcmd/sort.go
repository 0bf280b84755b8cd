// Package sortcmd is SORT and SORT_RO (Redis's sort.c) on lists, sets and
// sorted sets, written against the seam of package command.
package sortcmd

import (
	"bytes"
	"sort"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/hash"
	"github.com/aofserver/aofserver/list"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/set"
	"github.com/aofserver/aofserver/skiplist"
	"github.com/aofserver/aofserver/zset"
)

// Group is SORT and SORT_RO, which Redis files under "generic" with the
// categories of the types they read.
var Group = command.Group{Name: "generic", Category: "@set", Commands: []command.Spec{
	{Name: "sort", Arity: -2, Flags: command.FlagWrite | command.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Proc: sortCommand,
		Summary: "Sort the elements in a list, set or sorted set", Since: "1.0.0",
		ACL: []string{"@write", "@sortedset", "@list", "@slow", "@dangerous"}},
	{Name: "sort_ro", Arity: -2, Flags: command.FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Proc: sortroCommand,
		Summary: "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", Since: "7.0.0",
		ACL: []string{"@read", "@sortedset", "@list", "@slow", "@dangerous"}},
}}

func sortCommand(c command.Ctx, argv [][]byte)   { sortGeneric(c, argv, false) }
func sortroCommand(c command.Ctx, argv [][]byte) { sortGeneric(c, argv, true) }

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
func sortLookup(c command.Ctx, pattern, subst []byte) ([]byte, bool) {
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
	if field == nil {
		b, isString, ok := c.LookupReadString(key)
		return b, ok && isString
	}
	e, ok := c.LookupRead(key)
	if !ok || e.Type != command.TypeHash {
		return nil, false
	}
	return (*hash.Hash)(e.Ptr).Get(field)
}

// sortStrtod is the check SORT applies to a weight: strtod over the C
// string must consume everything (an empty string is 0), with no ERANGE and
// no NaN.
func sortStrtod(b []byte) (float64, bool) {
	b = rstring.CString(b)
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
func sortCollate(a, b []byte) int { return bytes.Compare(rstring.CString(a), rstring.CString(b)) }

func sortGeneric(c command.Ctx, argv [][]byte, readonly bool) {
	desc, alpha, dontsort := false, false, false
	var limitStart, limitCount int64 = 0, -1
	var sortby, storekey []byte
	var gets [][]byte
	// BY and GET patterns name keys the ACL check did not see: they need
	// unrestricted read access (ACLUserCheckCmdWithUnrestrictedKeyAccess)
	fullKeys := c.FullKeyAccess(argv)
	for j := 2; j < len(argv); j++ {
		left := len(argv) - j - 1
		a := argv[j]
		switch {
		case rstring.EqualFold(a, "asc"):
			desc = false
		case rstring.EqualFold(a, "desc"):
			desc = true
		case rstring.EqualFold(a, "alpha"):
			alpha = true
		case rstring.EqualFold(a, "limit") && left >= 2:
			v, ok := rstring.String2ll(argv[j+1])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			limitStart = v
			v, ok = rstring.String2ll(argv[j+2])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			limitCount = v
			j += 2
		case !readonly && rstring.EqualFold(a, "store") && left >= 1:
			storekey = argv[j+1]
			j++
		case rstring.EqualFold(a, "by") && left >= 1:
			sortby = argv[j+1]
			if bytes.IndexByte(sortby, '*') < 0 {
				dontsort = true
			} else if !fullKeys {
				c.Err("ERR BY option of SORT denied due to insufficient ACL permissions.")
				return
			}
			j++
		case rstring.EqualFold(a, "get") && left >= 1:
			if !fullKeys {
				c.Err("ERR GET option of SORT denied due to insufficient ACL permissions.")
				return
			}
			gets = append(gets, argv[j+1])
			j++
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}

	key := argv[1]
	e, found := c.LookupRead(key)
	typ := command.TypeList
	if found {
		typ = e.Type
		if typ != command.TypeSet && typ != command.TypeList && typ != command.TypeZSet {
			c.Err(command.ErrWrongType)
			return
		}
	}
	// An unsorted set gives hash-table order: with STORE it is sorted so
	// that the stored list does not depend on the table layout.
	if dontsort && typ == command.TypeSet && storekey != nil {
		dontsort, alpha, sortby = false, true, nil
	}
	var zs *zset.Set
	if found && typ == command.TypeZSet {
		zs = (*zset.Set)(e.Ptr)
		if !zs.Skiplist() {
			// Redis converts the sorted set to a skiplist for SORT.
			c.BeforeModify(key)
			zs.ConvertToSkiplist()
		}
	}
	vectorlen := 0
	if found {
		switch typ {
		case command.TypeList:
			vectorlen = (*list.List)(e.Ptr).Len()
		case command.TypeSet:
			vectorlen = (*set.Set)(e.Ptr).Len()
		case command.TypeZSet:
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
	if (typ == command.TypeZSet || typ == command.TypeList) && dontsort && (start != 0 || end != vl-1) {
		vl = end - start + 1
		if vl < 0 {
			vl = 0
		}
	}

	vector := make([]sortItem, 0, vl)
	switch {
	case !found:
	case typ == command.TypeList && dontsort:
		l := (*list.List)(e.Ptr)
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
	case typ == command.TypeList:
		(*list.List)(e.Ptr).Each(func(v []byte) bool {
			vector = append(vector, sortItem{obj: v})
			return true
		})
	case typ == command.TypeSet:
		(*set.Set)(e.Ptr).Each(func(m []byte) bool {
			vector = append(vector, sortItem{obj: bytes.Clone(m)})
			return true
		})
	case typ == command.TypeZSet && dontsort:
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
				v, ok := sortLookup(c, sortby, it.obj)
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
		c.Err("ERR One or more scores can't be converted into double")
		return
	}
	if storekey == nil {
		c.ArrayLen(int(outputlen))
		for j := start; j <= end; j++ {
			obj := vector[j].obj
			if len(gets) == 0 {
				c.Bulk(obj)
			}
			for _, g := range gets {
				v, ok := sortLookup(c, g, obj)
				c.BulkOrNull(v, ok)
			}
		}
		return
	}
	out := list.New()
	for j := start; j <= end; j++ {
		obj := vector[j].obj
		if len(gets) == 0 {
			out.PushBack(bytes.Clone(obj))
			continue
		}
		for _, g := range gets {
			v, ok := sortLookup(c, g, obj)
			if !ok {
				v = nil
			}
			out.PushBack(bytes.Clone(v))
		}
	}
	if outputlen > 0 {
		c.SetKey(storekey, command.Obj(command.TypeList, out))
		c.SignalModifiedKey(storekey)
		c.Notify(command.NotifyList, "sortstore", storekey)
		c.AddDirty(outputlen)
	} else if c.DeleteKey(storekey) {
		c.SignalModifiedKey(storekey)
		c.Notify(command.NotifyGeneric, "del", storekey)
		c.AddDirty(1)
	}
	c.Integer(outputlen)
}
