package rdb

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/aofserver/aofserver/listpack"
	"github.com/aofserver/aofserver/rstring"
)

// Quicklist sizing constants from Redis 7.0's quicklist.c.
const (
	qlSizeSafetyLimit      = 8192
	qlPackedThreshold      = 1 << 30 // elements this large get a PLAIN node
	qlMinCompressBytes     = 48
	qlMinCompressGain      = 8
	qlFillMax              = 1<<15 - 1
	qlSizeEstimateOverhead = 8
)

var qlOptimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// valueWriter holds the scratch state for encoding values: the LZF hash
// table and reusable buffers. It is owned by one Encoder (or one
// DumpPayload call) at a time.
type valueWriter struct {
	compression  bool
	limits       Limits
	streamLimits *StreamLimits // nil: DefaultStreamLimits
	lzf          *lzfCompressor
	lzfOut       []byte
	lp           listpack.Builder
	blob         []byte
	zs           []ZMember
	bounds       []int
}

func appendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		dst = append(dst, len32)
		return binary.BigEndian.AppendUint32(dst, uint32(n))
	default:
		dst = append(dst, len64)
		return binary.BigEndian.AppendUint64(dst, n)
	}
}

// appendInt32Enc appends the RDB integer encoding of v if it fits in int32.
func appendIntEnc(dst []byte, v int64) ([]byte, bool) {
	switch {
	case v >= -1<<7 && v <= 1<<7-1:
		return append(dst, lenEncVal<<6|encInt8, byte(v)), true
	case v >= -1<<15 && v <= 1<<15-1:
		return append(dst, lenEncVal<<6|encInt16, byte(v), byte(v>>8)), true
	case v >= -1<<31 && v <= 1<<31-1:
		return append(dst, lenEncVal<<6|encInt32, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)), true
	}
	return dst, false
}

func (w *valueWriter) compressor() *lzfCompressor {
	if w.lzf == nil {
		w.lzf = new(lzfCompressor)
	}
	return w.lzf
}

// tryLZF compresses s with the output limit outLen and returns the
// compressed bytes (in w.lzfOut) or nil.
func (w *valueWriter) tryLZF(s []byte, outLen int) []byte {
	if cap(w.lzfOut) < outLen {
		w.lzfOut = make([]byte, outLen)
	}
	out := w.lzfOut[:outLen]
	n := w.compressor().compress(s, out)
	if n == 0 {
		return nil
	}
	return out[:n]
}

func appendLZFBlob(dst, comp []byte, ulen int) []byte {
	dst = append(dst, lenEncVal<<6|encLZF)
	dst = appendLen(dst, uint64(len(comp)))
	dst = appendLen(dst, uint64(ulen))
	return append(dst, comp...)
}

// appendString writes s like rdbSaveRawString.
func (w *valueWriter) appendString(dst, s []byte) []byte {
	if len(s) <= 11 {
		if v, ok := rstring.String2ll(s); ok {
			if out, ok := appendIntEnc(dst, v); ok {
				return out
			}
		}
	}
	if w.compression && len(s) > 20 {
		if comp := w.tryLZF(s, len(s)-4); comp != nil {
			return appendLZFBlob(dst, comp, len(s))
		}
	}
	dst = appendLen(dst, uint64(len(s)))
	return append(dst, s...)
}

// resolve checks v and returns the concrete encoding to write.
func (w *valueWriter) resolve(v *Value) (Encoding, error) {
	if v == nil {
		return 0, fmt.Errorf("%w: nil value", ErrInvalidValue)
	}
	enc := v.Encoding
	if v.Kind == KindStream {
		if enc != EncAuto && enc != EncStream {
			return 0, fmt.Errorf("%w: encoding %s is not valid for a %s", ErrInvalidValue, enc, v.Kind)
		}
		return EncStream, checkStream(v.Stream)
	}
	if v.Kind != KindString && v.Len() == 0 {
		if v.Kind > KindStream {
			return 0, fmt.Errorf("%w: unknown kind %d", ErrInvalidValue, v.Kind)
		}
		return 0, fmt.Errorf("%w: empty %s", ErrInvalidValue, v.Kind)
	}
	switch v.Kind {
	case KindString:
		return EncAuto, nil
	case KindList:
		if enc == EncAuto || enc == EncQuicklist {
			return EncQuicklist, nil
		}
	case KindSet:
		switch enc {
		case EncAuto:
			return PickEncoding(v, w.limits), nil
		case EncHashtable:
			return enc, nil
		case EncIntset:
			for _, m := range v.Set {
				if _, ok := rstring.String2ll(m); !ok {
					return 0, fmt.Errorf("%w: intset member %q is not an integer", ErrInvalidValue, m)
				}
			}
			return enc, nil
		}
	case KindZSet:
		switch enc {
		case EncAuto:
			return PickEncoding(v, w.limits), nil
		case EncListpack, EncSkiplist:
			return enc, nil
		}
	case KindHash:
		switch enc {
		case EncAuto:
			return PickEncoding(v, w.limits), nil
		case EncListpack, EncHashtable:
			return enc, nil
		}
	default:
		return 0, fmt.Errorf("%w: unknown kind %d", ErrInvalidValue, v.Kind)
	}
	return 0, fmt.Errorf("%w: encoding %s is not valid for a %s", ErrInvalidValue, enc, v.Kind)
}

func typeByte(k Kind, enc Encoding) byte {
	switch k {
	case KindList:
		return typeListQuicklist2
	case KindSet:
		if enc == EncIntset {
			return typeSetIntset
		}
		return typeSet
	case KindZSet:
		if enc == EncListpack {
			return typeZSetListpack
		}
		return typeZSet2
	case KindHash:
		if enc == EncListpack {
			return typeHashListpack
		}
		return typeHash
	case KindStream:
		return typeStreamListpacks2
	}
	return typeString
}

// appendBody writes the value (without type byte) in encoding enc.
func (w *valueWriter) appendBody(dst []byte, v *Value, enc Encoding) []byte {
	switch v.Kind {
	case KindString:
		return w.appendString(dst, v.Str)
	case KindList:
		return w.appendQuicklist(dst, v.List)
	case KindSet:
		if enc == EncIntset {
			w.blob, _ = buildIntset(w.blob[:0], v.Set)
			return w.appendString(dst, w.blob)
		}
		dst = appendLen(dst, uint64(len(v.Set)))
		for _, m := range v.Set {
			dst = w.appendString(dst, m)
		}
		return dst
	case KindZSet:
		w.zs = append(w.zs[:0], v.ZSet...)
		slices.SortFunc(w.zs, compareZMember)
		if enc == EncListpack {
			w.lp.Begin(w.blob)
			var num [32]byte
			for _, m := range w.zs {
				w.lp.AppendString(m.Member)
				w.lp.AppendString(appendD2String(num[:0], m.Score))
			}
			w.blob = w.lp.Finish()
			dst = w.appendString(dst, w.blob)
		} else {
			dst = appendLen(dst, uint64(len(w.zs)))
			for i := len(w.zs) - 1; i >= 0; i-- { // highest first, as Redis walks its skiplist
				dst = w.appendString(dst, w.zs[i].Member)
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(w.zs[i].Score))
			}
		}
		clear(w.zs) // do not pin the caller's members
		return dst
	case KindHash:
		if enc == EncListpack {
			w.lp.Begin(w.blob)
			for _, fv := range v.Hash {
				w.lp.AppendString(fv[0])
				w.lp.AppendString(fv[1])
			}
			w.blob = w.lp.Finish()
			return w.appendString(dst, w.blob)
		}
		dst = appendLen(dst, uint64(len(v.Hash)))
		for _, fv := range v.Hash {
			dst = w.appendString(dst, fv[0])
			dst = w.appendString(dst, fv[1])
		}
		return dst
	case KindStream:
		return w.appendStream(dst, v.Stream)
	}
	return dst
}

func compareZMember(a, b ZMember) int {
	if c := cmp.Compare(a.Score, b.Score); c != 0 {
		return c
	}
	return bytes.Compare(a.Member, b.Member)
}

// qlAllowInsert mirrors _quicklistNodeAllowInsert in Redis 7.0.15: the
// new node size is estimated as the current listpack size plus the raw
// element length plus a fixed 8-byte overhead.
func qlAllowInsert(nodeSz, nodeCount, fill, sz int) bool {
	newSz := nodeSz + sz + qlSizeEstimateOverhead
	if fill < 0 {
		if off := -fill - 1; off < len(qlOptimizationLevel) && newSz <= qlOptimizationLevel[off] {
			return true
		}
	}
	if newSz > qlSizeSafetyLimit {
		return false
	}
	return nodeCount < fill
}

// qlSplit follows how RPUSHes into a new list fill quicklist nodes.
type qlSplit struct {
	fill, threshold   int
	nodes             int
	nodeSz, nodeCount int
	plain             bool
}

const (
	qlSameNode = iota
	qlNewPacked
	qlNewPlain
)

func newQLSplit(limits Limits) qlSplit {
	fill := limits.ListMaxListpackSize
	if fill > qlFillMax {
		fill = qlFillMax
	} else if fill < -5 {
		fill = -5
	}
	threshold := limits.ListPackedThreshold
	if threshold <= 0 {
		threshold = qlPackedThreshold
	}
	return qlSplit{fill: fill, threshold: threshold}
}

// add places the next element: in the current node or a new one.
func (q *qlSplit) add(e []byte) int {
	switch {
	case len(e) >= q.threshold:
		q.nodes++
		q.plain = true
		return qlNewPlain
	case q.nodes > 0 && !q.plain && qlAllowInsert(q.nodeSz, q.nodeCount, q.fill, len(e)):
		q.nodeSz += listpack.StrSize(e)
		q.nodeCount++
		return qlSameNode
	default:
		q.nodes++
		q.nodeSz, q.nodeCount, q.plain = listpack.EmptySize+listpack.StrSize(e), 1, false
		return qlNewPacked
	}
}

// QuicklistNodes counts the quicklist nodes that n elements pushed in
// order into a new list fill (the split appendQuicklist writes), stopping
// once the count passes max.
func QuicklistNodes(n int, elem func(i int) []byte, limits Limits, max int) int {
	split := newQLSplit(limits)
	for i := 0; i < n && split.nodes <= max; i++ {
		split.add(elem(i))
	}
	return split.nodes
}

// appendQuicklist writes a LIST_QUICKLIST_2 body, splitting elements into
// nodes as a sequence of RPUSHes into a new key would.
func (w *valueWriter) appendQuicklist(dst []byte, list [][]byte) []byte {
	// bounds[i] is the index of the first element of node i; a negative
	// entry -(i+1) marks a PLAIN node holding element i alone.
	w.bounds = w.bounds[:0]
	split := newQLSplit(w.limits)
	for i, e := range list {
		switch split.add(e) {
		case qlNewPlain:
			w.bounds = append(w.bounds, -(i + 1))
		case qlNewPacked:
			w.bounds = append(w.bounds, i)
		}
	}
	nodes := len(w.bounds)
	dst = appendLen(dst, uint64(nodes))
	depth := w.limits.ListCompressDepth
	for n := 0; n < nodes; n++ {
		start := w.bounds[n]
		var node []byte
		if start < 0 {
			// A plain node is the element itself; it is compressed
			// like a listpack node.
			dst = appendLen(dst, quicklistPlain)
			node = list[-start-1]
		} else {
			end := len(list)
			if n+1 < nodes {
				end = w.bounds[n+1]
				if end < 0 {
					end = -end - 1
				}
			}
			w.lp.Begin(w.blob)
			for _, e := range list[start:end] {
				w.lp.AppendString(e)
			}
			w.blob = w.lp.Finish()
			dst = appendLen(dst, quicklistPacked)
			node = w.blob
		}
		if depth > 0 && nodes >= 2*depth && n >= depth && n < nodes-depth && len(node) >= qlMinCompressBytes {
			if comp := w.tryLZF(node, len(node)); comp != nil && len(comp)+qlMinCompressGain < len(node) {
				dst = appendLZFBlob(dst, comp, len(node))
				continue
			}
		}
		dst = w.appendString(dst, node)
	}
	return dst
}
