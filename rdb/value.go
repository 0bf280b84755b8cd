package rdb

import "github.com/aofserver/aofserver/rstring"

// Kind is the Redis data type of a Value.
type Kind uint8

const (
	KindString Kind = iota
	KindList
	KindSet
	KindZSet
	KindHash
	KindStream
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
	case KindStream:
		return "stream"
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
	EncStream                    // stream -> STREAM_LISTPACKS_2(19)
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
	case EncStream:
		return "stream"
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
	Type     byte        // RDB type byte the decoder read; the encoder ignores it
	Str      []byte      // KindString
	List     [][]byte    // KindList, in order
	Set      [][]byte    // KindSet
	ZSet     []ZMember   // KindZSet; any order for the encoder
	Hash     [][2][]byte // KindHash field/value pairs in order
	Stream   *Stream     // KindStream
}

// StreamID is a stream entry ID (<ms>-<seq>).
type StreamID struct{ Ms, Seq uint64 }

// Stream is a stream in its logical form: what XINFO STREAM FULL shows.
// The encoder lays entries out in listpack nodes as Redis 7.0 does for a
// stream built by XADD (stream-node-max-entries 100, -max-bytes 4096);
// the decoder drops entries flagged deleted inside nodes.
type Stream struct {
	Entries      []StreamEntry // ascending IDs, live entries only
	LastID       StreamID      // last-generated ID
	FirstID      StreamID      // first live entry ID, zero when empty (RDB type 19+)
	MaxDeletedID StreamID      // greatest ID ever deleted (RDB type 19+)
	EntriesAdded uint64        // entries ever added (RDB type 19+)
	Groups       []StreamGroup // in name order, as Redis's rax keeps them
}

// StreamEntry is one entry: field/value pairs in insertion order.
type StreamEntry struct {
	ID     StreamID
	Fields [][2][]byte
}

// StreamGroup is a consumer group. EntriesRead is -1 when unknown
// (SCG_INVALID_ENTRIES_READ), as Redis 7.0.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64
	PEL         []StreamPending  // ascending IDs: the group's pending entries list
	Consumers   []StreamConsumer // in name order
}

// StreamPending is one pending entry of a group.
type StreamPending struct {
	ID            StreamID
	DeliveryTime  int64 // unix ms of the last delivery
	DeliveryCount uint64
	Consumer      []byte // owner; must name one of the group's consumers
}

// StreamConsumer is one consumer of a group. ActiveTime is only stored
// by RDB type 21 (Redis 7.2); the decoder sets it to SeenTime otherwise.
type StreamConsumer struct {
	Name       []byte
	SeenTime   int64 // unix ms
	ActiveTime int64 // unix ms, -1 when never active
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
	case KindStream:
		if v.Stream == nil {
			return 0
		}
		return len(v.Stream.Entries)
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
	ListPackedThreshold                          int // elements this large get a PLAIN node; 0 = Redis's 1 GB (DEBUG QUICKLIST-PACKED-THRESHOLD)
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
			if _, ok := rstring.String2ll(m); !ok {
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
		if v.Type == typeHashZipmap {
			// Converted to a listpack first, then checked on both limits.
			return PickEncoding(v, l)
		}
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
