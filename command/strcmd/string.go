// Package strcmd is the string command group (Redis's t_string.c): GET,
// SET and its variants, MGET, MSET, APPEND, STRLEN, GETRANGE, SETRANGE,
// the INCR family and LCS (lcs.go), written against the seam of package
// command. How a string is held (encodings, the recycled value buffers,
// strings grown in place) stays the server's: the group stores and
// changes strings through the seam's Strings.
package strcmd

import (
	"bytes"
	"math"
	"math/big"
	"strconv"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
)

// Group is the "string" group, as the server registers it.
var Group = command.Group{Name: "string", Category: "@string", Commands: []command.Spec{
	str("get", 2, r|command.FlagFast, 1, 1, 1, getCommand, "Get the value of a key", "1.0.0", "@read", "@fast"),
	str("set", -3, w, 1, 1, 1, setCommand, "Set the string value of a key", "1.0.0", "@write", "@slow"),
	str("setnx", 3, w|command.FlagFast, 1, 1, 1, setnxCommand, "Set the value of a key, only if the key does not exist", "1.0.0", "@write", "@fast"),
	str("setex", 4, w, 1, 1, 1, setexCommand, "Set the value and expiration of a key", "2.0.0", "@write", "@slow"),
	str("psetex", 4, w, 1, 1, 1, psetexCommand, "Set the value and expiration in milliseconds of a key", "2.6.0", "@write", "@slow"),
	str("getset", 3, w|command.FlagFast, 1, 1, 1, getsetCommand, "Set the string value of a key and return its old value", "1.0.0", "@write", "@fast"),
	str("getdel", 2, command.FlagWrite|command.FlagFast, 1, 1, 1, getdelCommand, "Get the value of a key and delete the key", "6.2.0", "@write", "@fast"),
	str("getex", -2, command.FlagWrite|command.FlagFast, 1, 1, 1, getexCommand, "Get the value of a key and optionally set its expiration", "6.2.0", "@write", "@fast"),
	str("mget", -2, r|command.FlagFast, 1, -1, 1, mgetCommand, "Get the values of all the given keys", "1.0.0", "@read", "@fast"),
	str("mset", -3, w, 1, -1, 2, msetCommand, "Set multiple keys to multiple values", "1.0.1", "@write", "@slow"),
	str("msetnx", -3, w, 1, -1, 2, msetnxCommand, "Set multiple keys to multiple values, only if none of the keys exist", "1.0.1", "@write", "@slow"),
	str("append", 3, w|command.FlagFast, 1, 1, 1, appendCommand, "Append a value to a key", "2.0.0", "@write", "@fast"),
	str("strlen", 2, r|command.FlagFast, 1, 1, 1, strlenCommand, "Get the length of the value stored in a key", "2.2.0", "@read", "@fast"),
	str("getrange", 4, r, 1, 1, 1, getrangeCommand, "Get a substring of the string stored at a key", "2.4.0", "@read", "@slow"),
	str("substr", 4, r, 1, 1, 1, getrangeCommand, "Get a substring of the string stored at a key", "1.0.0", "@read", "@slow"),
	str("setrange", 4, w, 1, 1, 1, setrangeCommand, "Overwrite part of a string at key starting at the specified offset", "2.2.0", "@write", "@slow"),
	str("incr", 2, w|command.FlagFast, 1, 1, 1, incrCommand, "Increment the integer value of a key by one", "1.0.0", "@write", "@fast"),
	str("decr", 2, w|command.FlagFast, 1, 1, 1, decrCommand, "Decrement the integer value of a key by one", "1.0.0", "@write", "@fast"),
	str("incrby", 3, w|command.FlagFast, 1, 1, 1, incrbyCommand, "Increment the integer value of a key by the given amount", "1.0.0", "@write", "@fast"),
	str("decrby", 3, w|command.FlagFast, 1, 1, 1, decrbyCommand, "Decrement the integer value of a key by the given number", "1.0.0", "@write", "@fast"),
	str("incrbyfloat", 3, w|command.FlagFast, 1, 1, 1, incrbyfloatCommand, "Increment the float value of a key by the given amount", "2.6.0", "@write", "@fast"),
	str("lcs", -3, r, 1, 2, 1, lcsCommand, "Find longest common substring", "7.0.0", "@read", "@slow"),
}}

const (
	w = command.FlagWrite | command.FlagDenyOOM
	r = command.FlagReadonly
)

func str(name string, arity int, flags command.Flag, first, last, step int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

// getString returns key's string value; ok=false if absent; wrong=true if
// the key holds another type (the WRONGTYPE error is already replied).
func getString(c command.Ctx, key []byte) (val []byte, ok bool, wrong bool) {
	b, isString, found := c.LookupReadString(key)
	if !found {
		return nil, false, false
	}
	if !isString {
		c.Err(command.ErrWrongType)
		return nil, false, true
	}
	return b, true, false
}

func getCommand(c command.Ctx, argv [][]byte) {
	v, ok, wrong := getString(c, argv[1])
	if wrong {
		return
	}
	c.BulkOrNull(v, ok)
}

const (
	setNX = 1 << iota
	setXX
	setGET
	setKEEPTTL
	setEX
	setPX
	setEXAT
	setPXAT
	setPERSIST // GETEX only
)

// parseExtendedSet parses SET / GETEX options like Redis's
// parseExtendedStringArgumentsOrReply. It returns the flags, the expire
// argument and false after replying an error.
func parseSetOptions(c command.Ctx, argv [][]byte, start int, getex bool) (flags int, expire []byte, ok bool) {
	for j := start; j < len(argv); j++ {
		a := argv[j]
		var next []byte
		if j+1 < len(argv) {
			next = argv[j+1]
		}
		switch {
		case !getex && rstring.EqualFold(a, "nx") && flags&(setXX) == 0:
			flags |= setNX
		case !getex && rstring.EqualFold(a, "xx") && flags&(setNX) == 0:
			flags |= setXX
		case !getex && rstring.EqualFold(a, "get"):
			flags |= setGET
		case !getex && rstring.EqualFold(a, "keepttl") && flags&(setEX|setPX|setEXAT|setPXAT) == 0:
			flags |= setKEEPTTL
		case getex && rstring.EqualFold(a, "persist") && flags&(setEX|setPX|setEXAT|setPXAT) == 0:
			flags |= setPERSIST
		case rstring.EqualFold(a, "ex") && flags&(setKEEPTTL|setPERSIST|setPX|setEXAT|setPXAT) == 0 && next != nil:
			flags |= setEX
			expire = next
			j++
		case rstring.EqualFold(a, "px") && flags&(setKEEPTTL|setPERSIST|setEX|setEXAT|setPXAT) == 0 && next != nil:
			flags |= setPX
			expire = next
			j++
		case rstring.EqualFold(a, "exat") && flags&(setKEEPTTL|setPERSIST|setEX|setPX|setPXAT) == 0 && next != nil:
			flags |= setEXAT
			expire = next
			j++
		case rstring.EqualFold(a, "pxat") && flags&(setKEEPTTL|setPERSIST|setEX|setPX|setEXAT) == 0 && next != nil:
			flags |= setPXAT
			expire = next
			j++
		default:
			c.Err(command.ErrSyntax)
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// expireToAbsMs converts an EX/PX/EXAT/PXAT argument to absolute ms as
// Redis's getExpireMillisecondsOrReply does, with its error texts.
func expireToAbsMs(c command.Ctx, flags int, arg []byte, cmdName string) (int64, bool) {
	v, ok := rstring.String2ll(arg)
	if !ok {
		c.Err(command.ErrNotInt)
		return 0, false
	}
	if v <= 0 {
		c.Err("ERR invalid expire time in '" + cmdName + "' command")
		return 0, false
	}
	unitSec := flags&(setEX|setEXAT) != 0
	if unitSec {
		if v > math.MaxInt64/1000 {
			c.Err("ERR invalid expire time in '" + cmdName + "' command")
			return 0, false
		}
		v *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		now := c.NowMs()
		if v > math.MaxInt64-now {
			c.Err("ERR invalid expire time in '" + cmdName + "' command")
			return 0, false
		}
		v += now
	}
	return v, true
}

func setCommand(c command.Ctx, argv [][]byte) {
	flags, exp, ok := parseSetOptions(c, argv, 3, false)
	if !ok {
		return
	}
	setGeneric(c, flags, argv[1], argv[2], exp, "set", argv)
}

// setGeneric implements SET and its variants (Redis setGenericCommand),
// including the propagated form: SET k v PXAT <abs> for any expire, and
// GET tokens removed.
func setGeneric(c command.Ctx, flags int, key, val, exp []byte, name string, argv [][]byte) {
	var when int64 = -1
	if exp != nil {
		var ok bool
		if when, ok = expireToAbsMs(c, flags, exp, name); !ok {
			return
		}
	}
	var old []byte
	var oldOK bool
	if flags&setGET != 0 {
		var wrong bool
		old, oldOK, wrong = getString(c, key)
		if wrong {
			return
		}
		if oldOK {
			old = bytes.Clone(old)
		}
	}
	found := c.Exists(key)
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGET != 0 {
			c.BulkOrNull(old, oldOK)
		} else {
			c.Null()
		}
		return
	}
	c.SetString(key, val, flags&setKEEPTTL != 0)
	c.AddDirty(1)
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyString, "set", key)
	if when >= 0 {
		c.SetExpire(key, when)
		c.Notify(command.NotifyGeneric, "expire", key)
	}
	if flags&setGET != 0 {
		c.BulkOrNull(old, oldOK)
	} else {
		c.OK()
	}
	// Propagation (spec §4.3).
	switch {
	case when >= 0:
		c.RewriteArgv([]byte("SET"), bytes.Clone(key), bytes.Clone(val), []byte("PXAT"), strconv.AppendInt(nil, when, 10))
	case flags&setGET != 0 || name == "getset":
		if name == "getset" {
			c.RewriteArgv([]byte("SET"), bytes.Clone(key), bytes.Clone(val))
			break
		}
		out := make([][]byte, 0, len(argv))
		for i, a := range argv {
			if i >= 3 && rstring.EqualFold(a, "get") {
				continue
			}
			out = append(out, bytes.Clone(a))
		}
		c.RewriteArgv(out...)
	}
}

func setnxCommand(c command.Ctx, argv [][]byte) {
	if c.Exists(argv[1]) {
		c.Integer(0)
		return
	}
	c.SetString(argv[1], argv[2], false)
	c.AddDirty(1)
	c.SignalModifiedKey(argv[1])
	c.Notify(command.NotifyString, "set", argv[1])
	c.Integer(1)
}

func setexCommand(c command.Ctx, argv [][]byte) {
	setGeneric(c, setEX, argv[1], argv[3], argv[2], "setex", argv)
}

func psetexCommand(c command.Ctx, argv [][]byte) {
	setGeneric(c, setPX, argv[1], argv[3], argv[2], "psetex", argv)
}

func getsetCommand(c command.Ctx, argv [][]byte) {
	setGeneric(c, setGET, argv[1], argv[2], nil, "getset", argv)
}

func getdelCommand(c command.Ctx, argv [][]byte) {
	v, ok, wrong := getString(c, argv[1])
	if wrong {
		return
	}
	if !ok {
		c.Null()
		return
	}
	c.Bulk(v)
	c.DeleteLazy(argv[1], c.Config().LazyfreeLazyUserDel)
	c.AddDirty(1)
	c.SignalModifiedKey(argv[1])
	c.Notify(command.NotifyGeneric, "del", argv[1])
	if c.Config().LazyfreeLazyUserDel {
		c.RewriteArgv([]byte("UNLINK"), bytes.Clone(argv[1]))
	} else {
		c.RewriteArgv([]byte("DEL"), bytes.Clone(argv[1]))
	}
}

func getexCommand(c command.Ctx, argv [][]byte) {
	flags, exp, ok := parseSetOptions(c, argv, 2, true)
	if !ok {
		return
	}
	v, found, wrong := getString(c, argv[1])
	if wrong {
		return
	}
	if !found {
		c.Null()
		return
	}
	// As Redis 7.0: the expire value is checked only for an existing string.
	var when int64 = -1
	if exp != nil {
		if when, ok = expireToAbsMs(c, flags, exp, "getex"); !ok {
			return
		}
	}
	c.Bulk(v)
	key := argv[1]
	switch {
	case when >= 0 && when <= c.NowMs():
		c.DeleteLazy(key, c.Config().LazyfreeLazyExpire)
		c.AddDirty(1)
		c.SignalModifiedKey(key)
		c.Notify(command.NotifyGeneric, "del", key)
		name := "DEL"
		if c.Config().LazyfreeLazyExpire {
			name = "UNLINK"
		}
		c.RewriteArgv([]byte(name), bytes.Clone(key))
	case when >= 0:
		c.SetExpire(key, when)
		c.AddDirty(1)
		c.SignalModifiedKey(key)
		c.Notify(command.NotifyGeneric, "expire", key)
		c.RewriteArgv([]byte("PEXPIREAT"), bytes.Clone(key), strconv.AppendInt(nil, when, 10))
	case flags&setPERSIST != 0:
		if c.Persist(key) {
			c.AddDirty(1)
			c.SignalModifiedKey(key)
			c.Notify(command.NotifyGeneric, "persist", key)
			c.RewriteArgv([]byte("PERSIST"), bytes.Clone(key))
		}
	}
}

func mgetCommand(c command.Ctx, argv [][]byte) {
	c.ArrayLen(len(argv) - 1)
	for _, k := range argv[1:] {
		b, isString, _ := c.LookupReadString(k)
		if !isString {
			c.Null()
			continue
		}
		c.Bulk(b)
	}
}

func msetCommand(c command.Ctx, argv [][]byte) {
	if len(argv)%2 != 1 {
		c.Err("ERR wrong number of arguments for 'mset' command")
		return
	}
	for i := 1; i < len(argv); i += 2 {
		c.SetString(argv[i], argv[i+1], false)
		c.SignalModifiedKey(argv[i])
		c.Notify(command.NotifyString, "set", argv[i])
	}
	c.AddDirty(int64(len(argv) / 2))
	c.OK()
}

func msetnxCommand(c command.Ctx, argv [][]byte) {
	if len(argv)%2 != 1 {
		c.Err("ERR wrong number of arguments for 'msetnx' command")
		return
	}
	for i := 1; i < len(argv); i += 2 {
		if c.Exists(argv[i]) {
			c.Integer(0)
			return
		}
	}
	for i := 1; i < len(argv); i += 2 {
		c.SetString(argv[i], argv[i+1], false)
		c.SignalModifiedKey(argv[i])
		c.Notify(command.NotifyString, "set", argv[i])
	}
	c.AddDirty(int64(len(argv) / 2))
	c.Integer(1)
}

// checkStringLength replies Redis's error when a string would exceed
// proto-max-bulk-len.
func checkStringLength(c command.Ctx, size int64) bool {
	if size < 0 || size > c.Config().ProtoMaxBulkLen { // < 0: offset+len overflowed
		c.Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
		return false
	}
	return true
}

func appendCommand(c command.Ctx, argv [][]byte) {
	cur, isString, found := c.LookupWriteString(argv[1])
	if !found {
		c.SetString(argv[1], argv[2], false)
		c.AddDirty(1)
		c.SignalModifiedKey(argv[1])
		c.Notify(command.NotifyString, "append", argv[1])
		c.Integer(int64(len(argv[2])))
		return
	}
	if !isString {
		c.Err(command.ErrWrongType)
		return
	}
	if !checkStringLength(c, int64(len(cur)+len(argv[2]))) {
		return
	}
	b := c.UnshareString(argv[1])
	*b = append(*b, argv[2]...)
	c.AddDirty(1)
	c.SignalModifiedKey(argv[1])
	c.Notify(command.NotifyString, "append", argv[1])
	c.Integer(int64(len(*b)))
}

func strlenCommand(c command.Ctx, argv [][]byte) {
	v, _, wrong := getString(c, argv[1])
	if wrong {
		return
	}
	c.Integer(int64(len(v)))
}

func getrangeCommand(c command.Ctx, argv [][]byte) {
	start, ok1 := rstring.String2ll(argv[2])
	end, ok2 := rstring.String2ll(argv[3])
	if !ok1 || !ok2 {
		c.Err(command.ErrNotInt)
		return
	}
	v, ok, wrong := getString(c, argv[1])
	if wrong {
		return
	}
	if !ok {
		c.Bulk(nil)
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		c.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.Bulk(nil)
		return
	}
	c.Bulk(v[start : end+1])
}

func setrangeCommand(c command.Ctx, argv [][]byte) {
	off, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if off < 0 {
		c.Err("ERR offset is out of range")
		return
	}
	val := argv[3]
	cur, isString, found := c.LookupWriteString(argv[1])
	if !found {
		if len(val) == 0 {
			c.Integer(0)
			return
		}
		if !checkStringLength(c, off+int64(len(val))) {
			return
		}
		b := make([]byte, off+int64(len(val)))
		copy(b[off:], val)
		c.AddRawString(argv[1], b)
		c.AddDirty(1)
		c.SignalModifiedKey(argv[1])
		c.Notify(command.NotifyString, "setrange", argv[1])
		c.Integer(int64(len(b)))
		return
	}
	if !isString {
		c.Err(command.ErrWrongType)
		return
	}
	if len(val) == 0 {
		c.Integer(int64(len(cur)))
		return
	}
	if !checkStringLength(c, off+int64(len(val))) {
		return
	}
	b, _ := c.GrowString(argv[1], int(off)+len(val))
	copy((*b)[off:], val)
	c.AddDirty(1)
	c.SignalModifiedKey(argv[1])
	c.Notify(command.NotifyString, "setrange", argv[1])
	c.Integer(int64(len(*b)))
}

func incrCommand(c command.Ctx, argv [][]byte)   { incrDecr(c, argv[1], 1) }
func decrCommand(c command.Ctx, argv [][]byte)   { incrDecr(c, argv[1], -1) }
func incrbyCommand(c command.Ctx, argv [][]byte) { incrbyGeneric(c, argv, false) }
func decrbyCommand(c command.Ctx, argv [][]byte) { incrbyGeneric(c, argv, true) }

func incrbyGeneric(c command.Ctx, argv [][]byte, neg bool) {
	by, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if neg {
		if by == math.MinInt64 {
			c.Err("ERR decrement would overflow")
			return
		}
		by = -by
	}
	incrDecr(c, argv[1], by)
}

func incrDecr(c command.Ctx, key []byte, by int64) {
	b, isString, found := c.LookupWriteString(key)
	var cur int64
	if found {
		if !isString {
			c.Err(command.ErrWrongType)
			return
		}
		v, ok := rstring.String2ll(b)
		if !ok {
			c.Err(command.ErrNotInt)
			return
		}
		cur = v
	}
	if (by < 0 && cur < 0 && by < math.MinInt64-cur) || (by > 0 && cur > 0 && by > math.MaxInt64-cur) {
		c.Err("ERR increment or decrement would overflow")
		return
	}
	cur += by
	c.SetOwnedString(key, strconv.AppendInt(make([]byte, 0, 20), cur, 10), false)
	c.AddDirty(1)
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyString, "incrby", key)
	c.Integer(cur)
}

func incrbyfloatCommand(c command.Ctx, argv [][]byte) {
	by, ok := rstring.String2ld(argv[2])
	if !ok {
		c.Err(command.ErrNotFloat)
		return
	}
	b, isString, found := c.LookupWriteString(argv[1])
	cur := new(big.Float)
	if found {
		if !isString {
			c.Err(command.ErrWrongType)
			return
		}
		v, ok := rstring.String2ld(b)
		if !ok {
			c.Err(command.ErrNotFloat)
			return
		}
		cur = v
	}
	sum, ok := rstring.LdAdd(cur, by)
	if !ok {
		c.Err("ERR increment would produce NaN or Infinity")
		return
	}
	out := rstring.Ld2string(sum)
	c.SetOwnedString(argv[1], out, true)
	c.AddDirty(1)
	c.SignalModifiedKey(argv[1])
	c.Notify(command.NotifyString, "incrbyfloat", argv[1])
	c.Bulk(out)
	// Propagate as SET key <result> KEEPTTL so float rounding cannot differ.
	c.RewriteArgv([]byte("SET"), bytes.Clone(argv[1]), bytes.Clone(out), []byte("KEEPTTL"))
}
