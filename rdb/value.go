package rdb

// Kind is the Redis data type of a Value.
type Kind uint8

const (
	KindString Kind = iota
	KindList
	KindSet
	KindZSet
	KindHash
)

func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindList:
		return "list"
	case KindSet:
		return "set"
	case KindZSet:
		return "zset"
	case KindHash:
		return "hash"
	}
	return "unknown"
}

// Encoding is the in-memory encoding the server uses; the encoder writes
// the matching RDB type like Redis 7.0 does.
type Encoding uint8

const (
	EncAuto      Encoding = iota // encoder picks exactly as Redis 7.0 would for a fresh object, given Limits
	EncListpack                  // hash -> HASH_LISTPACK(16), zset -> ZSET_LISTPACK(17)
	EncIntset                    // set -> SET_INTSET(11)
	EncHashtable                 // hash -> HASH(4), set -> SET(2)
	EncSkiplist                  // zset -> ZSET_2(5)
	EncQuicklist                 // list -> LIST_QUICKLIST_2(18) (lists are always this)
)

func (e Encoding) String() string {
	switch e {
	case EncAuto:
		return "auto"
	case EncListpack:
		return "listpack"
	case EncIntset:
		return "intset"
	case EncHashtable:
		return "hashtable"
	case EncSkiplist:
		return "skiplist"
	case EncQuicklist:
		return "quicklist"
	}
	return "unknown"
}

// ZMember is one sorted-set member.
type ZMember struct {
	Member []byte
	Score  float64
}

// Value is one key's value. Only the field matching Kind is used.
type Value struct {
	Kind     Kind
	Encoding Encoding    // decoder sets it from the type byte found in the file (EncAuto for strings)
	Str      []byte      // KindString
	List     [][]byte    // KindList, in order
	Set      [][]byte    // KindSet
	ZSet     []ZMember   // KindZSet; any order for the encoder
	Hash     [][2][]byte // KindHash field/value pairs in order
}

// Len is the number of elements (1 for a string).
func (v *Value) Len() int {
	switch v.Kind {
	case KindString:
		return 1
	case KindList:
		return len(v.List)
	case KindSet:
		return len(v.Set)
	case KindZSet:
		return len(v.ZSet)
	case KindHash:
		return len(v.Hash)
	}
	return 0
}

// Limits are Redis's encoding thresholds (config directives), used when
// Encoding is EncAuto and for list node sizing.
type Limits struct {
	HashMaxListpackEntries, HashMaxListpackValue int // 512, 64
	ZSetMaxListpackEntries, ZSetMaxListpackValue int // 128, 64
	SetMaxIntsetEntries                          int // 512
	ListMaxListpackSize                          int // -2 (8 KB nodes); positive = max entries per node
	ListCompressDepth                            int // 0; if > 0, inner quicklist nodes are LZF-compressed like Redis
}

// DefaultLimits returns Redis 7.0's defaults.
func DefaultLimits() Limits {
	return Limits{
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ListMaxListpackSize:    -2,
		ListCompressDepth:      0,
	}
}

// PickEncoding returns the encoding Redis 7.0 gives a freshly built object
// with v's contents (SADD/ZADD/HSET/RPUSH into a new key), given l.
func PickEncoding(v *Value, l Limits) Encoding {
	switch v.Kind {
	case KindList:
		return EncQuicklist
	case KindSet:
		if len(v.Set) > l.SetMaxIntsetEntries {
			return EncHashtable
		}
		for _, m := range v.Set {
			if _, ok := parseCanonicalInt(m); !ok {
				return EncHashtable
			}
		}
		return EncIntset
	case KindZSet:
		if len(v.ZSet) > l.ZSetMaxListpackEntries || l.ZSetMaxListpackEntries == 0 {
			return EncSkiplist
		}
		for i := range v.ZSet {
			if len(v.ZSet[i].Member) > l.ZSetMaxListpackValue {
				return EncSkiplist
			}
		}
		return EncListpack
	case KindHash:
		if len(v.Hash) > l.HashMaxListpackEntries {
			return EncHashtable
		}
		for i := range v.Hash {
			if len(v.Hash[i][0]) > l.HashMaxListpackValue || len(v.Hash[i][1]) > l.HashMaxListpackValue {
				return EncHashtable
			}
		}
		return EncListpack
	}
	return EncAuto
}

// LoadedEncoding returns the encoding Redis 7.0 holds after loading v (as
// produced by Decode, with v.Encoding taken from the file) under limits l:
// Redis converts some encodings while loading (rdbLoadObject).
func LoadedEncoding(v *Value, l Limits) Encoding {
	switch v.Kind {
	case KindList:
		return EncQuicklist
	case KindSet:
		if v.Encoding == EncIntset {
			if len(v.Set) > l.SetMaxIntsetEntries {
				return EncHashtable
			}
			return EncIntset
		}
		return PickEncoding(v, l)
	case KindZSet:
		if v.Encoding == EncListpack {
			if len(v.ZSet) > l.ZSetMaxListpackEntries {
				return EncSkiplist
			}
			return EncListpack
		}
		return PickEncoding(v, l)
	case KindHash:
		if v.Encoding == EncListpack {
			if len(v.Hash) > l.HashMaxListpackEntries {
				return EncHashtable
			}
			return EncListpack
		}
		return PickEncoding(v, l)
	}
	return EncAuto
}
