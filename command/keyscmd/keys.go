// Package keyscmd is the part of the generic key commands (Redis's db.c
// and expire.c) that works on named keys of the client's database: DEL,
// UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, the EXPIRE and TTL
// families and PERSIST, written against the seam of package command. The
// commands that walk, empty or swap whole databases, cross to another
// database or look inside the server's value representation (KEYS, SCAN,
// RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, MOVE, COPY, OBJECT) stay
// in server with the keyspace they are about.
package keyscmd

import (
	"bytes"
	"math"
	"strconv"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
)

// Group is these commands of the "generic" group, as the server
// registers them.
var Group = command.Group{Name: "generic", Category: "@keyspace", Commands: []command.Spec{
	k("del", -2, w, 1, -1, delCommand, "Delete a key", "1.0.0", "@write", "@slow"),
	k("unlink", -2, w|command.FlagFast, 1, -1, unlinkCommand, "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", "4.0.0", "@write", "@fast"),
	k("exists", -2, r|command.FlagFast, 1, -1, existsCommand, "Determine if a key exists", "1.0.0", "@read", "@fast"),
	k("touch", -2, r|command.FlagFast, 1, -1, touchCommand, "Alters the last access time of a key(s). Returns the number of existing keys specified.", "3.2.1", "@read", "@fast"),
	k("type", 2, r|command.FlagFast, 1, 1, typeCommand, "Determine the type stored at key", "1.0.0", "@read", "@fast"),
	k("rename", 3, w, 1, 2, renameCommand, "Rename a key", "1.0.0", "@write", "@slow"),
	k("renamenx", 3, w|command.FlagFast, 1, 2, renamenxCommand, "Rename a key, only if the new key does not exist", "1.0.0", "@write", "@fast"),
	k("expire", -3, w|command.FlagFast, 1, 1, expireCommand, "Set a key's time to live in seconds", "1.0.0", "@write", "@fast"),
	k("pexpire", -3, w|command.FlagFast, 1, 1, pexpireCommand, "Set a key's time to live in milliseconds", "2.6.0", "@write", "@fast"),
	k("expireat", -3, w|command.FlagFast, 1, 1, expireatCommand, "Set the expiration for a key as a UNIX timestamp", "1.2.0", "@write", "@fast"),
	k("pexpireat", -3, w|command.FlagFast, 1, 1, pexpireatCommand, "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0", "@write", "@fast"),
	k("expiretime", 2, r|command.FlagFast, 1, 1, expiretimeCommand, "Get the expiration Unix timestamp for a key", "7.0.0", "@read", "@fast"),
	k("pexpiretime", 2, r|command.FlagFast, 1, 1, pexpiretimeCommand, "Get the expiration Unix timestamp for a key in milliseconds", "7.0.0", "@read", "@fast"),
	k("ttl", 2, r|command.FlagFast, 1, 1, ttlCommand, "Get the time to live for a key in seconds", "1.0.0", "@read", "@fast"),
	k("pttl", 2, r|command.FlagFast, 1, 1, pttlCommand, "Get the time to live for a key in milliseconds", "2.6.0", "@read", "@fast"),
	k("persist", 2, w|command.FlagFast, 1, 1, persistCommand, "Remove the expiration from a key", "2.2.0", "@write", "@fast"),
}}

const (
	w = command.FlagWrite
	r = command.FlagReadonly
)

func k(name string, arity int, flags command.Flag, first, last int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: 1, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

func delCommand(c command.Ctx, argv [][]byte) {
	delGeneric(c, argv, c.Config().LazyfreeLazyUserDel)
}

func unlinkCommand(c command.Ctx, argv [][]byte) { delGeneric(c, argv, true) }

func delGeneric(c command.Ctx, argv [][]byte, lazy bool) {
	n := int64(0)
	for _, key := range argv[1:] {
		if c.DeleteLazy(key, lazy) {
			c.SignalModifiedKey(key)
			c.Notify(command.NotifyGeneric, "del", key)
			n++
		}
	}
	c.AddDirty(n)
	c.Integer(n)
}

func existsCommand(c command.Ctx, argv [][]byte) {
	n := int64(0)
	for _, key := range argv[1:] {
		if _, ok := c.LookupNoTouch(key); ok {
			n++
		}
	}
	c.Integer(n)
}

func touchCommand(c command.Ctx, argv [][]byte) {
	n := int64(0)
	for _, key := range argv[1:] {
		if c.Touch(key) {
			n++
		}
	}
	c.Integer(n)
}

func typeCommand(c command.Ctx, argv [][]byte) {
	v, ok := c.LookupNoTouch(argv[1])
	if !ok {
		c.Status("none")
		return
	}
	c.Status(v.Type.String())
}

func renameGeneric(c command.Ctx, argv [][]byte, nx bool) {
	src, dst := argv[1], argv[2]
	if !c.Exists(src) {
		c.Err(command.ErrNoSuchKey)
		return
	}
	if bytes.Equal(src, dst) {
		if nx {
			c.Integer(0)
		} else {
			c.OK()
		}
		return
	}
	if c.Exists(dst) {
		if nx {
			c.Integer(0)
			return
		}
		c.DeleteLazy(dst, c.Config().LazyfreeLazyServerDel)
	}
	c.MoveKey(src, dst)
	c.SignalModifiedKey(src)
	c.SignalModifiedKey(dst)
	c.Notify(command.NotifyGeneric, "rename_from", src)
	c.Notify(command.NotifyGeneric, "rename_to", dst)
	c.AddDirty(1)
	if nx {
		c.Integer(1)
	} else {
		c.OK()
	}
}

func renameCommand(c command.Ctx, argv [][]byte)   { renameGeneric(c, argv, false) }
func renamenxCommand(c command.Ctx, argv [][]byte) { renameGeneric(c, argv, true) }

func expireCommand(c command.Ctx, argv [][]byte) {
	expireGeneric(c, argv, c.NowMs(), 1000, "expire")
}
func pexpireCommand(c command.Ctx, argv [][]byte) {
	expireGeneric(c, argv, c.NowMs(), 1, "pexpire")
}
func expireatCommand(c command.Ctx, argv [][]byte)  { expireGeneric(c, argv, 0, 1000, "expireat") }
func pexpireatCommand(c command.Ctx, argv [][]byte) { expireGeneric(c, argv, 0, 1, "pexpireat") }

const (
	expNX = 1 << iota
	expXX
	expGT
	expLT
)

// expireGeneric follows Redis's expireGenericCommand, including the
// propagated form PEXPIREAT key <abs-ms> [flag] and DEL for past times.
func expireGeneric(c command.Ctx, argv [][]byte, base int64, unit int64, name string) {
	key := argv[1]
	flags := 0
	var flagArg []byte
	for _, a := range argv[3:] {
		switch {
		case rstring.EqualFold(a, "nx"):
			flags |= expNX
		case rstring.EqualFold(a, "xx"):
			flags |= expXX
		case rstring.EqualFold(a, "gt"):
			flags |= expGT
		case rstring.EqualFold(a, "lt"):
			flags |= expLT
		default:
			c.Err("ERR Unsupported option " + string(a))
			return
		}
		flagArg = a
	}
	if flags&expNX != 0 && flags&(expXX|expGT|expLT) != 0 {
		c.Err("ERR NX and XX, GT or LT options at the same time are not compatible")
		return
	}
	if flags&expGT != 0 && flags&expLT != 0 {
		c.Err("ERR GT and LT options at the same time are not compatible")
		return
	}
	when, ok := rstring.String2ll(argv[2])
	if !ok {
		c.Err(command.ErrNotInt)
		return
	}
	if when > math.MaxInt64/unit || when < math.MinInt64/unit {
		c.Err("ERR invalid expire time in '" + name + "' command")
		return
	}
	when *= unit
	if (base > 0 && when > math.MaxInt64-base) || (base > 0 && when < math.MinInt64+base && when < 0) {
		c.Err("ERR invalid expire time in '" + name + "' command")
		return
	}
	when += base
	if !c.Exists(key) {
		c.Integer(0)
		return
	}
	cur := c.ExpireTime(key)
	if flags != 0 {
		if flags&expNX != 0 && cur != -1 {
			c.Integer(0)
			return
		}
		if flags&expXX != 0 && cur == -1 {
			c.Integer(0)
			return
		}
		if flags&expGT != 0 && (cur == -1 || when <= cur) {
			c.Integer(0)
			return
		}
		if flags&expLT != 0 && cur != -1 && when >= cur {
			c.Integer(0)
			return
		}
	}
	if when <= c.NowMs() && !c.Loading() {
		lazy := c.Config().LazyfreeLazyExpire
		c.DeleteLazy(key, lazy)
		c.AddDirty(1)
		c.SignalModifiedKey(key)
		c.Notify(command.NotifyGeneric, "del", key)
		cmd := "DEL"
		if lazy {
			cmd = "UNLINK"
		}
		c.RewriteArgv([]byte(cmd), bytes.Clone(key))
		c.Integer(1)
		return
	}
	c.SetExpire(key, when)
	c.AddDirty(1)
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyGeneric, "expire", key)
	out := [][]byte{[]byte("PEXPIREAT"), bytes.Clone(key), strconv.AppendInt(nil, when, 10)}
	if flagArg != nil {
		out = append(out, bytes.Clone(flagArg))
	}
	c.RewriteArgv(out...)
	c.Integer(1)
}

func ttlGeneric(c command.Ctx, key []byte, ms bool, abs bool) {
	if _, ok := c.LookupNoTouch(key); !ok {
		c.Integer(-2)
		return
	}
	when := c.ExpireTime(key)
	if when < 0 {
		c.Integer(-1)
		return
	}
	if abs {
		if ms {
			c.Integer(when)
		} else {
			c.Integer((when + 500) / 1000)
		}
		return
	}
	ttl := max(when-c.NowMs(), 0)
	if ms {
		c.Integer(ttl)
	} else {
		c.Integer((ttl + 500) / 1000)
	}
}

func ttlCommand(c command.Ctx, argv [][]byte)         { ttlGeneric(c, argv[1], false, false) }
func pttlCommand(c command.Ctx, argv [][]byte)        { ttlGeneric(c, argv[1], true, false) }
func expiretimeCommand(c command.Ctx, argv [][]byte)  { ttlGeneric(c, argv[1], false, true) }
func pexpiretimeCommand(c command.Ctx, argv [][]byte) { ttlGeneric(c, argv[1], true, true) }

func persistCommand(c command.Ctx, argv [][]byte) {
	if _, ok := c.LookupNoStats(argv[1]); !ok {
		c.Integer(0)
		return
	}
	if c.Persist(argv[1]) {
		c.AddDirty(1)
		c.SignalModifiedKey(argv[1])
		c.Notify(command.NotifyGeneric, "persist", argv[1])
		c.Integer(1)
		return
	}
	c.Integer(0)
}
