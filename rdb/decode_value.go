package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// maxPrealloc caps slices sized from a count read from the input.
const maxPrealloc = 1024

var errUnknownTyp = errors.New("unknown RDB object type")

func formatInt(v int64) []byte { return strconv.AppendInt(make([]byte, 0, 20), v, 10) }

func capHint(n uint64) int { return int(min(n, maxPrealloc)) }

// readObject reads a value of RDB type t. It returns nil for an empty
// collection, which the caller skips. Besides the structure of each
// encoding it refuses what Redis's rdbLoadObject refuses: repeated set and
// sorted-set members and hash fields, NaN scores. Where Redis looks for
// repeats only when sanitizing (a hash or sorted set that stays a
// listpack), the decoder does so only when d.deep is set or it has no
// limits to tell the encoding Redis ends up with.
func (d *decoder) readObject(t byte, typeOff int64) (*Value, error) {
	v, err := d.readValue(t, typeOff)
	if v != nil {
		v.Type = t
		if err == nil {
			err = d.checkRepeats(v)
		}
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (d *decoder) readValue(t byte, typeOff int64) (*Value, error) {
	switch t {
	case typeString:
		s, err := d.readString()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: KindString, Str: s}, nil

	case typeList, typeSet:
		n, err := d.readCount()
		if err != nil {
			return nil, err
		}
		items := make([][]byte, 0, capHint(n))
		for i := uint64(0); i < n; i++ {
			s, err := d.readString()
			if err != nil {
				return nil, err
			}
			items = append(items, s)
		}
		if len(items) == 0 {
			return nil, nil
		}
		if t == typeList {
			return &Value{Kind: KindList, Encoding: EncQuicklist, List: items}, nil
		}
		return &Value{Kind: KindSet, Encoding: EncHashtable, Set: items}, nil

	case typeZSet, typeZSet2:
		n, err := d.readCount()
		if err != nil {
			return nil, err
		}
		zs := make([]ZMember, 0, capHint(n))
		for i := uint64(0); i < n; i++ {
			m, err := d.readString()
			if err != nil {
				return nil, err
			}
			var score float64
			if t == typeZSet2 {
				var b [8]byte
				if err := d.readFull(b[:]); err != nil {
					return nil, err
				}
				score = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
			} else if score, err = d.readASCIIDouble(); err != nil {
				return nil, err
			}
			if math.IsNaN(score) {
				return nil, d.corrupt(errZsetNaN)
			}
			zs = append(zs, ZMember{Member: m, Score: score})
		}
		if len(zs) == 0 {
			return nil, nil
		}
		return &Value{Kind: KindZSet, Encoding: EncSkiplist, ZSet: zs}, nil

	case typeHash:
		n, err := d.readCount()
		if err != nil {
			return nil, err
		}
		h := make([][2][]byte, 0, capHint(n))
		for i := uint64(0); i < n; i++ {
			f, err := d.readString()
			if err != nil {
				return nil, err
			}
			v, err := d.readString()
			if err != nil {
				return nil, err
			}
			h = append(h, [2][]byte{f, v})
		}
		if len(h) == 0 {
			return nil, nil
		}
		return &Value{Kind: KindHash, Encoding: EncHashtable, Hash: h}, nil

	case typeListQuicklist, typeListQuicklist2:
		n, err := d.readCount()
		if err != nil {
			return nil, err
		}
		var list [][]byte
		for i := uint64(0); i < n; i++ {
			container := uint64(quicklistPacked)
			if t == typeListQuicklist2 {
				if container, err = d.readCount(); err != nil {
					return nil, err
				}
				if container != quicklistPlain && container != quicklistPacked {
					return nil, d.corrupt(fmt.Errorf("%w (node container %d)", errQuicklist, container))
				}
			}
			blob, err := d.readString()
			if err != nil {
				return nil, err
			}
			if len(blob) == 0 { // Redis refuses an empty node string, plain or packed
				return nil, d.corrupt(errQLEmptyNode)
			}
			if container == quicklistPlain {
				list = append(list, blob)
				continue
			}
			var items [][]byte
			if t == typeListQuicklist {
				if items, err = ziplistStrings(blob); err != nil {
					return nil, d.corrupt(fmt.Errorf("%w (%w)", errQLZiplist, err))
				}
			} else if items, err = lpStrings(blob, 0); err != nil {
				return nil, d.corrupt(fmt.Errorf("%w (%w)", errQLListpack, err))
			}
			list = append(list, items...) // empty nodes are skipped, like Redis
		}
		if len(list) == 0 {
			return nil, nil
		}
		return &Value{Kind: KindList, Encoding: EncQuicklist, List: list}, nil

	case typeHashZipmap, typeListZiplist, typeSetIntset, typeZSetZiplist, typeHashZiplist,
		typeHashListpack, typeZSetListpack:
		blob, err := d.readString()
		if err != nil {
			return nil, err
		}
		v, err := decodeBlob(t, blob)
		if err != nil {
			return nil, d.corrupt(err)
		}
		return v, nil

	case typeStreamListpacks, typeStreamListpacks2, typeStreamListpacks3:
		return d.readStream(t)

	case typeModule, typeModule2:
		return nil, &UnsupportedTypeError{Offset: typeOff, Key: d.key, Type: t, Name: typeName(t)}
	}
	if t >= 20 && t < opFunction2-1 { // types from later RDB versions (0xF4 is 7.4's SLOT_INFO opcode)
		return nil, &UnsupportedTypeError{Offset: typeOff, Key: d.key, Type: t, Name: typeName(t)}
	}
	return nil, &CorruptionError{Offset: typeOff, Key: d.key, Err: fmt.Errorf("%w %d", errUnknownTyp, t)}
}

// checkRepeats refuses repeated members and fields where Redis's loader
// does (see readObject).
func (d *decoder) checkRepeats(v *Value) error {
	switch v.Kind {
	case KindSet:
		if v.Type == typeSetIntset { // intsetStrings checked the order
			return nil
		}
		if hasRepeat(len(v.Set), func(i int) []byte { return v.Set[i] }) {
			return d.corrupt(errDupSet)
		}
	case KindZSet:
		if !d.deep && v.Type == typeZSetListpack && d.staysListpack(v) {
			return nil
		}
		if hasRepeat(len(v.ZSet), func(i int) []byte { return v.ZSet[i].Member }) {
			switch v.Type {
			case typeZSetZiplist:
				return d.corrupt(errZsetZiplist)
			case typeZSetListpack:
				return d.corrupt(errZsetListpack)
			}
			return d.corrupt(errDupZset)
		}
	case KindHash:
		// zipmaps and ziplists are always checked: Redis converts them.
		if !d.deep && (v.Type == typeHash || v.Type == typeHashListpack) && d.staysListpack(v) {
			return nil
		}
		if hasRepeat(len(v.Hash), func(i int) []byte { return v.Hash[i][0] }) {
			switch v.Type {
			case typeHashZipmap:
				return d.corrupt(errZipmapDup)
			case typeHashZiplist:
				return d.corrupt(errHashZiplist)
			case typeHashListpack:
				return d.corrupt(errHashListpack)
			}
			if d.deep && d.staysListpack(v) {
				return d.corrupt(errDupHashDeep)
			}
			return d.corrupt(errDupHash)
		}
	}
	return nil
}

// staysListpack reports whether Redis keeps v as a listpack under the
// decoder's limits; without limits it cannot tell and says no.
func (d *decoder) staysListpack(v *Value) bool {
	return d.lim != nil && LoadedEncoding(v, *d.lim) == EncListpack
}

// hasRepeat reports whether two of the n byte strings at(i) are equal.
func hasRepeat(n int, at func(int) []byte) bool {
	if n < 2 {
		return false
	}
	if n <= 8 { // no map for the common small collections
		for i := 1; i < n; i++ {
			for j := 0; j < i; j++ {
				if string(at(i)) == string(at(j)) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, n)
	for i := 0; i < n; i++ {
		b := at(i)
		k := unsafe.String(unsafe.SliceData(b), len(b)) // b outlives seen
		if _, ok := seen[k]; ok {
			return true
		}
		seen[k] = struct{}{}
	}
	return false
}

// decodeBlob turns a single-string encoding (zipmap, ziplist, intset,
// listpack) into a Value; nil for an empty one. Errors carry Redis's
// message for the encoding, with our detail.
func decodeBlob(t byte, blob []byte) (*Value, error) {
	var items [][]byte
	var err error
	switch t {
	case typeHashZipmap:
		pairs, err := zipmapPairs(blob)
		if err != nil {
			return nil, fmt.Errorf("%w (%w)", errZipmap, err)
		}
		return &Value{Kind: KindHash, Encoding: EncListpack, Hash: pairs}, nil
	case typeSetIntset:
		if items, err = intsetStrings(blob); err != nil {
			return nil, err
		}
		return &Value{Kind: KindSet, Encoding: EncIntset, Set: items}, nil
	case typeListZiplist, typeZSetZiplist, typeHashZiplist:
		items, err = ziplistStrings(blob)
	default:
		items, err = lpStrings(blob, 0)
	}
	if err == nil && len(items)%2 != 0 && t != typeListZiplist {
		err = errOddPairs
	}
	if err != nil {
		cause := map[byte]error{typeListZiplist: errListZiplist, typeZSetZiplist: errZsetZiplist,
			typeHashZiplist: errHashZiplist, typeZSetListpack: errZsetListpack, typeHashListpack: errHashListpack}[t]
		return nil, fmt.Errorf("%w (%w)", cause, err)
	}
	if len(items) == 0 {
		return nil, nil
	}
	switch t {
	case typeListZiplist:
		return &Value{Kind: KindList, Encoding: EncQuicklist, List: items}, nil
	case typeZSetZiplist, typeZSetListpack:
		zs := make([]ZMember, 0, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			f, ok := parseScore(items[i+1])
			if !ok {
				return nil, errBadScore
			}
			if math.IsNaN(f) {
				return nil, errZsetNaN
			}
			zs = append(zs, ZMember{Member: items[i], Score: f})
		}
		return &Value{Kind: KindZSet, Encoding: EncListpack, ZSet: zs}, nil
	default: // hash ziplist / listpack
		h := make([][2][]byte, 0, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			h = append(h, [2][]byte{items[i], items[i+1]})
		}
		return &Value{Kind: KindHash, Encoding: EncListpack, Hash: h}, nil
	}
}

// readASCIIDouble reads the old ZSET score form: a length byte (253 NaN,
// 254 +inf, 255 -inf) followed by that many ASCII characters.
func (d *decoder) readASCIIDouble() (float64, error) {
	n, err := d.readByte()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	var buf [252]byte
	if err := d.readFull(buf[:n]); err != nil {
		return 0, err
	}
	f, ok := parseScore(buf[:n])
	if !ok {
		return 0, d.corrupt(errBadScore)
	}
	return f, nil
}
