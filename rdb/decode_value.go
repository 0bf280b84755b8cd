package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// maxPrealloc caps slices sized from a count read from the input.
const maxPrealloc = 1024

var (
	errOddPairs   = errors.New("odd number of elements in a pair encoding")
	errBadScore   = errors.New("invalid sorted set score")
	errBadNode    = errors.New("unknown quicklist node container")
	errUnknownTyp = errors.New("unknown RDB object type")
)

func formatInt(v int64) []byte { return strconv.AppendInt(make([]byte, 0, 20), v, 10) }

func capHint(n uint64) int { return int(min(n, maxPrealloc)) }

// readObject reads a value of RDB type t. It returns nil for an empty
// collection, which the caller skips.
func (d *decoder) readObject(t byte, typeOff int64) (*Value, error) {
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
					return nil, d.corrupt(fmt.Errorf("%w %d", errBadNode, container))
				}
			}
			blob, err := d.readString()
			if err != nil {
				return nil, err
			}
			if container == quicklistPlain {
				list = append(list, blob)
				continue
			}
			var items [][]byte
			if t == typeListQuicklist {
				items, err = ziplistStrings(blob)
			} else {
				items, err = lpStrings(blob, 0)
			}
			if err != nil {
				return nil, d.corrupt(err)
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

// decodeBlob turns a single-string encoding (zipmap, ziplist, intset,
// listpack) into a Value; nil for an empty one.
func decodeBlob(t byte, blob []byte) (*Value, error) {
	var items [][]byte
	var err error
	switch t {
	case typeHashZipmap:
		pairs, err := zipmapPairs(blob)
		if err != nil || len(pairs) == 0 {
			return nil, err
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
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, nil
	}
	switch t {
	case typeListZiplist:
		return &Value{Kind: KindList, Encoding: EncQuicklist, List: items}, nil
	case typeZSetZiplist, typeZSetListpack:
		if len(items)%2 != 0 {
			return nil, errOddPairs
		}
		zs := make([]ZMember, 0, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			f, ok := parseScore(items[i+1])
			if !ok {
				return nil, errBadScore
			}
			zs = append(zs, ZMember{Member: items[i], Score: f})
		}
		return &Value{Kind: KindZSet, Encoding: EncListpack, ZSet: zs}, nil
	default: // hash ziplist / listpack
		if len(items)%2 != 0 {
			return nil, errOddPairs
		}
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
