package tracking

import (
	"sort"

	"github.com/tidwall/redcon"

	"github.com/aofserver/aofserver/resp"
)

// Flags are a client's tracking flags (Redis's CLIENT_TRACKING_*).
const (
	On          uint32 = 1 << iota // CLIENT_TRACKING
	Bcast                          // CLIENT_TRACKING_BCAST
	Optin                          // CLIENT_TRACKING_OPTIN
	Optout                         // CLIENT_TRACKING_OPTOUT
	Caching                        // CLIENT_TRACKING_CACHING: CLIENT CACHING given for the next command
	Noloop                         // CLIENT_TRACKING_NOLOOP
	BrokenRedir                    // CLIENT_TRACKING_BROKEN_REDIR
)

const channel = "__redis__:invalidate"

// Peer is a client as tracking knows it; its identity (a pointer) is
// compared, so a nil client must be passed as a nil Peer.
type Peer interface {
	Tracking() *Client
	RESP() int
	// PubSubMode: a RESP2 REDIRECT client gets messages only in it.
	PubSubMode() bool
}

// Host is what tracking asks of the server.
type Host interface {
	Peer(id int64) Peer // nil: no such client
	// Current is the client whose command runs (nil if none) and whether
	// a command is executing (call()) or a blocked client being served:
	// invalidations to the current client then wait for its reply.
	Current() (p Peer, nested bool)
	// Deliver hands msg to p: behind the reply being built when p is the
	// current client or Out, asynchronously otherwise.
	Deliver(p Peer, msg []byte)
	StartCron() // call Cron every 100 ms until it returns false
}

// Client is one client's tracking state.
type Client struct {
	flags    uint32
	id       int64
	redir    int64
	prefixes map[string]struct{}
}

// Flags are c's flags.
func (c *Client) Flags() uint32 { return c.flags }

// Redir is c's REDIRECT client ID (0: none).
func (c *Client) Redir() int64 { return c.redir }

// SetCaching records CLIENT CACHING for the next command.
func (c *Client) SetCaching() { c.flags |= Caching }

// EndCommand drops CLIENT CACHING's effect after a command.
func (c *Client) EndCommand() { c.flags &^= Caching }

// Prefixes is c's BCAST prefixes, sorted (rax order).
func (c *Client) Prefixes() []string {
	out := make([]string, 0, len(c.prefixes))
	for p := range c.prefixes {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Table is the server's tracking state.
type Table struct {
	host Host
	// table maps a key to the IDs of the clients that may cache it
	// (Redis's TrackingTable); nil until the first CLIENT TRACKING ON.
	table map[string]map[int64]struct{}
	items int64 // IDs summed over table (TrackingTableTotalItems)
	// prefixes maps a BCAST prefix to its subscribers and the keys
	// modified under it since the last broadcast (PrefixTable).
	prefixes map[string]*bcastState
	// on is the clients with tracking on (server.tracking_clients).
	on map[Peer]struct{}
	// bcastDirty: some prefix has keys to announce.
	bcastDirty bool
	// pending holds invalidations of keys the running command's own
	// client tracks: they follow its reply (tracking_pending_keys).
	pending []pendingInvalidation
	// effort grows while the table stays over tracking-table-max-keys
	// (trackingLimitUsedSlots' timeout_counter).
	effort int
	cronOn bool
	// out is a client whose replies are still being built though it is
	// not the current client (the end of its batch, a held-back
	// invalidation): messages to it follow those replies.
	out Peer
}

type bcastState struct {
	// keys maps a modified key to the client that modified it last (nil
	// for an expiry), so that NOLOOP clients skip their own changes.
	keys    map[string]Peer
	clients map[Peer]struct{}
}

type pendingInvalidation struct {
	target Peer
	key    string
	null   bool // a flush: every key is invalid
}

// New returns an empty Table working through h.
func New(h Host) *Table { return &Table{host: h, on: map[Peer]struct{}{}} }

// Active reports whether tracking was ever enabled (keys may be tracked).
func (t *Table) Active() bool { return t.table != nil }

// Out is the client, other than the current one, whose replies are being
// built while messages go out (see Host.Deliver); nil if none.
func (t *Table) Out() Peer { return t.out }

// Clients, Keys, Items and Prefixes are INFO's tracking_clients,
// tracking_total_keys, tracking_total_items and tracking_total_prefixes.
func (t *Table) Clients() int  { return len(t.on) }
func (t *Table) Keys() int     { return len(t.table) }
func (t *Table) Items() int64  { return t.items }
func (t *Table) Prefixes() int { return len(t.prefixes) }
func (t *Table) Pending() bool { return len(t.pending) > 0 }

// Enable is Redis's enableTracking for p (whose client ID is id): options
// are Bcast, Optin, Optout and Noloop.
func (t *Table) Enable(p Peer, id, redir int64, options uint32, prefixes []string) {
	c := p.Tracking()
	t.on[p] = struct{}{}
	c.id = id
	c.flags |= On
	c.flags &^= BrokenRedir | Bcast | Optin | Optout | Noloop
	c.redir = redir
	if t.table == nil {
		t.table = map[string]map[int64]struct{}{}
		t.prefixes = map[string]*bcastState{}
	}
	if options&Bcast != 0 {
		c.flags |= Bcast
		if len(prefixes) == 0 {
			t.enableBcastPrefix(p, "")
		}
		for _, pre := range prefixes {
			t.enableBcastPrefix(p, pre)
		}
	}
	c.flags |= options & (Optin | Optout | Noloop)
	t.startCron()
}

func (t *Table) enableBcastPrefix(p Peer, prefix string) {
	bs := t.prefixes[prefix]
	if bs == nil {
		bs = &bcastState{keys: map[string]Peer{}, clients: map[Peer]struct{}{}}
		t.prefixes[prefix] = bs
	}
	if _, ok := bs.clients[p]; !ok {
		bs.clients[p] = struct{}{}
		c := p.Tracking()
		if c.prefixes == nil {
			c.prefixes = map[string]struct{}{}
		}
		c.prefixes[prefix] = struct{}{}
	}
}

// Disable is Redis's disableTracking: the client's IDs stay in the table
// and are dropped lazily, when their keys are invalidated.
func (t *Table) Disable(p Peer) {
	c := p.Tracking()
	if c.flags&Bcast != 0 {
		for pre := range c.prefixes {
			if bs := t.prefixes[pre]; bs != nil {
				delete(bs.clients, p)
				if len(bs.clients) == 0 {
					delete(t.prefixes, pre)
				}
			}
		}
		c.prefixes = nil
	}
	if c.flags&On != 0 {
		delete(t.on, p)
		c.flags = 0
	}
}

// PrefixCollision is Redis's checkPrefixCollisionsOrReply, bug for bug:
// it returns the error for prefixes given to c, and whether CLIENT
// TRACKING stops there. A collision inside the list after its first
// prefix is reported and yet CLIENT TRACKING goes on, as 7.0.15 does.
func PrefixCollision(c *Client, prefixes []string) (msg string, stop bool) {
	for i, p := range prefixes {
		for _, old := range c.Prefixes() {
			if prefixOverlap(old, p) {
				return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + old + "'. Prefixes for a single client must not overlap.", true
			}
		}
		for j := i + 1; j < len(prefixes); j++ {
			if prefixOverlap(p, prefixes[j]) {
				return "ERR Prefix '" + p + "' overlaps with another provided prefix '" + prefixes[j] + "'. Prefixes for a single client must not overlap.", i == 0
			}
		}
	}
	return "", false
}

// prefixOverlap reports whether one of a and b is a prefix of the other.
func prefixOverlap(a, b string) bool {
	n := min(len(a), len(b))
	return a[:n] == b[:n]
}

// Remembers reports whether c's reads are remembered now (OPTIN needs
// CLIENT CACHING YES, OPTOUT is off after CLIENT CACHING NO).
func (c *Client) Remembers() bool {
	optin, optout, caching := c.flags&Optin != 0, c.flags&Optout != 0, c.flags&Caching != 0
	return !(optin && !caching || optout && caching)
}

// Remember is Redis's trackingRememberKeys: p read argv[i] for each i of
// keys.
func (t *Table) Remember(p Peer, argv [][]byte, keys []int) {
	c := p.Tracking()
	if !c.Remembers() {
		return
	}
	for _, i := range keys {
		ids := t.table[string(argv[i])]
		if ids == nil {
			ids = map[int64]struct{}{}
			t.table[string(argv[i])] = ids
		}
		if _, ok := ids[c.id]; !ok {
			ids[c.id] = struct{}{}
			t.items++
		}
	}
}

// Invalidate is Redis's trackingInvalidateKey: by is the client that
// modified key (nil for an expiry); bcast also records the key for BCAST
// prefixes.
func (t *Table) Invalidate(by Peer, key []byte, bcast bool) {
	if t.table == nil {
		return
	}
	if bcast && len(t.prefixes) > 0 {
		t.rememberKeyToBroadcast(by, key)
	}
	ids, ok := t.table[string(key)]
	if !ok {
		return
	}
	for _, id := range sortedIDs(ids) {
		target := t.host.Peer(id)
		if target == nil {
			continue
		}
		if f := target.Tracking().flags; f&On == 0 || f&Bcast != 0 || f&Noloop != 0 && target == by {
			continue
		}
		if cur, nested := t.host.Current(); target == cur && nested {
			// After the command's reply, not inside it.
			t.pending = append(t.pending, pendingInvalidation{target: target, key: string(key)})
			continue
		}
		t.send(target, keyArray(key))
	}
	t.items -= int64(len(ids))
	delete(t.table, string(key))
}

// sortedIDs orders a key's client IDs as Redis's rax does (the IDs'
// bytes in memory, little-endian).
func sortedIDs(ids map[int64]struct{}) []int64 {
	out := make([]int64, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	if len(out) > 1 {
		sort.Slice(out, func(i, j int) bool {
			a, b := uint64(out[i]), uint64(out[j])
			for k := 0; k < 8; k++ {
				x, y := byte(a>>(8*k)), byte(b>>(8*k))
				if x != y {
					return x < y
				}
			}
			return false
		})
	}
	return out
}

func keyArray(key []byte) []byte {
	b := redcon.AppendArray(nil, 1)
	return redcon.AppendBulk(b, key)
}

func (t *Table) rememberKeyToBroadcast(by Peer, key []byte) {
	for p, bs := range t.prefixes {
		if len(p) > len(key) || string(key[:len(p)]) != p {
			continue
		}
		bs.keys[string(key)] = by
		t.bcastDirty = true
	}
	if t.bcastDirty && !t.cronOn {
		if cur, nested := t.host.Current(); cur == nil && !nested {
			// Out of any command (active expiry): no batch end will
			// broadcast, the tracking cron does.
			t.startCron()
		}
	}
}

// send is Redis's sendTrackingMessage: proto is the RESP of the "value"
// part (an array of keys, or a null for a flush).
func (t *Table) send(p Peer, proto []byte) {
	c := p.Tracking()
	usingRedir := false
	if c.redir != 0 {
		redir := t.host.Peer(c.redir)
		if redir == nil {
			c.flags |= BrokenRedir
			if p.RESP() > 2 {
				b := resp.AppendPushLen(nil, 3, 2)
				b = redcon.AppendBulkString(b, "tracking-redir-broken")
				b = redcon.AppendInt(b, c.redir)
				t.host.Deliver(p, b)
			}
			return
		}
		p = redir
		usingRedir = true
	}
	var b []byte
	switch {
	case p.RESP() > 2:
		b = resp.AppendPushLen(nil, 3, 2)
		b = redcon.AppendBulkString(b, "invalidate")
	case usingRedir && p.PubSubMode():
		b = redcon.AppendArray(nil, 3)
		b = redcon.AppendBulkString(b, "message")
		b = redcon.AppendBulkString(b, channel)
	default:
		return // RESP2 without redirection: nowhere to say it
	}
	t.host.Deliver(p, append(b, proto...))
}

// HandlePending sends the invalidations held back during the command
// (trackingHandlePendingKeyInvalidations).
func (t *Table) HandlePending() {
	pending := t.pending
	t.pending = nil
	prev := t.out
	defer func() { t.out = prev }()
	for _, p := range pending {
		c := p.target.Tracking()
		if t.host.Peer(c.id) != p.target {
			continue // gone meanwhile
		}
		t.out = p.target
		if p.null {
			t.send(p.target, nullProto(p.target))
		} else {
			t.send(p.target, keyArray([]byte(p.key)))
		}
	}
}

func nullProto(p Peer) []byte {
	if p.RESP() == 3 {
		return []byte("_\r\n")
	}
	return []byte("$-1\r\n")
}

// InvalidateAll is Redis's trackingInvalidateKeysOnFlush: FLUSHDB and
// FLUSHALL tell every tracking client that all keys are invalid (a null),
// and the table is emptied.
func (t *Table) InvalidateAll() {
	if len(t.on) > 0 {
		cur, _ := t.host.Current()
		for _, p := range sortedPeers(t.on) {
			if p == cur {
				t.pending = append(t.pending, pendingInvalidation{target: p, null: true})
			} else {
				t.send(p, nullProto(p))
			}
		}
	}
	if t.table != nil {
		t.table = map[string]map[int64]struct{}{}
		t.items = 0
	}
}

// sortedPeers orders clients by ID.
func sortedPeers(m map[Peer]struct{}) []Peer {
	out := make([]Peer, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tracking().id < out[j].Tracking().id })
	return out
}

// EndBatch runs at the end of a batch of p's commands (Redis's
// beforeSleep): the BCAST invalidations gathered go out, those to p
// behind its replies.
func (t *Table) EndBatch(p Peer) {
	if t.bcastDirty {
		t.broadcast(p)
	}
}

// broadcast sends the BCAST invalidations gathered so far
// (trackingBroadcastInvalidationMessages); p is the client whose batch
// just ran, or nil.
func (t *Table) broadcast(p Peer) {
	if !t.bcastDirty {
		return
	}
	t.bcastDirty = false
	if len(t.on) == 0 {
		for _, bs := range t.prefixes {
			clear(bs.keys)
		}
		return
	}
	prev := t.out
	t.out = p
	defer func() { t.out = prev }()
	prefixes := make([]string, 0, len(t.prefixes))
	for pre := range t.prefixes {
		prefixes = append(prefixes, pre)
	}
	sort.Strings(prefixes)
	for _, pre := range prefixes {
		bs := t.prefixes[pre]
		if len(bs.keys) == 0 {
			continue
		}
		keys := make([]string, 0, len(bs.keys))
		for k := range bs.keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		all := broadcastReply(keys, bs.keys, nil)
		for _, cl := range sortedPeers(bs.clients) {
			if cl.Tracking().flags&Noloop != 0 {
				if adhoc := broadcastReply(keys, bs.keys, cl); adhoc != nil {
					t.send(cl, adhoc)
				}
				continue
			}
			t.send(cl, all)
		}
		clear(bs.keys)
	}
}

// broadcastReply is Redis's trackingBuildBroadcastReply: the array of keys,
// less those last modified by skip (NOLOOP); nil if none is left.
func broadcastReply(keys []string, by map[string]Peer, skip Peer) []byte {
	n := 0
	for _, k := range keys {
		if skip == nil || by[k] != skip {
			n++
		}
	}
	if n == 0 && skip != nil {
		return nil
	}
	b := redcon.AppendArray(nil, n)
	for _, k := range keys {
		if skip == nil || by[k] != skip {
			b = redcon.AppendBulkString(b, k)
		}
	}
	return b
}

// limitUsedSlots is Redis's trackingLimitUsedSlots: over maxKeys
// (tracking-table-max-keys), keys are dropped (their clients told, as if
// modified) with an effort that grows while the table stays over.
func (t *Table) limitUsedSlots(maxKeys int64) {
	if t.table == nil || maxKeys == 0 {
		return
	}
	if int64(len(t.table)) <= maxKeys {
		t.effort = 0
		return
	}
	effort := 100 * (t.effort + 1)
	for key := range t.table { // Go's map order stands in for the random walk
		if effort == 0 {
			break
		}
		effort--
		t.Invalidate(nil, []byte(key), false)
		if int64(len(t.table)) <= maxKeys {
			t.effort = 0
			return
		}
	}
	t.effort++
}

func (t *Table) startCron() {
	if !t.cronOn {
		t.cronOn = true
		t.host.StartCron()
	}
}

// Cron is the tracking part of Redis's serverCron and beforeSleep, for
// work no command end does: the table limit after a CONFIG SET while
// idle, and broadcasting keys expired by the cron. It reports whether it
// is still needed.
func (t *Table) Cron(maxKeys int64) bool {
	if len(t.on) == 0 && !t.bcastDirty {
		t.cronOn = false
		return false
	}
	t.limitUsedSlots(maxKeys)
	t.broadcast(nil)
	return true
}
