// Package rdb is a pure codec for Redis 7.0's RDB format, version 10: the
// dump.rdb file, the RDB preamble of an AOF base file, and the DUMP/RESTORE
// payload. It never opens files; it works on an io.Writer and a
// *bufio.Reader and imports only the standard library.
//
// # Writing
//
//	e := rdb.NewEncoder(w, rdb.EncoderOptions{Compression: true, Checksum: true, Limits: rdb.DefaultLimits()})
//	e.Header(rdb.StandardAux(time.Now().Unix(), usedMem, true))
//	e.SelectDB(0, nkeys, nexpires)
//	e.Key([]byte("k"), &rdb.Value{Kind: rdb.KindString, Str: []byte("v")}, -1)
//	e.Close() // EOF opcode and CRC-64; w is left open
//
// The encoder writes the same bytes Redis 7.0.15 writes for the same
// objects: the same integer and LZF string encodings, the same listpack,
// intset and quicklist blobs, the same node splitting. Where Redis's output
// depends on history we cannot see (hash-table iteration order for HASH and
// SET, an intset that was once wider, a list built by LPUSH or LINSERT) the
// bytes differ but load into the same data. An Encoder is not safe for
// concurrent use. Errors are sticky: after a failed write every call
// returns the same error.
//
// # Reading
//
// Decode reads one RDB stream and calls a Visitor for every AUX field,
// SELECTDB, RESIZEDB, function library and key. It stops right after the
// 8-byte checksum, so an AOF file with an RDB preamble can be read on from
// the same bufio.Reader. Versions 1 to 10 are accepted. MODULE_2
// values and MODULE_AUX records are stepped over structurally, so the
// visitor sees every other key; once the checksum has been verified Decode
// returns an *UnsupportedTypeError naming the first of them (Keys lists
// all). Module v1 values and types from later RDB versions stop the decode
// at once. Empty collections are skipped, as Redis does (an empty stream
// is a value, not an empty collection). Duplicate keys are not detected
// here (the caller's inserts see them); repeated set or sorted-set members
// and hash fields, and NaN scores, are refused as Redis's loader refuses
// them: repeats inside a hash or sorted set that stays a listpack only
// with DecodeOptions.Deep (sanitize-dump-payload), or when no Limits are
// given. Ziplists, zipmaps and listpacks are validated as Redis's
// *ValidateIntegrity functions do with deep set, whatever Deep says: a
// value that fails them cannot be held faithfully. Malformed input gives *CorruptionError (errors.Is
// ErrCorrupt) with the byte offset; truncated input also matches
// io.ErrUnexpectedEOF. Lengths read from the input never cause an
// allocation larger than the bytes that actually arrived (plus a fixed
// slack), and LZF output is bounded by 88 times its compressed size.
//
// # File layout
//
//	"REDIS0010"                               magic and 4-digit version
//	FA <string key> <string value>            AUX, any number
//	F5 <string library code>                  FUNCTION2, one per library
//	FE <len db>                               SELECTDB
//	FB <len keys> <len keys with TTL>         RESIZEDB, a hint
//	[FC <int64 LE unix ms>]                   EXPIRETIME_MS, next key only
//	<type byte> <string key> <value>          a key
//	...
//	FF <8-byte CRC-64 LE>                     EOF, then checksum of all bytes before it (0 = not computed)
//
// Opcodes read but never written: FD EXPIRETIME (int32 LE seconds), F8 IDLE
// (<len>), F9 FREQ (1 byte), F6 FUNCTION (7.0-rc: name, engine, optional
// description, code). F7 MODULE_AUX is refused.
//
// # Lengths and strings
//
//	00xxxxxx                  6-bit length
//	01xxxxxx yyyyyyyy         14-bit length, big-endian
//	10000000 + 4 bytes        32-bit length, big-endian
//	10000001 + 8 bytes        64-bit length, big-endian
//	11xxxxxx                  string special encoding x:
//	  C0 b / C1 b b / C2 b b b b      int8 / int16 LE / int32 LE, loads as decimal text
//	  C3 <len clen> <len ulen> data   LZF-compressed string
//
// A string is written as an integer when it is at most 11 bytes and is a
// canonical decimal (string2ll rules) that fits in int32; otherwise, with
// compression on and a length over 20, as LZF if that saves at least 4
// bytes; otherwise raw.
//
// # Value types
//
//	0  STRING            string
//	1  LIST              <len> strings               (read only, pre-3.2)
//	2  SET               <len> strings               SET in hashtable encoding
//	3  ZSET              <len> (member, ASCII double) (read only; 253 NaN, 254 +inf, 255 -inf)
//	4  HASH              <len> (field, value)        HASH in hashtable encoding
//	5  ZSET_2            <len> (member, float64 LE)  skiplist zset, highest score first
//	9  HASH_ZIPMAP       string: zipmap              (read only)
//	10 LIST_ZIPLIST      string: ziplist             (read only)
//	11 SET_INTSET        string: intset
//	12 ZSET_ZIPLIST      string: ziplist             (read only)
//	13 HASH_ZIPLIST      string: ziplist             (read only)
//	14 LIST_QUICKLIST    <len> ziplist strings       (read only)
//	16 HASH_LISTPACK     string: listpack (field, value, ...)
//	17 ZSET_LISTPACK     string: listpack (member, score text, ...) by (score, member)
//	18 LIST_QUICKLIST_2  <len nodes> (<len container: 1 PLAIN, 2 PACKED> <string>)...
//	15 STREAM_LISTPACKS  stream, RDB 9 form          (read only)
//	19 STREAM_LISTPACKS_2 stream                     all streams
//	21 STREAM_LISTPACKS_3 stream, Redis 7.2 form     (read only, RDB 11: only reachable in a payload or file that claims RDB <= 10)
//	6, 7 modules; 20, 22+ later versions: *UnsupportedTypeError
//
// # Streams
//
//	<len nodes> (<string: 16-byte master ID, ms u64 BE + seq u64 BE> <string: listpack>)...
//	<len length> <len last ms> <len last seq>
//	19, 21: <len first ms> <len first seq> <len max-deleted ms> <len max-deleted seq> <len entries added>
//	<len groups>, per group (written in name order):
//	  <string name> <len last ms> <len last seq> [19, 21: <len entries read; all ones = -1>]
//	  <len PEL> (<16-byte ID BE> <int64 LE delivery ms> <len delivery count>)...   ascending IDs
//	  <len consumers>, per consumer (name order): <string name> <int64 LE seen ms> [21: <int64 LE active ms>]
//	    <len PEL> <16-byte ID>...   IDs owned by this consumer, all in the group PEL
//
// A node listpack holds the master entry, then each entry:
//
//	count deleted num-fields field... 0
//	flags ms-delta seq-delta [num-fields (field value)... | value...] lp-count
//
// flags 1 = deleted (a tombstone, which the decoder drops), 2 = the entry
// has the master's fields (only values follow); the deltas are from the
// master ID; lp-count is the number of elements of the entry before it.
// The encoder lays out nodes as a sequence of XADDs into a new key does:
// a new node when the tail node's listpack bytes plus the raw length of
// the new entry's fields and values reach stream-node-max-bytes, or when
// it holds stream-node-max-entries (StreamLimits, default 4096 / 100), so
// a stream built by XADD alone is written byte for byte as Redis 7.0.15
// writes it. The decoder checks every length, entry IDs strictly
// ascending across nodes and not below their master ID, the master
// entry's live/deleted counts, the stream length against the live
// entries, the last ID not below the last entry, unique group and
// consumer names and PEL IDs, and that every pending entry has exactly one
// owner. For type 15 it derives first ID, entries added and each group's
// entries read as Redis's loader does (first ID is the maximal ID for an
// empty stream, as streamGetEdgeID gives; entries read from
// streamEstimateDistanceFromFirstEverEntry). For 15 and 19 a consumer's
// active time is its seen time, as Redis 7.2 loads it.
//
// # Listpack
//
//	<total bytes u32 LE> <count u16 LE, 65535 = unknown> <entry>... FF
//	entry = <encoding and data> <backlen>
//	0xxxxxxx              uint7               10xxxxxx + n      string, n < 64
//	110xxxxx + 1 byte     int13               1110xxxx + 1 + n  string, n < 4096
//	F1 / F2 / F3 / F4     int16/24/32/64 LE    F0 + u32 LE + n   string
//
// backlen is the size of encoding+data in 1 to 5 bytes of 7 bits, most
// significant group first, every byte after the first with bit 7 set.
// Strings that are canonical int64 decimals are stored as integers; zset
// scores are stored as the text of d2string (integers when integral).
//
// # Intset
//
//	<width u32 LE: 2|4|8> <count u32 LE> <count signed LE integers, ascending>
//
// # Quicklist nodes
//
// A list is split into listpack nodes as RPUSH into a new key does in
// Redis 7.0.15: an element joins the tail node if the node's listpack size
// plus the element's length plus 8 stays within 4096<<(N-1) bytes for
// list-max-listpack-size -N, or, for a positive N, within 8192 bytes while
// the node holds fewer than N entries; otherwise it starts a new node.
// Elements of 1 GiB or more get a PLAIN node of their own. With
// list-compress-depth D > 0 every node except the first and last D is
// stored as an LZF blob when that saves at least 8 bytes (nodes under 48
// bytes never are); other nodes go through the normal string rule, so they
// may be LZF-compressed too.
//
// # LZF
//
// The compressor reproduces liblzf 3.6 (HLOG 16, VERY_FAST), the library
// Debian's redis-server 7.0.15 links, which differs slightly from the copy
// vendored in Redis's source tree. Redis does not clear the hash table
// between calls; we do, which can only differ when a stale slot happens to
// point at a match, which we have not observed.
//
// # Checksum
//
// CRC-64 Jones (reflected polynomial 0x95ac9329ac4bc9b5, init 0, no final
// xor) of every byte from "R" through the EOF opcode; CRC64(0,"123456789") =
// 0xe9c6d914c4b8d9ca. A DUMP payload is <type><value><version u16 LE><CRC-64
// LE of everything before>.
//
// # Durability
//
// This package does no I/O of its own beyond the given writer and reader:
// Close writes the trailer but neither flushes nor syncs. The caller owns
// buffering, fsync and renames.
package rdb

// These constants are part of the on-disk format and must not change.
const (
	rdbVersion = 10

	opFunction2    = 0xF5
	opFunction     = 0xF6
	opModuleAux    = 0xF7
	opIdle         = 0xF8
	opFreq         = 0xF9
	opAux          = 0xFA
	opResizeDB     = 0xFB
	opExpireTimeMs = 0xFC
	opExpireTime   = 0xFD
	opSelectDB     = 0xFE
	opEOF          = 0xFF

	typeString           = 0
	typeList             = 1
	typeSet              = 2
	typeZSet             = 3
	typeHash             = 4
	typeZSet2            = 5
	typeModule           = 6
	typeModule2          = 7
	typeHashZipmap       = 9
	typeListZiplist      = 10
	typeSetIntset        = 11
	typeZSetZiplist      = 12
	typeHashZiplist      = 13
	typeListQuicklist    = 14
	typeStreamListpacks  = 15
	typeHashListpack     = 16
	typeZSetListpack     = 17
	typeListQuicklist2   = 18
	typeStreamListpacks2 = 19
	typeStreamListpacks3 = 21 // Redis 7.2 (RDB 11): consumers also store their active time

	lenEncVal = 3 // top two bits 11: special string encoding
	len32     = 0x80
	len64     = 0x81
	encInt8   = 0
	encInt16  = 1
	encInt32  = 2
	encLZF    = 3

	quicklistPlain  = 1
	quicklistPacked = 2
)
