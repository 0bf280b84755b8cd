package command

import (
	"math/rand/v2"
	"unsafe"

	"github.com/aofserver/aofserver/config"
)

// Type is a value's type, numbered as the server stores it and named as
// TYPE reports it.
type Type uint8

const (
	TypeString Type = iota
	TypeList
	TypeSet
	TypeZSet
	TypeHash
	TypeStream
)

// Value is a key's value as the keyspace holds it: its type and a pointer
// to the value (*list.List, *set.Set, *zset.Set, *hash.Hash,
// *stream.Stream; strings are the server's own and never cross the seam).
type Value struct {
	Type Type
	Ptr  unsafe.Pointer
}

// Obj is the Value of a collection o of type t, for AddKey and SetKey.
func Obj[T any](t Type, o *T) Value { return Value{Type: t, Ptr: unsafe.Pointer(o)} }

// Flag is a command flag, named as in Redis's COMMAND output.
type Flag = uint64

const (
	FlagWrite Flag = 1 << iota
	FlagReadonly
	FlagDenyOOM
	FlagAdmin
	FlagPubSub
	FlagNoScript
	FlagBlocking
	FlagLoading
	FlagStale
	FlagSkipMonitor
	FlagSkipSlowlog
	FlagFast
	FlagNoAuth
	FlagMayReplicate
	FlagNoMulti
	FlagAllowBusy
	FlagNoPropagate // never propagated itself (EXEC, EVAL): its effects are
	FlagTouchesArbitraryKeys
)

// Keyspace notification classes: Redis's NOTIFY_* values
// (config.Config.NotifyFlags).
const (
	NotifyKeyspace = 1 << 0  // K
	NotifyKeyevent = 1 << 1  // E
	NotifyGeneric  = 1 << 2  // g
	NotifyString   = 1 << 3  // $
	NotifyList     = 1 << 4  // l
	NotifySet      = 1 << 5  // s
	NotifyHash     = 1 << 6  // h
	NotifyZset     = 1 << 7  // z
	NotifyExpired  = 1 << 8  // x
	NotifyEvicted  = 1 << 9  // e
	NotifyStream   = 1 << 10 // t
	NotifyKeyMiss  = 1 << 11 // m
	NotifyNew      = 1 << 14 // n
)

// Shared error texts, word for word as Redis 7.0.
const (
	ErrWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrSyntax    = "ERR syntax error"
	ErrNotInt    = "ERR value is not an integer or out of range"
	ErrNotFloat  = "ERR value is not a valid float"
	ErrNoSuchKey = "ERR no such key"
	// ErrOutOfRange is LSET's (and DEBUG's) "index out of range".
	ErrOutOfRange = "ERR index out of range"
	// ErrLongRange is getRangeLongFromObjectOrReply's text for
	// [-LONG_MAX, LONG_MAX].
	ErrLongRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
)

// Proc runs one command: argv[0] is its name as sent. It replies through c
// exactly once per command (one RESP element, possibly an aggregate).
type Proc func(c Ctx, argv [][]byte)

// Spec is one command of a group, as its entry in the command table. For
// a command Redis 7.0.15 has, server takes arity, flags, keys, ACL
// categories, group, summary and since from Redis's metadata (package
// cmdmeta), so only its Proc and the flags Redis does not report
// (FlagMayReplicate, FlagNoPropagate, FlagTouchesArbitraryKeys) act; the
// rest stay here to keep a group readable and for commands of our own.
type Spec struct {
	Name     string // lower case
	Arity    int    // Redis convention: >0 exact, <0 at least -Arity
	Flags    Flag
	FirstKey int
	LastKey  int
	Step     int
	Proc     Proc
	Summary  string
	Since    string
	ACL      []string // ACL categories besides the group's, e.g. "@write"
}

// Group is a command group as COMMAND DOCS names it ("hash", "set", ...),
// with the ACL category all its commands have ("@hash").
type Group struct {
	Name     string
	Category string
	Commands []Spec
}

// Ctx is the client running a command, as the command sees it. Everything
// runs on the executor, so nothing here locks.
type Ctx interface {
	Replier
	Keyspace
	Propagator
	Blocker
	KeyOps
	// NowMs is the server's clock in milliseconds (stream IDs, idle
	// times, timeouts).
	NowMs() int64
}

// Replier is the reply side: each call appends to the client's replies,
// in RESP2, or RESP3 after HELLO 3 where the types differ (Redis's
// addReply* family).
type Replier interface {
	// Err replies "-msg"; msg starts with the error code ("ERR ...").
	// It counts in errorstats and marks the command failed.
	Err(msg string)
	OK()
	Status(s string)
	Integer(n int64)
	Bulk(b []byte)
	BulkString(s string)
	// BulkOrNull is Bulk(b) if ok, Null otherwise.
	BulkOrNull(b []byte, ok bool)
	// Null is Redis's shared.null[resp]: "$-1" or "_".
	Null()
	// NullArray is shared.nullarray[resp]: "*-1" or "_".
	NullArray()
	ArrayLen(n int)
	EmptyArray()
	// MapLen starts a map of n pairs: "%n", or a flat array of 2n in RESP2.
	MapLen(n int)
	// SetLen starts a set: "~n", or an array in RESP2.
	SetLen(n int)
	// PairsLen starts n field/value (member/score) pairs: a flat array of
	// 2n in RESP2, an array of n two-element arrays in RESP3, each
	// started by PairStart (which writes nothing in RESP2).
	PairsLen(n int)
	PairStart()
	// Double replies ",d", or a bulk string in RESP2.
	Double(f float64)
	// DoubleString replies a double already formatted (GEOPOS's
	// coordinates, addReplyHumanLongDouble): ",s" in RESP3, a bulk string
	// in RESP2.
	DoubleString(s string)
	// Boolean replies "#t"/"#f", or 1 / 0 in RESP2.
	Boolean(b bool)
	// RESP is the protocol version the client speaks, 2 or 3.
	RESP() int
	// DeferLen starts an aggregate whose length is known only once its
	// elements are replied; SetArrayLen or SetMapLen then writes its
	// header at the place DeferLen returned (addReplyDeferredLen).
	DeferLen() int
	SetArrayLen(at, n int)
	SetMapLen(at, n int)
	// Scratch is a small buffer of the client's to format one reply
	// element in before passing it to Bulk (a stream ID): a buffer on
	// the caller's stack would escape through the interface call. It is
	// valid until the next call.
	Scratch() []byte
}

// Keyspace is the client's selected database. Every access applies lazy
// expiry, keyspace statistics, the LRU clock, WATCH invalidation and the
// snapshot hook, as the server's own commands do.
type Keyspace interface {
	// LookupRead is Redis's lookupKeyRead: key's live value for reading
	// (a miss counts and notifies keymiss).
	LookupRead(key []byte) (Value, bool)
	// LookupWrite is lookupKeyWrite: key's live value, which the command
	// may then change in place (the snapshot has its old value).
	LookupWrite(key []byte) (Value, bool)
	// LookupNoStats is key's live value with no statistics, LRU touch or
	// keymiss event (what a blocking pop checks before serving a key).
	LookupNoStats(key []byte) (Value, bool)
	// KeyMiss notifies "keymiss" for a key a write lookup did not find
	// where Redis read it with lookupKeyRead.
	KeyMiss(key []byte)
	// AddKey stores v under key, known to be absent (dbAdd: "new" is
	// notified, clients blocked on the key are woken).
	AddKey(key []byte, v Value)
	// SetKey stores v under key, replacing any value and TTL (setKey).
	SetKey(key []byte, v Value)
	// DeleteKey removes key; it reports whether there was one.
	DeleteKey(key []byte) bool
	// SignalModifiedKey invalidates WATCH and client-side caching on key.
	SignalModifiedKey(key []byte)
	// Notify publishes a keyspace event of class (Notify*) for key.
	Notify(class int, event string, key []byte)
	// AddDirty adds n changes to the dirty counter (what is propagated
	// and counted towards the save points).
	AddDirty(n int64)
	Strings
	// FullKeyAccess reports whether the client's ACL user may run argv
	// on every key (ACLUserCheckCmdWithUnrestrictedKeyAccess): SORT's BY
	// and GET patterns name keys the check before the command did not see.
	FullKeyAccess(argv [][]byte) bool
	// Loading reports that the server is loading its AOF or RDB file
	// (limits on what clients send are not checked then).
	Loading() bool
	// Config is the server's configuration, read only.
	Config() *config.Config
	// Rand is the server's random source.
	Rand() *rand.Rand
}

// Strings is string values for the groups that keep an encoding of their
// own in them (HyperLogLog). A string's bytes are shared until unshared:
// only the buffer UnshareString or AddRawString returns may be changed.
type Strings interface {
	// LookupReadString and LookupWriteString are LookupRead and
	// LookupWrite giving a string's bytes, read only; isString is false
	// for a key of another type (nothing is replied).
	LookupReadString(key []byte) (b []byte, isString, found bool)
	LookupWriteString(key []byte) (b []byte, isString, found bool)
	// UnshareString makes key's string, which the command has looked up,
	// one it may change in place (dbUnshareStringValue: LRU and snapshot
	// mark kept) and returns its growable buffer.
	UnshareString(key []byte) *[]byte
	// GrowString is UnshareString making the string at least need bytes
	// long, zero filled (lookupStringForBitCommand); grown is the number
	// of bytes added.
	GrowString(key []byte, need int) (buf *[]byte, grown int)
	// AddRawString stores b under key, known to be absent, as a string
	// the command may change in place, and returns its buffer.
	AddRawString(key []byte, b []byte) *[]byte
	// SetRawString is SetKey for a string: b, owned by the keyspace from
	// now on, replaces key's value and TTL (BITOP's result).
	SetRawString(key []byte, b []byte)
	// SetString stores a copy of val under key, replacing any value, and
	// its TTL unless keepTTL (SET, MSET, APPEND to a new key).
	SetString(key, val []byte, keepTTL bool)
	// SetOwnedString stores b, owned by the keyspace from now on, under
	// key: in the place of the string the command looked up for writing
	// (its TTL, LRU clock and snapshot mark kept), or as a new key if
	// there is none (INCR's result). embstr keeps a number out of the int
	// encoding (INCRBYFLOAT's result, as Redis stores it).
	SetOwnedString(key, b []byte, embstr bool)
	// BeforeModify hands key's value to an active snapshot before a
	// change in place that no write lookup preceded (PFCOUNT's cache).
	BeforeModify(key []byte)
}

// Propagator chooses what the AOF and the replicas get for the command.
type Propagator interface {
	// RewriteArgv propagates argv instead of the command as sent
	// (rewriteClientCommandVector).
	RewriteArgv(argv ...[]byte)
	// PreventPropagation stops the command from being propagated itself.
	PreventPropagation()
	// Propagate adds argv, in the client's database, to the command's
	// execution unit (alsoPropagate).
	Propagate(argv [][]byte)
}
