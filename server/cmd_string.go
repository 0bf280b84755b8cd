package server

import (
	"math"
	"math/big"
	"strconv"

	"github.com/aofserver/aofserver/rstring"
)

func init() {
	str := func(name string, arity int, flags uint64, first, last, step int, proc cmdProc, summary, since string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: step, proc: proc, group: "string", summary: summary, since: since, acl: append([]string{"@string"}, acl...)}
	}
	w, r := cmdWrite|cmdDenyOOM, cmdReadonly
	register(
		str("get", 2, r|cmdFast, 1, 1, 1, getCommand, "Get the value of a key", "1.0.0", "@read", "@fast"),
		str("set", -3, w, 1, 1, 1, setCommand, "Set the string value of a key", "1.0.0", "@write", "@slow"),
		str("setnx", 3, w|cmdFast, 1, 1, 1, setnxCommand, "Set the value of a key, only if the key does not exist", "1.0.0", "@write", "@fast"),
		str("setex", 4, w, 1, 1, 1, setexCommand, "Set the value and expiration of a key", "2.0.0", "@write", "@slow"),
		str("psetex", 4, w, 1, 1, 1, psetexCommand, "Set the value and expiration in milliseconds of a key", "2.6.0", "@write", "@slow"),
		str("getset", 3, w|cmdFast, 1, 1, 1, getsetCommand, "Set the string value of a key and return its old value", "1.0.0", "@write", "@fast"),
		str("getdel", 2, cmdWrite|cmdFast, 1, 1, 1, getdelCommand, "Get the value of a key and delete the key", "6.2.0", "@write", "@fast"),
		str("getex", -2, cmdWrite|cmdFast, 1, 1, 1, getexCommand, "Get the value of a key and optionally set its expiration", "6.2.0", "@write", "@fast"),
		str("mget", -2, r|cmdFast, 1, -1, 1, mgetCommand, "Get the values of all the given keys", "1.0.0", "@read", "@fast"),
		str("mset", -3, w, 1, -1, 2, msetCommand, "Set multiple keys to multiple values", "1.0.1", "@write", "@slow"),
		str("msetnx", -3, w, 1, -1, 2, msetnxCommand, "Set multiple keys to multiple values, only if none of the keys exist", "1.0.1", "@write", "@slow"),
		str("append", 3, w|cmdFast, 1, 1, 1, appendCommand, "Append a value to a key", "2.0.0", "@write", "@fast"),
		str("strlen", 2, r|cmdFast, 1, 1, 1, strlenCommand, "Get the length of the value stored in a key", "2.2.0", "@read", "@fast"),
		str("getrange", 4, r, 1, 1, 1, getrangeCommand, "Get a substring of the string stored at a key", "2.4.0", "@read", "@slow"),
		str("substr", 4, r, 1, 1, 1, getrangeCommand, "Get a substring of the string stored at a key", "1.0.0", "@read", "@slow"),
		str("setrange", 4, w, 1, 1, 1, setrangeCommand, "Overwrite part of a string at key starting at the specified offset", "2.2.0", "@write", "@slow"),
		str("incr", 2, w|cmdFast, 1, 1, 1, incrCommand, "Increment the integer value of a key by one", "1.0.0", "@write", "@fast"),
		str("decr", 2, w|cmdFast, 1, 1, 1, decrCommand, "Decrement the integer value of a key by one", "1.0.0", "@write", "@fast"),
		str("incrby", 3, w|cmdFast, 1, 1, 1, incrbyCommand, "Increment the integer value of a key by the given amount", "1.0.0", "@write", "@fast"),
		str("decrby", 3, w|cmdFast, 1, 1, 1, decrbyCommand, "Decrement the integer value of a key by the given number", "1.0.0", "@write", "@fast"),
		str("incrbyfloat", 3, w|cmdFast, 1, 1, 1, incrbyfloatCommand, "Increment the float value of a key by the given amount", "2.6.0", "@write", "@fast"),
	)
}

// getString returns key's string value; ok=false if absent; wrong=true if
// the key holds another type (the WRONGTYPE error is already replied).
func (s *Server) getString(c *client, key []byte) (val []byte, ok bool, wrong bool) {
	e, found := s.lookupRead(c, key)
	if !found {
		return nil, false, false
	}
	if e.typ() != typString {
		c.errWrongType()
		return nil, false, true
	}
	return e.str(), true, false
}

func getCommand(c *client, argv [][]byte) {
	v, ok, wrong := c.srv.getString(c, argv[1])
	if wrong {
		return
	}
	c.bulkOrNull(v, ok)
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
func parseSetOptions(c *client, argv [][]byte, start int, getex bool) (flags int, expire []byte, ok bool) {
	for j := start; j < len(argv); j++ {
		a := argv[j]
		var next []byte
		if j+1 < len(argv) {
			next = argv[j+1]
		}
		switch {
		case !getex && eqFold(a, "nx") && flags&(setXX) == 0:
			flags |= setNX
		case !getex && eqFold(a, "xx") && flags&(setNX) == 0:
			flags |= setXX
		case !getex && eqFold(a, "get"):
			flags |= setGET
		case !getex && eqFold(a, "keepttl") && flags&(setEX|setPX|setEXAT|setPXAT) == 0:
			flags |= setKEEPTTL
		case getex && eqFold(a, "persist") && flags&(setEX|setPX|setEXAT|setPXAT) == 0:
			flags |= setPERSIST
		case eqFold(a, "ex") && flags&(setKEEPTTL|setPERSIST|setPX|setEXAT|setPXAT) == 0 && next != nil:
			flags |= setEX
			expire = next
			j++
		case eqFold(a, "px") && flags&(setKEEPTTL|setPERSIST|setEX|setEXAT|setPXAT) == 0 && next != nil:
			flags |= setPX
			expire = next
			j++
		case eqFold(a, "exat") && flags&(setKEEPTTL|setPERSIST|setEX|setPX|setPXAT) == 0 && next != nil:
			flags |= setEXAT
			expire = next
			j++
		case eqFold(a, "pxat") && flags&(setKEEPTTL|setPERSIST|setEX|setPX|setEXAT) == 0 && next != nil:
			flags |= setPXAT
			expire = next
			j++
		default:
			c.errSyntax()
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// expireToAbsMs converts an EX/PX/EXAT/PXAT argument to absolute ms as
// Redis's getExpireMillisecondsOrReply does, with its error texts.
func expireToAbsMs(c *client, flags int, arg []byte, cmdName string) (int64, bool) {
	v, ok := parseInt(arg)
	if !ok {
		c.errNotInt()
		return 0, false
	}
	if v <= 0 {
		c.err("ERR invalid expire time in '" + cmdName + "' command")
		return 0, false
	}
	unitSec := flags&(setEX|setEXAT) != 0
	if unitSec {
		if v > math.MaxInt64/1000 {
			c.err("ERR invalid expire time in '" + cmdName + "' command")
			return 0, false
		}
		v *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		now := c.srv.nowMs()
		if v > math.MaxInt64-now {
			c.err("ERR invalid expire time in '" + cmdName + "' command")
			return 0, false
		}
		v += now
	}
	return v, true
}

func setCommand(c *client, argv [][]byte) {
	flags, exp, ok := parseSetOptions(c, argv, 3, false)
	if !ok {
		return
	}
	c.srv.setGeneric(c, flags, argv[1], argv[2], exp, "set", argv)
}

// setGeneric implements SET and its variants (Redis setGenericCommand),
// including the propagated form: SET k v PXAT <abs> for any expire, and
// GET tokens removed.
func (s *Server) setGeneric(c *client, flags int, key, val, exp []byte, name string, argv [][]byte) {
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
		old, oldOK, wrong = s.getString(c, key)
		if wrong {
			return
		}
		if oldOK {
			old = cloneBytes(old)
		}
	}
	found := s.exists(c.db, key)
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGET != 0 {
			c.bulkOrNull(old, oldOK)
		} else {
			c.nullBulk()
		}
		return
	}
	s.setKey(c.db, key, s.newString(val), flags&setKEEPTTL != 0)
	s.dirty++
	s.signalModifiedKey(c.db, key)
	s.notify(notifyString, "set", key, c.db.id)
	if when >= 0 {
		s.setExpire(c.db, key, when)
		s.notify(notifyGeneric, "expire", key, c.db.id)
	}
	if flags&setGET != 0 {
		c.bulkOrNull(old, oldOK)
	} else {
		c.ok()
	}
	// Propagation (spec §4.3).
	switch {
	case when >= 0:
		c.rewriteArgv([]byte("SET"), cloneBytes(key), cloneBytes(val), []byte("PXAT"), formatInt(when))
	case flags&setGET != 0 || name == "getset":
		if name == "getset" {
			c.rewriteArgv([]byte("SET"), cloneBytes(key), cloneBytes(val))
			break
		}
		out := make([][]byte, 0, len(argv))
		for i, a := range argv {
			if i >= 3 && eqFold(a, "get") {
				continue
			}
			out = append(out, cloneBytes(a))
		}
		c.rewriteArgv(out...)
	}
}

func setnxCommand(c *client, argv [][]byte) {
	s := c.srv
	if s.exists(c.db, argv[1]) {
		c.integer(0)
		return
	}
	s.setKey(c.db, argv[1], newStringEntry(argv[2]), false)
	s.dirty++
	s.signalModifiedKey(c.db, argv[1])
	s.notify(notifyString, "set", argv[1], c.db.id)
	c.integer(1)
}

func setexCommand(c *client, argv [][]byte) {
	c.srv.setGeneric(c, setEX, argv[1], argv[3], argv[2], "setex", argv)
}

func psetexCommand(c *client, argv [][]byte) {
	c.srv.setGeneric(c, setPX, argv[1], argv[3], argv[2], "psetex", argv)
}

func getsetCommand(c *client, argv [][]byte) {
	c.srv.setGeneric(c, setGET, argv[1], argv[2], nil, "getset", argv)
}

func getdelCommand(c *client, argv [][]byte) {
	s := c.srv
	v, ok, wrong := s.getString(c, argv[1])
	if wrong {
		return
	}
	if !ok {
		c.nullBulk()
		return
	}
	c.bulk(v)
	s.deleteKeyLazy(c.db, argv[1], s.cfg.LazyfreeLazyUserDel)
	s.dirty++
	s.signalModifiedKey(c.db, argv[1])
	s.notify(notifyGeneric, "del", argv[1], c.db.id)
	if s.cfg.LazyfreeLazyUserDel {
		c.rewriteArgv([]byte("UNLINK"), cloneBytes(argv[1]))
	} else {
		c.rewriteArgv([]byte("DEL"), cloneBytes(argv[1]))
	}
}

func getexCommand(c *client, argv [][]byte) {
	s := c.srv
	flags, exp, ok := parseSetOptions(c, argv, 2, true)
	if !ok {
		return
	}
	v, found, wrong := s.getString(c, argv[1])
	if wrong {
		return
	}
	if !found {
		c.nullBulk()
		return
	}
	// As Redis 7.0: the expire value is checked only for an existing string.
	var when int64 = -1
	if exp != nil {
		if when, ok = expireToAbsMs(c, flags, exp, "getex"); !ok {
			return
		}
	}
	c.bulk(v)
	key := argv[1]
	switch {
	case when >= 0 && when <= s.nowMs():
		s.deleteKeyLazy(c.db, key, s.cfg.LazyfreeLazyExpire)
		s.dirty++
		s.signalModifiedKey(c.db, key)
		s.notify(notifyGeneric, "del", key, c.db.id)
		name := "DEL"
		if s.cfg.LazyfreeLazyExpire {
			name = "UNLINK"
		}
		c.rewriteArgv([]byte(name), cloneBytes(key))
	case when >= 0:
		s.setExpire(c.db, key, when)
		s.dirty++
		s.signalModifiedKey(c.db, key)
		s.notify(notifyGeneric, "expire", key, c.db.id)
		c.rewriteArgv([]byte("PEXPIREAT"), cloneBytes(key), formatInt(when))
	case flags&setPERSIST != 0:
		if s.removeExpire(c.db, key) {
			s.dirty++
			s.signalModifiedKey(c.db, key)
			s.notify(notifyGeneric, "persist", key, c.db.id)
			c.rewriteArgv([]byte("PERSIST"), cloneBytes(key))
		}
	}
}

func mgetCommand(c *client, argv [][]byte) {
	s := c.srv
	c.arrayLen(len(argv) - 1)
	for _, k := range argv[1:] {
		e, ok := s.lookupRead(c, k)
		if !ok || e.typ() != typString {
			c.nullBulk()
			continue
		}
		c.bulk(e.str())
	}
}

func msetCommand(c *client, argv [][]byte) {
	if len(argv)%2 != 1 {
		c.err(arityError(c.srv.commands["mset"]))
		return
	}
	s := c.srv
	for i := 1; i < len(argv); i += 2 {
		s.setKey(c.db, argv[i], newStringEntry(argv[i+1]), false)
		s.signalModifiedKey(c.db, argv[i])
		s.notify(notifyString, "set", argv[i], c.db.id)
	}
	s.dirty += int64(len(argv) / 2)
	c.ok()
}

func msetnxCommand(c *client, argv [][]byte) {
	if len(argv)%2 != 1 {
		c.err(arityError(c.srv.commands["msetnx"]))
		return
	}
	s := c.srv
	for i := 1; i < len(argv); i += 2 {
		if s.exists(c.db, argv[i]) {
			c.integer(0)
			return
		}
	}
	for i := 1; i < len(argv); i += 2 {
		s.setKey(c.db, argv[i], newStringEntry(argv[i+1]), false)
		s.signalModifiedKey(c.db, argv[i])
		s.notify(notifyString, "set", argv[i], c.db.id)
	}
	s.dirty += int64(len(argv) / 2)
	c.integer(1)
}

// checkStringLength replies Redis's error when a string would exceed
// proto-max-bulk-len.
func checkStringLength(c *client, size int64) bool {
	if size < 0 || size > c.srv.cfg.ProtoMaxBulkLen { // < 0: offset+len overflowed
		c.err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
		return false
	}
	return true
}

func appendCommand(c *client, argv [][]byte) {
	s := c.srv
	p := s.lookupWrite(c, argv[1])
	if p == nil {
		s.addKey(c.db, argv[1], newStringEntry(argv[2]))
		s.dirty++
		s.signalModifiedKey(c.db, argv[1])
		s.notify(notifyString, "append", argv[1], c.db.id)
		c.integer(int64(len(argv[2])))
		return
	}
	if p.typ() != typString {
		c.errWrongType()
		return
	}
	cur := p.str()
	if !checkStringLength(c, int64(len(cur)+len(argv[2]))) {
		return
	}
	if rs := p.rawString(); rs != nil {
		rs.b = append(rs.b, argv[2]...)
	} else {
		b := make([]byte, 0, len(cur)+len(argv[2]))
		b = append(append(b, cur...), argv[2]...)
		lru := p.lru()
		mark := p.snapMark()
		*p = newRawStringEntry(b)
		p.setLRU(lru)
		p.setSnapMark(mark)
	}
	s.dirty++
	s.signalModifiedKey(c.db, argv[1])
	s.notify(notifyString, "append", argv[1], c.db.id)
	c.integer(int64(len(p.str())))
}

func strlenCommand(c *client, argv [][]byte) {
	v, _, wrong := c.srv.getString(c, argv[1])
	if wrong {
		return
	}
	c.integer(int64(len(v)))
}

func getrangeCommand(c *client, argv [][]byte) {
	start, ok1 := parseInt(argv[2])
	end, ok2 := parseInt(argv[3])
	if !ok1 || !ok2 {
		c.errNotInt()
		return
	}
	v, ok, wrong := c.srv.getString(c, argv[1])
	if wrong {
		return
	}
	if !ok {
		c.bulk(nil)
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		c.bulk(nil)
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
		c.bulk(nil)
		return
	}
	c.bulk(v[start : end+1])
}

func setrangeCommand(c *client, argv [][]byte) {
	s := c.srv
	off, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if off < 0 {
		c.err("ERR offset is out of range")
		return
	}
	val := argv[3]
	p := s.lookupWrite(c, argv[1])
	if p == nil {
		if len(val) == 0 {
			c.integer(0)
			return
		}
		if !checkStringLength(c, off+int64(len(val))) {
			return
		}
		b := make([]byte, off+int64(len(val)))
		copy(b[off:], val)
		s.addKey(c.db, argv[1], newRawStringEntry(b))
		s.dirty++
		s.signalModifiedKey(c.db, argv[1])
		s.notify(notifyString, "setrange", argv[1], c.db.id)
		c.integer(int64(len(b)))
		return
	}
	if p.typ() != typString {
		c.errWrongType()
		return
	}
	cur := p.str()
	if len(val) == 0 {
		c.integer(int64(len(cur)))
		return
	}
	if !checkStringLength(c, off+int64(len(val))) {
		return
	}
	need := int(off) + len(val)
	var b []byte
	if rs := p.rawString(); rs != nil {
		b = rs.b
		if need > len(b) {
			b = append(b, make([]byte, need-len(b))...)
		}
		copy(b[off:], val)
		rs.b = b
	} else {
		n := len(cur)
		if need > n {
			n = need
		}
		b = make([]byte, n)
		copy(b, cur)
		copy(b[off:], val)
		lru, mark := p.lru(), p.snapMark()
		*p = newRawStringEntry(b)
		p.setLRU(lru)
		p.setSnapMark(mark)
	}
	s.dirty++
	s.signalModifiedKey(c.db, argv[1])
	s.notify(notifyString, "setrange", argv[1], c.db.id)
	c.integer(int64(len(p.str())))
}

func incrCommand(c *client, argv [][]byte)   { c.srv.incrDecr(c, argv[1], 1) }
func decrCommand(c *client, argv [][]byte)   { c.srv.incrDecr(c, argv[1], -1) }
func incrbyCommand(c *client, argv [][]byte) { incrbyGeneric(c, argv, false) }
func decrbyCommand(c *client, argv [][]byte) { incrbyGeneric(c, argv, true) }

func incrbyGeneric(c *client, argv [][]byte, neg bool) {
	by, ok := parseInt(argv[2])
	if !ok {
		c.errNotInt()
		return
	}
	if neg {
		if by == math.MinInt64 {
			c.err("ERR decrement would overflow")
			return
		}
		by = -by
	}
	c.srv.incrDecr(c, argv[1], by)
}

func (s *Server) incrDecr(c *client, key []byte, by int64) {
	p := s.lookupWrite(c, key)
	var cur int64
	if p != nil {
		if p.typ() != typString {
			c.errWrongType()
			return
		}
		v, ok := parseInt(p.str())
		if !ok {
			c.errNotInt()
			return
		}
		cur = v
	}
	if (by < 0 && cur < 0 && by < math.MinInt64-cur) || (by > 0 && cur > 0 && by > math.MaxInt64-cur) {
		c.err("ERR increment or decrement would overflow")
		return
	}
	cur += by
	nv := newStringEntryOwned(strconv.AppendInt(make([]byte, 0, 20), cur, 10))
	if p != nil {
		lru, mark := p.lru(), p.snapMark()
		*p = nv
		p.setLRU(lru)
		p.setSnapMark(mark)
	} else {
		s.addKey(c.db, key, nv)
	}
	s.dirty++
	s.signalModifiedKey(c.db, key)
	s.notify(notifyString, "incrby", key, c.db.id)
	c.integer(cur)
}

func incrbyfloatCommand(c *client, argv [][]byte) {
	s := c.srv
	by, ok := rstring.String2ld(argv[2])
	if !ok {
		c.err(errNotFloat)
		return
	}
	p := s.lookupWrite(c, argv[1])
	cur := new(big.Float)
	if p != nil {
		if p.typ() != typString {
			c.errWrongType()
			return
		}
		v, ok := rstring.String2ld(p.str())
		if !ok {
			c.err(errNotFloat)
			return
		}
		cur = v
	}
	sum, ok := rstring.LdAdd(cur, by)
	if !ok {
		c.err("ERR increment would produce NaN or Infinity")
		return
	}
	out := rstring.Ld2string(sum)
	nv := newStringEntryOwned(out)
	nv.meta |= metaNoIntBit
	if p != nil {
		lru, mark := p.lru(), p.snapMark()
		*p = nv
		p.setLRU(lru)
		p.setSnapMark(mark)
	} else {
		s.addKey(c.db, argv[1], nv)
	}
	s.dirty++
	s.signalModifiedKey(c.db, argv[1])
	s.notify(notifyString, "incrbyfloat", argv[1], c.db.id)
	c.bulk(out)
	// Propagate as SET key <result> KEEPTTL so float rounding cannot differ.
	c.rewriteArgv([]byte("SET"), cloneBytes(argv[1]), cloneBytes(out), []byte("KEEPTTL"))
}
