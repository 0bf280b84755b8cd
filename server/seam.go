package server

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aofserver/aofserver/command/bitcmd"
	"github.com/aofserver/aofserver/command/hashcmd"
	"github.com/aofserver/aofserver/command/hllcmd"
	"github.com/aofserver/aofserver/command/keyscmd"
	"github.com/aofserver/aofserver/command/listcmd"
	"github.com/aofserver/aofserver/command/setcmd"
	"github.com/aofserver/aofserver/command/sortcmd"
	"github.com/aofserver/aofserver/command/strcmd"
	"github.com/aofserver/aofserver/command/streamcmd"
	"github.com/aofserver/aofserver/command/zsetcmd"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/resp"

	seam "github.com/aofserver/aofserver/command"
)

// The command groups that live in packages of their own, written against
// package command (imported as seam: our table's type is named command).
// One line per group.
var seamGroups = []*seam.Group{
	&bitcmd.Group,
	&hashcmd.Group,
	&hllcmd.Group,
	&keyscmd.Group,
	&listcmd.Group,
	&setcmd.Group,
	&sortcmd.Group,
	&strcmd.Group,
	&streamcmd.Group,
	&zsetcmd.Group,
	&zsetcmd.GeoGroup,
}

func init() {
	for _, g := range seamGroups {
		registerGroup(g)
	}
}

// registerGroup adds a group's commands to the table. Each proc is wrapped
// once here; a call passes the *client itself as the seam.Ctx.
func registerGroup(g *seam.Group) {
	for i := range g.Commands {
		sp := &g.Commands[i]
		var proc cmdProc
		if p := sp.Proc; p != nil { // nil: a container (XGROUP, XINFO)
			proc = func(c *client, argv [][]byte) { p(c, argv) }
		}
		register(&command{
			name: sp.Name, arity: sp.Arity, flags: sp.Flags,
			firstKey: sp.FirstKey, lastKey: sp.LastKey, step: sp.Step,
			proc:  proc,
			group: g.Name, summary: sp.Summary, since: sp.Since,
			acl: append([]string{g.Category}, sp.ACL...),
		})
	}
}

// *client is the seam's Ctx: the methods below only forward to the
// client's and the server's own.
var _ seam.Ctx = (*client)(nil)

func (c *client) Err(msg string)               { c.err(msg) }
func (c *client) OK()                          { c.ok() }
func (c *client) Status(s string)              { c.status(s) }
func (c *client) Integer(n int64)              { c.integer(n) }
func (c *client) Bulk(b []byte)                { c.bulk(b) }
func (c *client) BulkString(s string)          { c.bulkString(s) }
func (c *client) BulkOrNull(b []byte, ok bool) { c.bulkOrNull(b, ok) }
func (c *client) Null()                        { c.nullBulk() }
func (c *client) NullArray()                   { c.nullArray() }
func (c *client) ArrayLen(n int)               { c.arrayLen(n) }
func (c *client) EmptyArray()                  { c.emptyArray() }
func (c *client) MapLen(n int)                 { c.mapLen(n) }
func (c *client) SetLen(n int)                 { c.setLen(n) }
func (c *client) PairsLen(n int)               { c.pairsLen(n) }
func (c *client) PairStart()                   { c.pairStart() }
func (c *client) Double(f float64)             { c.double(f) }
func (c *client) Boolean(b bool)               { c.boolean(b) }

func (c *client) DoubleString(s string) {
	if c.resp == 3 {
		c.out = append(c.out, ',')
		c.out = append(c.out, s...)
		c.out = append(c.out, '\r', '\n')
		return
	}
	c.bulkString(s)
}
func (c *client) RESP() int { return c.resp }

func (c *client) DeferLen() int { return len(c.out) }
func (c *client) SetArrayLen(at, n int) {
	c.out = slices.Insert(c.out, at, resp.AppendAggLen(c.scratch[:0], '*', n)...)
}
func (c *client) SetMapLen(at, n int) {
	c.out = slices.Insert(c.out, at, resp.AppendMapLen(c.scratch[:0], c.resp, n)...)
}
func (c *client) Scratch() []byte { return c.scratch[:0] }

func seamValue(e entry) seam.Value { return seam.Value{Type: seam.Type(e.typ()), Ptr: e.ptr} }

func (c *client) LookupRead(key []byte) (seam.Value, bool) {
	e, ok := c.srv.lookupRead(c, key)
	return seamValue(e), ok
}

func (c *client) LookupWrite(key []byte) (seam.Value, bool) {
	p := c.srv.lookupWrite(c, key)
	if p == nil {
		return seam.Value{}, false
	}
	return seamValue(*p), true
}

func (c *client) LookupNoStats(key []byte) (seam.Value, bool) {
	e, ok := c.srv.lookupReadNoStats(c, key)
	return seamValue(e), ok
}

func (c *client) KeyMiss(key []byte) { c.srv.keymiss(c, key) }

func (c *client) LookupReadString(key []byte) (b []byte, isString, found bool) {
	e, ok := c.srv.lookupRead(c, key)
	if !ok {
		return nil, false, false
	}
	if e.typ() != typString {
		return nil, false, true
	}
	return e.str(), true, true
}

func (c *client) LookupWriteString(key []byte) (b []byte, isString, found bool) {
	p := c.srv.lookupWrite(c, key)
	if p == nil {
		return nil, false, false
	}
	if p.typ() != typString {
		return nil, false, true
	}
	return p.str(), true, true
}

func (c *client) UnshareString(key []byte) *[]byte {
	return &unshareString(c.db.keys.GetPtr(bstr(key))).b
}

func (c *client) AddRawString(key []byte, b []byte) *[]byte {
	e := newRawStringEntry(b)
	rs := e.rawString()
	c.srv.addKey(c.db, key, e)
	return &rs.b
}

func (c *client) GrowString(key []byte, need int) (*[]byte, int) {
	rs, grown := growString(c.db.keys.GetPtr(bstr(key)), need)
	return &rs.b, grown
}

func (c *client) SetString(key, val []byte, keepTTL bool) {
	c.srv.setKey(c.db, key, c.srv.newString(val), keepTTL)
}

func (c *client) SetOwnedString(key, b []byte, embstr bool) {
	nv := newStringEntryOwned(b)
	if embstr {
		nv.meta |= metaNoIntBit
	}
	if p := c.db.keys.GetPtr(bstr(key)); p != nil {
		lru, mark := p.lru(), p.snapMark()
		*p = nv
		p.setLRU(lru)
		p.setSnapMark(mark)
		return
	}
	c.srv.addKey(c.db, key, nv)
}

func (c *client) SetRawString(key []byte, b []byte) {
	c.srv.setKey(c.db, key, newRawStringEntry(b), false)
}

func (c *client) BeforeModify(key []byte) { c.srv.beforeModify(c.db, bstr(key)) }
func (c *client) Loading() bool           { return c.srv.loading }

func (c *client) FullKeyAccess(argv [][]byte) bool {
	return c.user == nil || c.user.Open() || c.srv.aclFullKeyAccess(c.user, argv)
}
func (c *client) AddKey(key []byte, v seam.Value) {
	c.srv.addKey(c.db, key, newObjEntry(uint8(v.Type), v.Ptr))
}
func (c *client) SetKey(key []byte, v seam.Value) {
	c.srv.setKey(c.db, key, newObjEntry(uint8(v.Type), v.Ptr), false)
}
func (c *client) DeleteKey(key []byte) bool    { return c.srv.deleteKey(c.db, key) }
func (c *client) SignalModifiedKey(key []byte) { c.srv.signalModifiedKey(c.db, key) }
func (c *client) Notify(class int, event string, key []byte) {
	c.srv.notify(class, event, key, c.db.id)
}
func (c *client) AddDirty(n int64)       { c.srv.dirty += n }
func (c *client) Config() *config.Config { return c.srv.cfg }
func (c *client) Rand() *rand.Rand       { return c.srv.rnd }

func (c *client) RewriteArgv(argv ...[]byte) { c.rewriteArgv(argv...) }
func (c *client) PreventPropagation()        { c.preventPropagation() }
func (c *client) Propagate(argv [][]byte)    { c.srv.propagate(c.db.id, argv) }

func (c *client) NowMs() int64 { return c.srv.nowMs() }

func (c *client) CanBlock() bool { return c.srv.canBlock(c) }

// InScript: the fake client runs scripts' commands and the AOF's; only
// the loader runs while loading.
func (c *client) InScript() bool { return c.flags&flagFake != 0 && !c.srv.loading }

func (c *client) SignalReady(key []byte) { c.srv.signalKeyAsReady(c.db, key) }

func (c *client) Block(argv, keys [][]byte, timeout time.Duration, serve seam.Serve, serveGone bool) {
	c.srv.blockClient(c, keys, argv, timeout, func(c *client, argv [][]byte, later bool) bool {
		if !later || c.block == nil {
			return false
		}
		return serve(c, argv, []byte(c.block.readyKey))
	})
	c.block.unblockOnNoKey = serveGone
}

func (c *client) BeginUnit() { c.srv.execDepth++ }
func (c *client) EndUnit() {
	c.srv.execDepth--
	c.srv.flushPropagation(true)
}

func (c *client) Exists(key []byte) bool { return c.srv.exists(c.db, key) }

func (c *client) LookupNoTouch(key []byte) (seam.Value, bool) {
	e, ok := c.srv.lookupReadNoTouchMiss(c, key)
	return seamValue(e), ok
}

func (c *client) Touch(key []byte) bool {
	s := c.srv
	if !s.expireIfNeeded(c.db, key) {
		if p := c.db.keys.GetPtr(bstr(key)); p != nil {
			s.touchAccess(p)
			return true
		}
	}
	s.keymiss(c, key)
	return false
}

func (c *client) ExpireTime(key []byte) int64 { return c.db.expireAt(bstr(key)) }
func (c *client) SetExpire(key []byte, whenMs int64) {
	c.srv.setExpire(c.db, key, whenMs)
}
func (c *client) Persist(key []byte) bool { return c.srv.removeExpire(c.db, key) }

func (c *client) DeleteLazy(key []byte, lazy bool) bool {
	c.srv.expireIfNeeded(c.db, key)
	return c.srv.deleteKeyLazy(c.db, key, lazy)
}

func (c *client) MoveKey(src, dst []byte) {
	s := c.srv
	e, _ := c.db.keys.Get(bstr(src))
	when := c.db.expireAt(bstr(src))
	s.beforeModify(c.db, bstr(src))
	s.removeKey(c.db, bstr(src))
	s.addKey(c.db, dst, e)
	if when >= 0 {
		s.setExpire(c.db, dst, when)
	}
}
