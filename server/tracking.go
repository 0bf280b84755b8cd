package server

import (
	"sort"
	"strconv"
	"time"

	"github.com/tidwall/redcon"

	"github.com/aofserver/aofserver/resp"
)

// Client-side caching (Redis 7.0's tracking.c): CLIENT TRACKING remembers
// which clients read which keys, and a modified key sends them an
// invalidation: a RESP3 push (">2 invalidate [keys]") on the connection
// itself, or a Pub/Sub message on __redis__:invalidate to the client named
// by REDIRECT. In BCAST mode keys are not remembered: every modified key
// under one of the client's prefixes is announced, gathered per prefix
// until the end of the batch (Redis's beforeSleep). Everything here runs
// under Server.mu.

// client.trackFlags
const (
	trackOn          uint32 = 1 << iota // CLIENT_TRACKING
	trackBcast                          // CLIENT_TRACKING_BCAST
	trackOptin                          // CLIENT_TRACKING_OPTIN
	trackOptout                         // CLIENT_TRACKING_OPTOUT
	trackCaching                        // CLIENT_TRACKING_CACHING: CLIENT CACHING given for the next command
	trackNoloop                         // CLIENT_TRACKING_NOLOOP
	trackBrokenRedir                    // CLIENT_TRACKING_BROKEN_REDIR
)

const trackingChannel = "__redis__:invalidate"

type trackingState struct {
	// table maps a key to the IDs of the clients that may cache it
	// (Redis's TrackingTable); nil until the first CLIENT TRACKING ON.
	table map[string]map[int64]struct{}
	items int64 // IDs summed over table (TrackingTableTotalItems)
	// prefixes maps a BCAST prefix to its subscribers and the keys
	// modified under it since the last broadcast (PrefixTable).
	prefixes map[string]*bcastState
	clients  int // clients with tracking on (server.tracking_clients)
	// bcastDirty: some prefix has keys to announce.
	bcastDirty bool
	// pending holds invalidations of keys the running command's own
	// client tracks: they follow its reply (tracking_pending_keys).
	pending []pendingInvalidation
	// effort grows while the table stays over tracking-table-max-keys
	// (trackingLimitUsedSlots' timeout_counter).
	effort  int
	maxKeys int64 // tracking-table-max-keys, read by the tracking cron
	cronOn  bool
	// outClient is a client whose replies are still being built though it
	// is not curClient (the end of its batch, a served blocked client):
	// messages to it follow those replies.
	outClient *client
}

type bcastState struct {
	// keys maps a modified key to the client that modified it last (nil
	// for an expiry), so that NOLOOP clients skip their own changes.
	keys    map[string]*client
	clients map[*client]struct{}
}

type pendingInvalidation struct {
	target *client
	key    string
	null   bool // a flush: every key is invalid
}

// enableTracking is Redis's enableTracking: options are trackBcast,
// trackOptin, trackOptout and trackNoloop.
func (s *Server) enableTracking(c *client, redir int64, options uint32, prefixes []string) {
	t := &s.tracking
	if c.trackFlags&trackOn == 0 {
		t.clients++
	}
	c.trackFlags |= trackOn
	c.trackFlags &^= trackBrokenRedir | trackBcast | trackOptin | trackOptout | trackNoloop
	c.trackRedir = redir
	if t.table == nil {
		t.table = map[string]map[int64]struct{}{}
		t.prefixes = map[string]*bcastState{}
	}
	if options&trackBcast != 0 {
		c.trackFlags |= trackBcast
		if len(prefixes) == 0 {
			s.enableBcastPrefix(c, "")
		}
		for _, p := range prefixes {
			s.enableBcastPrefix(c, p)
		}
	}
	c.trackFlags |= options & (trackOptin | trackOptout | trackNoloop)
	s.startTrackingCron()
	// A RESP3 client is told about other clients' changes at any time:
	// its output goes asynchronous, as a subscriber's does.
	if c.resp == 3 {
		c.goAsync()
	}
}

func (s *Server) enableBcastPrefix(c *client, prefix string) {
	t := &s.tracking
	bs := t.prefixes[prefix]
	if bs == nil {
		bs = &bcastState{keys: map[string]*client{}, clients: map[*client]struct{}{}}
		t.prefixes[prefix] = bs
	}
	if _, ok := bs.clients[c]; !ok {
		bs.clients[c] = struct{}{}
		if c.trackPrefixes == nil {
			c.trackPrefixes = map[string]struct{}{}
		}
		c.trackPrefixes[prefix] = struct{}{}
	}
}

// disableTracking is Redis's disableTracking: the client's IDs stay in the
// table and are dropped lazily, when their keys are invalidated.
func (s *Server) disableTracking(c *client) {
	t := &s.tracking
	if c.trackFlags&trackBcast != 0 {
		for p := range c.trackPrefixes {
			if bs := t.prefixes[p]; bs != nil {
				delete(bs.clients, c)
				if len(bs.clients) == 0 {
					delete(t.prefixes, p)
				}
			}
		}
		c.trackPrefixes = nil
	}
	if c.trackFlags&trackOn != 0 {
		t.clients--
		c.trackFlags = 0
	}
}

// checkPrefixCollisions is Redis's checkPrefixCollisionsOrReply, bug for
// bug: a collision inside the list after its first prefix is reported and
// yet CLIENT TRACKING goes on (and replies +OK too), as 7.0.15 does.
func checkPrefixCollisions(c *client, prefixes []string) bool {
	for i, p := range prefixes {
		for _, old := range sortedPrefixes(c) {
			if prefixOverlap(old, p) {
				c.err("ERR Prefix '" + p + "' overlaps with an existing prefix '" + old + "'. Prefixes for a single client must not overlap.")
				return false
			}
		}
		for j := i + 1; j < len(prefixes); j++ {
			if prefixOverlap(p, prefixes[j]) {
				c.err("ERR Prefix '" + p + "' overlaps with another provided prefix '" + prefixes[j] + "'. Prefixes for a single client must not overlap.")
				return i != 0
			}
		}
	}
	return true
}

// prefixOverlap reports whether one of a and b is a prefix of the other.
func prefixOverlap(a, b string) bool {
	n := min(len(a), len(b))
	return a[:n] == b[:n]
}

func sortedPrefixes(c *client) []string {
	out := make([]string, 0, len(c.trackPrefixes))
	for p := range c.trackPrefixes {
		out = append(out, p)
	}
	sort.Strings(out) // rax order
	return out
}

// trackingAfterCall runs after each call of cmd by c (Redis's call():
// trackingRememberKeys after a read-only command; afterCommand's pending
// invalidations; resetClient dropping CLIENT CACHING's effect).
func (s *Server) trackingAfterCall(c *client, cmd *command, argv [][]byte) {
	t := &s.tracking
	if cmd.flags&cmdReadonly != 0 && !isROScript(cmd) {
		caller := c
		if c.flags&flagFake != 0 && s.curClient != nil && s.curClient != c {
			caller = s.curClient // a script's command: the script's keys
			t.scriptRead(caller)
		} else if caller.trackFlags&(trackOn|trackBcast) == trackOn {
			s.trackingRememberKeys(caller, cmd, argv)
		}
	} else if isScriptRun(cmd) && c.scriptReadDone {
		// The script read something: its declared keys are remembered
		// (Redis takes the keys from the caller's EVAL/FCALL argv).
		c.scriptReadDone = false
		s.trackingRememberKeys(c, cmd, argv)
	}
	if s.execDepth == 0 && c.flags&flagFake == 0 {
		c.scriptReadDone = false
		if len(t.pending) > 0 {
			s.trackingHandlePending()
		}
		if c.flags&flagMulti == 0 && (cmd.parent == nil || cmd.parent.name != "client") {
			c.trackFlags &^= trackCaching
		}
	}
}

// scriptRead notes that a script of caller ran a read-only command.
func (t *trackingState) scriptRead(caller *client) {
	if caller.trackFlags&(trackOn|trackBcast) == trackOn {
		caller.scriptReadDone = true
	}
}

// isROScript: EVAL_RO & co. are read-only, yet only the commands their
// script runs decide what is remembered.
func isROScript(cmd *command) bool {
	switch cmd.name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return cmd.parent == nil
	}
	return false
}

// trackingRememberKeys is Redis's trackingRememberKeys.
func (s *Server) trackingRememberKeys(c *client, cmd *command, argv [][]byte) {
	if cmd.flags&cmdPubSub != 0 {
		return
	}
	optin, optout, caching := c.trackFlags&trackOptin != 0, c.trackFlags&trackOptout != 0, c.trackFlags&trackCaching != 0
	if optin && !caching || optout && caching {
		return
	}
	t := &s.tracking
	for _, i := range trackingKeyArgs(cmd, argv) {
		k := bstr(argv[i])
		ids := t.table[k]
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

// trackingKeyArgs returns the positions of argv's keys, as Redis's
// getKeysFromCommand for the read-only commands whose keys are not a
// first/last/step range.
func trackingKeyArgs(cmd *command, argv [][]byte) []int {
	name := cmd.name
	if cmd.parent != nil {
		name = cmd.parent.name + "|" + name
	}
	numkeysAt := 0
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		numkeysAt = 2
	case "zunion", "zinter", "zdiff", "zintercard", "sintercard":
		numkeysAt = 1
	case "xread", "xreadgroup":
		for i := 1; i < len(argv); i++ {
			if eqFold(argv[i], "streams") {
				n := (len(argv) - i - 1) / 2
				out := make([]int, n)
				for j := range out {
					out[j] = i + 1 + j
				}
				return out
			}
		}
		return nil
	default:
		// the legacy first/last/step range
		if cmd.firstKey <= 0 {
			return nil
		}
		last := cmd.lastKey
		if last < 0 {
			last += len(argv)
		}
		var out []int
		for i := cmd.firstKey; i <= last && i < len(argv); i += max(cmd.step, 1) {
			out = append(out, i)
		}
		return out
	}
	if numkeysAt >= len(argv) {
		return nil
	}
	n, ok := parseInt(argv[numkeysAt])
	if !ok || n <= 0 || int(n) > len(argv)-numkeysAt-1 {
		return nil
	}
	out := make([]int, n)
	for j := range out {
		out[j] = numkeysAt + 1 + j
	}
	return out
}

// trackingInvalidateKey is Redis's trackingInvalidateKey: by is the
// client that modified key (nil for an expiry or an eviction from the
// table); bcast also records the key for BCAST prefixes.
func (s *Server) trackingInvalidateKey(by *client, key []byte, bcast bool) {
	t := &s.tracking
	if t.table == nil {
		return
	}
	if bcast && len(t.prefixes) > 0 {
		s.trackingRememberKeyToBroadcast(by, key)
	}
	ids, ok := t.table[bstr(key)]
	if !ok {
		return
	}
	for _, id := range sortedIDs(ids) {
		target := s.clients[id]
		if target == nil || target.trackFlags&trackOn == 0 || target.trackFlags&trackBcast != 0 {
			continue
		}
		if target.trackFlags&trackNoloop != 0 && target == by {
			continue
		}
		if target == s.curClient && (s.execDepth > 0 || s.blocking.serving) {
			// After the command's reply, not inside it.
			t.pending = append(t.pending, pendingInvalidation{target: target, key: string(key)})
			continue
		}
		s.sendTrackingMessage(target, keyArray(key))
	}
	t.items -= int64(len(ids))
	delete(t.table, bstr(key))
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

func (s *Server) trackingRememberKeyToBroadcast(by *client, key []byte) {
	t := &s.tracking
	for p, bs := range t.prefixes {
		if len(p) > len(key) || string(key[:len(p)]) != p {
			continue
		}
		bs.keys[string(key)] = by
		t.bcastDirty = true
	}
	if t.bcastDirty && s.execDepth == 0 && s.curClient == nil && !t.cronOn {
		// Out of any command (active expiry): no batch end will
		// broadcast, the tracking cron does.
		s.startTrackingCron()
	}
}

// sendTrackingMessage is Redis's sendTrackingMessage: proto is the RESP of
// the "value" part (an array of keys, or a null for a flush).
func (s *Server) sendTrackingMessage(c *client, proto []byte) {
	usingRedir := false
	if c.trackRedir != 0 {
		redir := s.clients[c.trackRedir]
		if redir == nil {
			c.trackFlags |= trackBrokenRedir
			if c.resp > 2 {
				b := resp.AppendPushLen(nil, 3, 2)
				b = redcon.AppendBulkString(b, "tracking-redir-broken")
				b = redcon.AppendInt(b, c.trackRedir)
				s.deliverTracking(c, b)
			}
			return
		}
		c = redir
		usingRedir = true
	}
	var b []byte
	switch {
	case c.resp > 2:
		b = resp.AppendPushLen(nil, 3, 2)
		b = redcon.AppendBulkString(b, "invalidate")
	case usingRedir && c.flags&flagPubSub != 0:
		b = redcon.AppendArray(nil, 3)
		b = redcon.AppendBulkString(b, "message")
		b = redcon.AppendBulkString(b, trackingChannel)
	default:
		return // RESP2 without redirection: nowhere to say it
	}
	s.deliverTracking(c, append(b, proto...))
}

// deliverTracking hands a message to c: behind the reply being built when
// c is the client whose command runs (its output is written after the
// batch), asynchronously otherwise.
func (s *Server) deliverTracking(c *client, b []byte) {
	if c == s.curClient || c == s.tracking.outClient {
		if c.flags&(flagReplyOff|flagReplySkip) == 0 {
			c.out = append(c.out, b...)
		}
		return
	}
	if c.flags&flagFake != 0 {
		return
	}
	c.pushMu.Lock()
	async := c.pushWriter
	c.pushMu.Unlock()
	if !async {
		if c.lc != nil {
			// Owned by the network loop: the loop hands it over between
			// its batches, and the message waits in its push buffer.
			c.push(b)
			c.requestAsync()
			return
		}
		if c.conn == nil {
			return
		}
		c.startPushWriter()
	}
	c.push(b)
}

// trackingHandlePending sends the invalidations held back during the
// command (trackingHandlePendingKeyInvalidations).
func (s *Server) trackingHandlePending() {
	t := &s.tracking
	pending := t.pending
	t.pending = nil
	prev := t.outClient
	defer func() { t.outClient = prev }()
	for _, p := range pending {
		if s.clients[p.target.id] != p.target {
			continue // gone meanwhile
		}
		t.outClient = p.target
		if p.null {
			s.sendTrackingMessage(p.target, nullProto(p.target))
		} else {
			s.sendTrackingMessage(p.target, keyArray([]byte(p.key)))
		}
	}
}

func nullProto(c *client) []byte {
	if c.resp == 3 {
		return []byte("_\r\n")
	}
	return []byte("$-1\r\n")
}

// trackingInvalidateKeysOnFlush is Redis's: FLUSHDB/FLUSHALL tell every
// tracking client that all keys are invalid (a null), and the table is
// emptied.
func (s *Server) trackingInvalidateKeysOnFlush() {
	t := &s.tracking
	if t.clients > 0 {
		for _, id := range s.sortedClientIDs() {
			c := s.clients[id]
			if c.trackFlags&trackOn == 0 {
				continue
			}
			if c == s.curClient {
				t.pending = append(t.pending, pendingInvalidation{target: c, null: true})
			} else {
				s.sendTrackingMessage(c, nullProto(c))
			}
		}
	}
	if t.table != nil {
		t.table = map[string]map[int64]struct{}{}
		t.items = 0
	}
}

// trackingBroadcast sends the BCAST invalidations gathered so far
// (trackingBroadcastInvalidationMessages); c is the client whose batch
// just ran, or nil.
func (s *Server) trackingBroadcast(c *client) {
	t := &s.tracking
	if !t.bcastDirty {
		return
	}
	t.bcastDirty = false
	if t.clients == 0 {
		for _, bs := range t.prefixes {
			clear(bs.keys)
		}
		return
	}
	prev := t.outClient
	t.outClient = c
	defer func() { t.outClient = prev }()
	prefixes := make([]string, 0, len(t.prefixes))
	for p := range t.prefixes {
		prefixes = append(prefixes, p)
	}
	sort.Strings(prefixes)
	for _, p := range prefixes {
		bs := t.prefixes[p]
		if len(bs.keys) == 0 {
			continue
		}
		keys := make([]string, 0, len(bs.keys))
		for k := range bs.keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		all := broadcastReply(keys, bs.keys, nil)
		for _, cl := range sortedBcastClients(bs.clients) {
			if cl.trackFlags&trackNoloop != 0 {
				if adhoc := broadcastReply(keys, bs.keys, cl); adhoc != nil {
					s.sendTrackingMessage(cl, adhoc)
				}
				continue
			}
			s.sendTrackingMessage(cl, all)
		}
		clear(bs.keys)
	}
}

func sortedBcastClients(m map[*client]struct{}) []*client {
	out := make([]*client, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// broadcastReply is Redis's trackingBuildBroadcastReply: the array of keys,
// less those last modified by skip (NOLOOP); nil if none is left.
func broadcastReply(keys []string, by map[string]*client, skip *client) []byte {
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

// trackingLimitUsedSlots is Redis's: over tracking-table-max-keys, keys
// are dropped (their clients told, as if modified) with an effort that
// grows while the table stays over the limit.
func (s *Server) trackingLimitUsedSlots() {
	t := &s.tracking
	if t.table == nil {
		return
	}
	max := t.maxKeys
	if max == 0 {
		return
	}
	if int64(len(t.table)) <= max {
		t.effort = 0
		return
	}
	effort := 100 * (t.effort + 1)
	for key := range t.table { // Go's map order stands in for the random walk
		if effort == 0 {
			break
		}
		effort--
		s.trackingInvalidateKey(nil, []byte(key), false)
		if int64(len(t.table)) <= max {
			t.effort = 0
			return
		}
	}
	t.effort++
}

func (s *Server) trackingMaxKeys() int64 {
	if v := s.cfg.Get("tracking-table-max-keys"); len(v) == 1 {
		n, _ := strconv.ParseInt(v[0][1], 10, 64)
		return n
	}
	return 0
}

// startTrackingCron starts the tracking part of Redis's serverCron and
// beforeSleep, for work no command end does: the table limit after a
// CONFIG SET while idle, and broadcasting keys expired by the cron.
func (s *Server) startTrackingCron() {
	t := &s.tracking
	if t.cronOn {
		return
	}
	t.cronOn = true
	t.maxKeys = s.trackingMaxKeys()
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.closing:
				return
			case <-tick.C:
			}
			s.mu.Lock()
			if t.clients == 0 && !t.bcastDirty {
				t.cronOn = false
				s.mu.Unlock()
				return
			}
			t.maxKeys = s.trackingMaxKeys()
			s.trackingLimitUsedSlots()
			s.trackingBroadcast(nil)
			s.mu.Unlock()
		}
	}()
}

// trackingEndBatch runs at the end of a batch of c's commands (Redis's
// beforeSleep): BCAST invalidations gathered by the batch go out, those to
// c behind its replies.
func (s *Server) trackingEndBatch(c *client) {
	if s.tracking.bcastDirty {
		s.trackingBroadcast(c)
	}
}
