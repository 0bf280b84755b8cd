package server

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"unsafe"

	"github.com/aofserver/aofserver/listpack"
	"github.com/aofserver/aofserver/rdb"
)

// Streams (Redis 7.0 t_stream.c semantics).
//
// Entries live in nodes that mirror Redis's listpack nodes: a node is
// closed when it holds stream-node-max-entries entries (live + deleted) or
// its simulated listpack size reaches stream-node-max-bytes, XDEL leaves a
// tombstone in its node (a node goes away when its last live entry is
// deleted) and approximate trimming removes whole nodes only. Keeping the
// same layout as Redis makes MAXLEN/MINID "~" trimming, and what it
// propagates, identical. XADD is amortized O(1), range lookups are binary
// searches over nodes then entries.

const (
	streamListpackMax     = 1 << 30
	scgInvalidEntriesRead = -1
)

// streamNodeLimits are stream-node-max-entries and stream-node-max-bytes:
// when XADD starts a new node (and so what "~" trimming can remove).
type streamNodeLimits struct{ maxEntries, maxBytes int64 }

// defaultStreamNodeLimits are Redis's defaults (100 entries, 4096 bytes).
var defaultStreamNodeLimits = streamNodeLimits{100, 4096}

func (s *Server) streamNodeLimits() streamNodeLimits {
	return streamNodeLimits{s.cfg.StreamNodeMaxEntries, s.cfg.StreamNodeMaxBytes}
}

type streamID struct{ ms, seq uint64 }

var streamIDMax = streamID{math.MaxUint64, math.MaxUint64}

func (a streamID) cmp(b streamID) int {
	switch {
	case a.ms > b.ms:
		return 1
	case a.ms < b.ms:
		return -1
	case a.seq > b.seq:
		return 1
	case a.seq < b.seq:
		return -1
	}
	return 0
}

func (a streamID) isZero() bool { return a.ms == 0 && a.seq == 0 }

// incr returns the successor ID; ok=false when a is the maximum (wraps to 0-0).
func (a streamID) incr() (streamID, bool) {
	if a.seq == math.MaxUint64 {
		if a.ms == math.MaxUint64 {
			return streamID{}, false
		}
		return streamID{a.ms + 1, 0}, true
	}
	return streamID{a.ms, a.seq + 1}, true
}

// decr returns the predecessor ID; ok=false when a is 0-0 (wraps to max).
func (a streamID) decr() (streamID, bool) {
	if a.seq == 0 {
		if a.ms == 0 {
			return streamIDMax, false
		}
		return streamID{a.ms - 1, math.MaxUint64}, true
	}
	return streamID{a.ms, a.seq - 1}, true
}

func appendStreamID(dst []byte, id streamID) []byte {
	dst = strconv.AppendUint(dst, id.ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, id.seq, 10)
}

func (a streamID) bytes() []byte { return appendStreamID(nil, a) }

func (a streamID) String() string { return string(a.bytes()) }

func (c *client) streamID(id streamID) {
	var buf [48]byte
	c.bulk(appendStreamID(buf[:0], id))
}

// ------------------------------------------------------------------ nodes

// streamEntry is one entry of a node: its field/value pairs are encoded
// in the node's buffer at [off, off+n); n == 0 marks a tombstone.
type streamEntry struct {
	id  streamID
	off uint32
	n   uint32
}

func (e *streamEntry) deleted() bool { return e.n == 0 }

type streamNode struct {
	master       streamID
	masterFields [][]byte
	entries      []streamEntry // ascending, tombstones included
	buf          []byte        // encoded entries
	live         int
	deleted      int
	lpBytes      int // simulated listpack size (Redis lpBytes)
}

// Entry encoding in streamNode.buf: a flag byte (1: the node's master
// fields, then one uvarint-length-prefixed value per field; 0: uvarint
// field count, then length-prefixed field and value pairs).

// numFields returns the entry's field count.
func (nd *streamNode) numFields(e *streamEntry) int {
	d := nd.buf[e.off : e.off+e.n]
	if d[0] == 1 {
		return len(nd.masterFields)
	}
	n, _ := binary.Uvarint(d[1:])
	return int(n)
}

// eachField calls fn for each field/value pair of a live entry.
func (nd *streamNode) eachField(e *streamEntry, fn func(f, v []byte)) {
	d := nd.buf[e.off : e.off+e.n]
	same := d[0] == 1
	d = d[1:]
	next := func() []byte {
		l, k := binary.Uvarint(d)
		b := d[k : k+int(l) : k+int(l)]
		d = d[k+int(l):]
		return b
	}
	if same {
		for _, f := range nd.masterFields {
			fn(f, next())
		}
		return
	}
	n, k := binary.Uvarint(d)
	d = d[k:]
	for i := uint64(0); i < n; i++ {
		f := next()
		fn(f, next())
	}
}

// ----------------------------------------------------------------- stream

type streamObj struct {
	nodes        []*streamNode
	length       uint64
	lastID       streamID
	firstID      streamID
	maxDeletedID streamID
	entriesAdded uint64
	groups       map[string]*streamCG
}

func newStream() *streamObj { return &streamObj{} }

func newStreamEntry(s *streamObj) entry { return newObjEntry(typStream, unsafe.Pointer(s)) }

func (s *streamObj) encoding() string { return "stream" }

func (s *streamObj) lengthInt() int { return int(s.length) }

func (s *streamObj) memUsage() int64 {
	n := int64(64)
	for _, nd := range s.nodes {
		n += int64(nd.lpBytes) + 48
	}
	for _, g := range s.groups {
		n += 64 + int64(g.pel.len())*48
		for _, c := range g.consumers {
			n += 48 + int64(len(c.name)) + int64(c.pel.len())*24
		}
	}
	return n
}

// appendItem is streamAppendItem: id is the ID to use (already checked
// by the caller against lastID). fv are field/value pairs, copied; lim
// says when the last node is full.
func (s *streamObj) appendItem(id streamID, fv [][]byte, lim streamNodeLimits) {
	numfields := len(fv) / 2
	totelelen := 0
	for _, b := range fv {
		totelelen += len(b)
	}
	var nd *streamNode
	if len(s.nodes) > 0 {
		nd = s.nodes[len(s.nodes)-1]
		maxBytes := lim.maxBytes
		if maxBytes <= 0 || maxBytes > streamListpackMax {
			maxBytes = streamListpackMax
		}
		if int64(nd.lpBytes+totelelen) >= maxBytes {
			nd = nil
		} else if lim.maxEntries > 0 && int64(nd.live+nd.deleted) >= lim.maxEntries {
			nd = nil
		}
		if nd == nil {
			s.nodes[len(s.nodes)-1].shrink()
		}
	}
	same := false
	if nd == nil {
		nd = &streamNode{master: id}
		nd.masterFields = make([][]byte, numfields)
		for i := 0; i < numfields; i++ {
			nd.masterFields[i] = cloneBytes(fv[2*i])
		}
		nd.lpBytes = 6 + 1 + listpack.IntSize(0) + listpack.IntSize(0) + listpack.IntSize(int64(numfields)) + listpack.IntSize(0)
		for _, f := range nd.masterFields {
			nd.lpBytes += listpack.StrSize(f)
		}
		s.nodes = append(s.nodes, nd)
		same = true
	} else if numfields == len(nd.masterFields) {
		same = true
		for i, f := range nd.masterFields {
			if string(f) != string(fv[2*i]) {
				same = false
				break
			}
		}
	}
	// count field update
	nd.lpBytes += listpack.IntSize(int64(nd.live+1)) - listpack.IntSize(int64(nd.live))
	flags := int64(0)
	if same {
		flags = 2
	}
	nd.lpBytes += listpack.IntSize(flags) + listpack.IntSize(int64(id.ms-nd.master.ms)) + listpack.IntSize(int64(id.seq-nd.master.seq))
	lpCount := int64(numfields + 3)
	if !same {
		nd.lpBytes += listpack.IntSize(int64(numfields))
		lpCount += int64(numfields + 1)
	}
	off := len(nd.buf)
	if same {
		nd.buf = append(nd.buf, 1)
	} else {
		nd.buf = append(nd.buf, 0)
		nd.buf = binary.AppendUvarint(nd.buf, uint64(numfields))
	}
	for i := 0; i < numfields; i++ {
		if !same {
			nd.buf = binary.AppendUvarint(nd.buf, uint64(len(fv[2*i])))
			nd.buf = append(nd.buf, fv[2*i]...)
			nd.lpBytes += listpack.StrSize(fv[2*i])
		}
		nd.buf = binary.AppendUvarint(nd.buf, uint64(len(fv[2*i+1])))
		nd.buf = append(nd.buf, fv[2*i+1]...)
		nd.lpBytes += listpack.StrSize(fv[2*i+1])
	}
	nd.lpBytes += listpack.IntSize(lpCount)
	nd.entries = append(nd.entries, streamEntry{id: id, off: uint32(off), n: uint32(len(nd.buf) - off)})
	nd.live++
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// shrink drops the spare capacity of a node that will not grow again.
func (nd *streamNode) shrink() {
	if cap(nd.buf) > len(nd.buf) {
		nd.buf = append([]byte(nil), nd.buf...)
	}
	if cap(nd.entries) > len(nd.entries) {
		nd.entries = append([]streamEntry(nil), nd.entries...)
	}
}

// nodeLast is the ID of the last entry of a node, tombstones included
// (lpGetEdgeStreamID).
func (nd *streamNode) lastID() streamID { return nd.entries[len(nd.entries)-1].id }

// seekFwd returns the position (node, index) of the first entry with
// id >= start, tombstones included; node == len(nodes) at the end.
func (s *streamObj) seekFwd(start streamID) (int, int) {
	ni := sort.Search(len(s.nodes), func(i int) bool { return s.nodes[i].lastID().cmp(start) >= 0 })
	if ni == len(s.nodes) {
		return ni, 0
	}
	es := s.nodes[ni].entries
	ei := sort.Search(len(es), func(i int) bool { return es[i].id.cmp(start) >= 0 })
	return ni, ei
}

// seekRev returns the position of the last entry with id <= end; ni = -1
// when there is none.
func (s *streamObj) seekRev(end streamID) (int, int) {
	ni := sort.Search(len(s.nodes), func(i int) bool { return s.nodes[i].entries[0].id.cmp(end) > 0 }) - 1
	if ni < 0 {
		return -1, 0
	}
	es := s.nodes[ni].entries
	ei := sort.Search(len(es), func(i int) bool { return es[i].id.cmp(end) > 0 }) - 1
	return ni, ei
}

// rangeFwd calls fn for live entries in [start,end] ascending until fn
// returns false.
func (s *streamObj) rangeFwd(start, end streamID, fn func(nd *streamNode, e *streamEntry) bool) {
	ni, ei := s.seekFwd(start)
	for ; ni < len(s.nodes); ni, ei = ni+1, 0 {
		nd := s.nodes[ni]
		es := nd.entries
		for ; ei < len(es); ei++ {
			e := &es[ei]
			if e.deleted() {
				continue
			}
			if e.id.cmp(end) > 0 {
				return
			}
			if !fn(nd, e) {
				return
			}
		}
	}
}

// rangeRev is rangeFwd descending.
func (s *streamObj) rangeRev(start, end streamID, fn func(nd *streamNode, e *streamEntry) bool) {
	ni, ei := s.seekRev(end)
	for ; ni >= 0; ni-- {
		nd := s.nodes[ni]
		es := nd.entries
		if ei < 0 {
			ei = len(es) - 1
		}
		for ; ei >= 0; ei-- {
			e := &es[ei]
			if e.deleted() {
				continue
			}
			if e.id.cmp(start) < 0 {
				return
			}
			if !fn(nd, e) {
				return
			}
		}
		ei = -1
	}
}

// lookup returns the live entry with this ID.
func (s *streamObj) lookup(id streamID) (*streamNode, *streamEntry) {
	ni, ei := s.seekFwd(id)
	if ni == len(s.nodes) {
		return nil, nil
	}
	es := s.nodes[ni].entries
	if ei < len(es) && es[ei].id == id && !es[ei].deleted() {
		return s.nodes[ni], &es[ei]
	}
	return nil, nil
}

// deleteItem is streamDeleteItem: it tombstones a live entry, dropping
// its node when that was the node's last live entry.
func (s *streamObj) deleteItem(id streamID) bool {
	ni, ei := s.seekFwd(id)
	if ni == len(s.nodes) {
		return false
	}
	nd := s.nodes[ni]
	if ei >= len(nd.entries) || nd.entries[ei].id != id || nd.entries[ei].deleted() {
		return false
	}
	if nd.live == 1 {
		copy(s.nodes[ni:], s.nodes[ni+1:])
		s.nodes[len(s.nodes)-1] = nil
		s.nodes = s.nodes[:len(s.nodes)-1]
	} else {
		nd.entries[ei].n = 0
		nd.lpBytes += listpack.IntSize(int64(nd.live-1)) - listpack.IntSize(int64(nd.live))
		nd.lpBytes += listpack.IntSize(int64(nd.deleted+1)) - listpack.IntSize(int64(nd.deleted))
		nd.live--
		nd.deleted++
	}
	s.length--
	return true
}

// lastValidID is streamLastValidID (0-0 for an empty stream).
func (s *streamObj) lastValidID() streamID {
	var id streamID
	s.rangeRev(streamID{}, streamIDMax, func(_ *streamNode, e *streamEntry) bool { id = e.id; return false })
	return id
}

// edgeID is streamGetEdgeID. Without skipTombstones it reads the first
// (last) entry of the first (last) node, deleted or not.
func (s *streamObj) edgeID(first, skipTombstones bool) streamID {
	if len(s.nodes) == 0 {
		if first {
			return streamIDMax
		}
		return streamID{}
	}
	if !skipTombstones {
		if first {
			return s.nodes[0].entries[0].id
		}
		return s.nodes[len(s.nodes)-1].lastID()
	}
	found := false
	var id streamID
	if first {
		s.rangeFwd(streamID{}, streamIDMax, func(_ *streamNode, e *streamEntry) bool { id = e.id; found = true; return false })
	} else {
		s.rangeRev(streamID{}, streamIDMax, func(_ *streamNode, e *streamEntry) bool { id = e.id; found = true; return false })
	}
	if !found {
		if first {
			return streamIDMax
		}
		return streamID{}
	}
	return id
}

const (
	trimNone = iota
	trimMaxlen
	trimMinID
)

type streamTrimArgs struct {
	strategy int
	argIdx   int // index of the threshold argument
	approx   bool
	limit    int64
	maxlen   int64
	minid    streamID
}

// trim is streamTrim; it returns the number of entries removed.
func (s *streamObj) trim(a *streamTrimArgs) int64 {
	if a.strategy == trimNone {
		return 0
	}
	var deleted int64
	for len(s.nodes) > 0 {
		if a.strategy == trimMaxlen && s.length <= uint64(a.maxlen) {
			break
		}
		nd := s.nodes[0]
		entries := int64(nd.live)
		if a.limit > 0 && deleted+entries > a.limit {
			break
		}
		var remove bool
		if a.strategy == trimMaxlen {
			remove = int64(s.length)-entries >= a.maxlen
		} else {
			remove = nd.lastID().cmp(a.minid) < 0
		}
		if remove {
			s.nodes[0] = nil
			s.nodes = s.nodes[1:]
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.approx {
			break
		}
		var fromNode int
		for i := range nd.entries {
			e := &nd.entries[i]
			var stop bool
			if a.strategy == trimMaxlen {
				stop = s.length <= uint64(a.maxlen)
			} else {
				stop = e.id.cmp(a.minid) >= 0
			}
			if stop {
				break
			}
			if !e.deleted() {
				e.n = 0
				fromNode++
				s.length--
			}
		}
		deleted += int64(fromNode)
		nd.lpBytes += listpack.IntSize(int64(nd.live-fromNode)) - listpack.IntSize(int64(nd.live))
		nd.lpBytes += listpack.IntSize(int64(nd.deleted+fromNode)) - listpack.IntSize(int64(nd.deleted))
		nd.live -= fromNode
		nd.deleted += fromNode
		break
	}
	if s.length == 0 {
		s.firstID = streamID{}
	} else {
		s.firstID = s.edgeID(true, true)
	}
	return deleted
}

// rangeHasTombstones is streamRangeHasTombstones (end nil = max).
func (s *streamObj) rangeHasTombstones(start streamID, end *streamID) bool {
	if s.length == 0 || s.maxDeletedID.isZero() {
		return false
	}
	if s.firstID.cmp(s.maxDeletedID) > 0 {
		return false
	}
	e := streamIDMax
	if end != nil {
		e = *end
	}
	return start.cmp(s.maxDeletedID) <= 0 && s.maxDeletedID.cmp(e) <= 0
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry.
func (s *streamObj) estimateDistance(id streamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.cmp(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	cmpLast := id.cmp(s.lastID)
	if cmpLast == 0 {
		return int64(s.entriesAdded)
	} else if cmpLast > 0 {
		return scgInvalidEntriesRead
	}
	cmpFirst := id.cmp(s.firstID)
	if s.maxDeletedID.isZero() || s.maxDeletedID.cmp(s.firstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.entriesAdded - s.length)
		} else if cmpFirst == 0 {
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return scgInvalidEntriesRead
}

// lag is what streamReplyWithCGLag computes; ok=false means null.
func (s *streamObj) lag(g *streamCG) (int64, bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	if g.entriesRead != scgInvalidEntriesRead && !s.rangeHasTombstones(g.lastID, nil) {
		return int64(s.entriesAdded) - g.entriesRead, true
	}
	if er := s.estimateDistance(g.lastID); er != scgInvalidEntriesRead {
		return int64(s.entriesAdded) - er, true
	}
	return 0, false
}

// ----------------------------------------------------------- groups / PEL

type streamNACK struct {
	deliveryTime  int64
	deliveryCount uint64
	consumer      *streamConsumer
}

type streamConsumer struct {
	name     []byte
	seenTime int64
	pel      *pelIndex
}

type streamCG struct {
	name        []byte
	lastID      streamID
	entriesRead int64
	pel         *pelIndex
	consumers   map[string]*streamConsumer
}

// pelIndex is an ordered map streamID -> *streamNACK: a hash map plus a
// sorted ID slice from which removed IDs are dropped lazily.
type pelIndex struct {
	m    map[streamID]*streamNACK
	ids  []streamID
	dead int
}

func newPEL() *pelIndex { return &pelIndex{m: map[streamID]*streamNACK{}} }

func (p *pelIndex) len() int { return len(p.m) }

func (p *pelIndex) get(id streamID) *streamNACK { return p.m[id] }

// insert adds id; it reports false (and changes nothing) if present.
func (p *pelIndex) insert(id streamID, n *streamNACK) bool {
	if _, ok := p.m[id]; ok {
		return false
	}
	p.m[id] = n
	if k := len(p.ids); k == 0 || p.ids[k-1].cmp(id) < 0 {
		p.ids = append(p.ids, id)
		return true
	}
	i := sort.Search(len(p.ids), func(i int) bool { return p.ids[i].cmp(id) >= 0 })
	if i < len(p.ids) && p.ids[i] == id {
		p.dead-- // a removed ID comes back
		return true
	}
	p.ids = append(p.ids, streamID{})
	copy(p.ids[i+1:], p.ids[i:])
	p.ids[i] = id
	return true
}

func (p *pelIndex) remove(id streamID) {
	if _, ok := p.m[id]; !ok {
		return
	}
	delete(p.m, id)
	p.dead++
	if p.dead > 64 && p.dead > len(p.ids)/2 {
		out := p.ids[:0]
		for _, x := range p.ids {
			if _, ok := p.m[x]; ok {
				out = append(out, x)
			}
		}
		for i := len(out); i < len(p.ids); i++ {
			p.ids[i] = streamID{}
		}
		p.ids = out
		p.dead = 0
	}
}

// ceil returns the first present ID >= id.
func (p *pelIndex) ceil(id streamID) (streamID, *streamNACK, bool) {
	i := sort.Search(len(p.ids), func(i int) bool { return p.ids[i].cmp(id) >= 0 })
	for ; i < len(p.ids); i++ {
		if n, ok := p.m[p.ids[i]]; ok {
			return p.ids[i], n, true
		}
	}
	return streamID{}, nil, false
}

// first and last present IDs.
func (p *pelIndex) first() (streamID, bool) {
	id, _, ok := p.ceil(streamID{})
	return id, ok
}

func (p *pelIndex) last() (streamID, bool) {
	for i := len(p.ids) - 1; i >= 0; i-- {
		if _, ok := p.m[p.ids[i]]; ok {
			return p.ids[i], true
		}
	}
	return streamID{}, false
}

// each visits present IDs >= start in order until fn returns false. fn
// must not insert into p (removing the visited ID is fine).
func (p *pelIndex) each(start streamID, fn func(id streamID, n *streamNACK) bool) {
	cur := start
	for {
		id, n, ok := p.ceil(cur)
		if !ok || !fn(id, n) {
			return
		}
		next, ok := id.incr()
		if !ok {
			return
		}
		cur = next
	}
}

func (s *streamObj) lookupCG(name []byte) *streamCG {
	if s.groups == nil {
		return nil
	}
	return s.groups[string(name)]
}

func (s *streamObj) createCG(name []byte, id streamID, entriesRead int64) *streamCG {
	if s.groups == nil {
		s.groups = map[string]*streamCG{}
	}
	if _, ok := s.groups[string(name)]; ok {
		return nil
	}
	g := &streamCG{name: cloneBytes(name), lastID: id, entriesRead: entriesRead, pel: newPEL(), consumers: map[string]*streamConsumer{}}
	s.groups[string(name)] = g
	return g
}

// sortedGroups returns the groups in name order (Redis keeps them in a rax).
func (s *streamObj) sortedGroups() []*streamCG {
	out := make([]*streamCG, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i].name) < string(out[j].name) })
	return out
}

func (g *streamCG) sortedConsumers() []*streamConsumer {
	out := make([]*streamConsumer, 0, len(g.consumers))
	for _, c := range g.consumers {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i].name) < string(out[j].name) })
	return out
}

func (g *streamCG) lookupConsumer(name []byte, refresh bool, now int64) *streamConsumer {
	c := g.consumers[string(name)]
	if c != nil && refresh {
		c.seenTime = now
	}
	return c
}

func (g *streamCG) createConsumer(name []byte, now int64) *streamConsumer {
	if _, ok := g.consumers[string(name)]; ok {
		return nil
	}
	c := &streamConsumer{name: cloneBytes(name), seenTime: now, pel: newPEL()}
	g.consumers[string(name)] = c
	return c
}

// delConsumer removes a consumer and its pending entries; it returns how
// many were pending.
func (g *streamCG) delConsumer(name []byte) int {
	c := g.consumers[string(name)]
	if c == nil {
		return 0
	}
	n := c.pel.len()
	c.pel.each(streamID{}, func(id streamID, _ *streamNACK) bool {
		g.pel.remove(id)
		return true
	})
	delete(g.consumers, string(name))
	return n
}

// ------------------------------------------------------- clone / RDB form

// clone is streamDup: nodes (tombstones included) and groups are copied
// as they are.
func (s *streamObj) clone() *streamObj {
	out := &streamObj{length: s.length, lastID: s.lastID, firstID: s.firstID, maxDeletedID: s.maxDeletedID, entriesAdded: s.entriesAdded}
	out.nodes = make([]*streamNode, len(s.nodes))
	for i, nd := range s.nodes {
		c := *nd
		c.entries = append([]streamEntry(nil), nd.entries...)
		c.buf = append([]byte(nil), nd.buf...)
		out.nodes[i] = &c // master fields are immutable, so they are shared
	}
	for _, g := range s.groups {
		ng := out.createCG(g.name, g.lastID, g.entriesRead)
		for _, c := range g.consumers {
			ng.consumers[string(c.name)] = &streamConsumer{name: cloneBytes(c.name), seenTime: c.seenTime, pel: newPEL()}
		}
		g.pel.each(streamID{}, func(id streamID, n *streamNACK) bool {
			c := ng.consumers[string(n.consumer.name)]
			nn := &streamNACK{deliveryTime: n.deliveryTime, deliveryCount: n.deliveryCount, consumer: c}
			ng.pel.insert(id, nn)
			c.pel.insert(id, nn)
			return true
		})
	}
	return out
}

func streamIDToRDB(id streamID) rdb.StreamID { return rdb.StreamID{Ms: id.ms, Seq: id.seq} }

func streamIDFromRDB(id rdb.StreamID) streamID { return streamID{id.Ms, id.Seq} }

func (s *streamObj) toRDB() *rdb.Value {
	st := &rdb.Stream{
		LastID:       streamIDToRDB(s.lastID),
		FirstID:      streamIDToRDB(s.firstID),
		MaxDeletedID: streamIDToRDB(s.maxDeletedID),
		EntriesAdded: s.entriesAdded,
	}
	st.Entries = make([]rdb.StreamEntry, 0, s.length)
	s.rangeFwd(streamID{}, streamIDMax, func(nd *streamNode, e *streamEntry) bool {
		fields := make([][2][]byte, 0, nd.numFields(e))
		nd.eachField(e, func(f, v []byte) { fields = append(fields, [2][]byte{f, v}) })
		st.Entries = append(st.Entries, rdb.StreamEntry{ID: streamIDToRDB(e.id), Fields: fields})
		return true
	})
	for _, g := range s.sortedGroups() {
		rg := rdb.StreamGroup{Name: g.name, LastID: streamIDToRDB(g.lastID), EntriesRead: g.entriesRead}
		g.pel.each(streamID{}, func(id streamID, n *streamNACK) bool {
			rg.PEL = append(rg.PEL, rdb.StreamPending{ID: streamIDToRDB(id), DeliveryTime: n.deliveryTime, DeliveryCount: n.deliveryCount, Consumer: n.consumer.name})
			return true
		})
		for _, c := range g.sortedConsumers() {
			rg.Consumers = append(rg.Consumers, rdb.StreamConsumer{Name: c.name, SeenTime: c.seenTime, ActiveTime: c.seenTime})
		}
		st.Groups = append(st.Groups, rg)
	}
	return &rdb.Value{Kind: rdb.KindStream, Encoding: rdb.EncStream, Stream: st}
}

// streamFromRDB rebuilds a stream, its nodes split by lim.
func streamFromRDB(v *rdb.Value, lim streamNodeLimits) *streamObj {
	s := newStream()
	st := v.Stream
	if st == nil {
		return s
	}
	for _, e := range st.Entries {
		fv := make([][]byte, 0, 2*len(e.Fields))
		for _, p := range e.Fields {
			fv = append(fv, p[0], p[1])
		}
		s.appendItem(streamIDFromRDB(e.ID), fv, lim)
	}
	s.lastID = streamIDFromRDB(st.LastID)
	s.entriesAdded = st.EntriesAdded
	s.maxDeletedID = streamIDFromRDB(st.MaxDeletedID)
	if s.length > 0 {
		s.firstID = s.edgeID(true, true)
	} else {
		s.firstID = streamID{}
	}
	for _, rg := range st.Groups {
		g := s.createCG(rg.Name, streamIDFromRDB(rg.LastID), rg.EntriesRead)
		if g == nil {
			continue
		}
		for _, rc := range rg.Consumers {
			g.consumers[string(rc.Name)] = &streamConsumer{name: cloneBytes(rc.Name), seenTime: rc.SeenTime, pel: newPEL()}
		}
		for _, p := range rg.PEL {
			c := g.consumers[string(p.Consumer)]
			if c == nil {
				c = &streamConsumer{name: cloneBytes(p.Consumer), seenTime: p.DeliveryTime, pel: newPEL()}
				g.consumers[string(p.Consumer)] = c
			}
			n := &streamNACK{deliveryTime: p.DeliveryTime, deliveryCount: p.DeliveryCount, consumer: c}
			id := streamIDFromRDB(p.ID)
			g.pel.insert(id, n)
			c.pel.insert(id, n)
		}
	}
	return s
}

func streamFromRDBValue(v *rdb.Value, s *Server) *streamObj {
	lim := defaultStreamNodeLimits
	if s != nil && s.cfg != nil {
		lim = s.streamNodeLimits()
	}
	return streamFromRDB(v, lim)
}
