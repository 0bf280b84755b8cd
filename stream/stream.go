package stream

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"github.com/aofserver/aofserver/listpack"
	"github.com/aofserver/aofserver/rdb"
)

const (
	ListpackMax        = 1 << 30
	InvalidEntriesRead = -1
)

// NodeLimits are stream-node-max-entries and stream-node-max-bytes:
// when XADD starts a new node (and so what "~" trimming can remove).
type NodeLimits struct{ MaxEntries, MaxBytes int64 }

// DefaultNodeLimits are Redis's defaults (100 entries, 4096 bytes).
var DefaultNodeLimits = NodeLimits{100, 4096}

// ID is an entry ID, <ms>-<seq>.
type ID struct{ Ms, Seq uint64 }

// MaxID is the greatest ID.
var MaxID = ID{math.MaxUint64, math.MaxUint64}

// Cmp compares a with b: -1, 0 or 1.
func (a ID) Cmp(b ID) int {
	switch {
	case a.Ms > b.Ms:
		return 1
	case a.Ms < b.Ms:
		return -1
	case a.Seq > b.Seq:
		return 1
	case a.Seq < b.Seq:
		return -1
	}
	return 0
}

// IsZero reports 0-0.
func (a ID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Incr returns the successor ID; ok=false when a is the maximum (wraps to 0-0).
func (a ID) Incr() (ID, bool) {
	if a.Seq == math.MaxUint64 {
		if a.Ms == math.MaxUint64 {
			return ID{}, false
		}
		return ID{a.Ms + 1, 0}, true
	}
	return ID{a.Ms, a.Seq + 1}, true
}

// Decr returns the predecessor ID; ok=false when a is 0-0 (wraps to max).
func (a ID) Decr() (ID, bool) {
	if a.Seq == 0 {
		if a.Ms == 0 {
			return MaxID, false
		}
		return ID{a.Ms - 1, math.MaxUint64}, true
	}
	return ID{a.Ms, a.Seq - 1}, true
}

// AppendID appends id as "<ms>-<seq>".
func AppendID(dst []byte, id ID) []byte {
	dst = strconv.AppendUint(dst, id.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, id.Seq, 10)
}

// Bytes is a as "<ms>-<seq>".
func (a ID) Bytes() []byte { return AppendID(nil, a) }

// String is a as "<ms>-<seq>".
func (a ID) String() string { return string(a.Bytes()) }

// ------------------------------------------------------------------ nodes

// Entry is one entry of a node: its field/value pairs are encoded
// in the node's buffer at [off, off+n); n == 0 marks a tombstone.
type Entry struct {
	ID  ID
	Off uint32
	N   uint32
}

// Deleted reports a tombstone.
func (e *Entry) Deleted() bool { return e.N == 0 }

// Node is one node of entries, as a Redis listpack node: a master entry
// whose fields later entries may share, and the entries' encoding.
type Node struct {
	Master       ID
	MasterFields [][]byte
	Entries      []Entry // ascending, tombstones included
	Buf          []byte  // encoded entries
	Live         int
	Deleted      int
	LpBytes      int // simulated listpack size (Redis lpBytes)
}

// Entry encoding in Node.buf: a flag byte (1: the node's master
// fields, then one uvarint-length-prefixed value per field; 0: uvarint
// field count, then length-prefixed field and value pairs).

// NumFields returns the entry's field count.
func (nd *Node) NumFields(e *Entry) int {
	d := nd.Buf[e.Off : e.Off+e.N]
	if d[0] == 1 {
		return len(nd.MasterFields)
	}
	n, _ := binary.Uvarint(d[1:])
	return int(n)
}

// EachField calls fn for each field/value pair of a live entry.
func (nd *Node) EachField(e *Entry, fn func(f, v []byte)) {
	d := nd.Buf[e.Off : e.Off+e.N]
	same := d[0] == 1
	d = d[1:]
	next := func() []byte {
		l, k := binary.Uvarint(d)
		b := d[k : k+int(l) : k+int(l)]
		d = d[k+int(l):]
		return b
	}
	if same {
		for _, f := range nd.MasterFields {
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

type Stream struct {
	Nodes        []*Node
	Length       uint64
	LastID       ID
	FirstID      ID
	MaxDeletedID ID
	EntriesAdded uint64
	Groups       map[string]*CG
}

// New is an empty stream.
func New() *Stream { return &Stream{} }

// Encoding is OBJECT ENCODING's name: "stream".
func (s *Stream) Encoding() string { return "stream" }

// LengthInt is the number of live entries.
func (s *Stream) LengthInt() int { return int(s.Length) }

// MemUsage estimates the bytes the stream holds (MEMORY USAGE).
func (s *Stream) MemUsage() int64 {
	n := int64(64)
	for _, nd := range s.Nodes {
		n += int64(nd.LpBytes) + 48
	}
	for _, g := range s.Groups {
		n += 64 + int64(g.Pel.Len())*48
		for _, c := range g.Consumers {
			n += 48 + int64(len(c.Name)) + int64(c.Pel.Len())*24
		}
	}
	return n
}

// AppendItem is streamAppendItem: id is the ID to use (already checked
// by the caller against lastID). fv are field/value pairs, copied; lim
// says when the last node is full.
func (s *Stream) AppendItem(id ID, fv [][]byte, lim NodeLimits) {
	numfields := len(fv) / 2
	totelelen := 0
	for _, b := range fv {
		totelelen += len(b)
	}
	var nd *Node
	if len(s.Nodes) > 0 {
		nd = s.Nodes[len(s.Nodes)-1]
		maxBytes := lim.MaxBytes
		if maxBytes <= 0 || maxBytes > ListpackMax {
			maxBytes = ListpackMax
		}
		if int64(nd.LpBytes+totelelen) >= maxBytes {
			nd = nil
		} else if lim.MaxEntries > 0 && int64(nd.Live+nd.Deleted) >= lim.MaxEntries {
			nd = nil
		}
		if nd == nil {
			s.Nodes[len(s.Nodes)-1].Shrink()
		}
	}
	same := false
	if nd == nil {
		nd = &Node{Master: id}
		nd.MasterFields = make([][]byte, numfields)
		for i := 0; i < numfields; i++ {
			nd.MasterFields[i] = clone(fv[2*i])
		}
		nd.LpBytes = 6 + 1 + listpack.IntSize(0) + listpack.IntSize(0) + listpack.IntSize(int64(numfields)) + listpack.IntSize(0)
		for _, f := range nd.MasterFields {
			nd.LpBytes += listpack.StrSize(f)
		}
		s.Nodes = append(s.Nodes, nd)
		same = true
	} else if numfields == len(nd.MasterFields) {
		same = true
		for i, f := range nd.MasterFields {
			if string(f) != string(fv[2*i]) {
				same = false
				break
			}
		}
	}
	// count field update
	nd.LpBytes += listpack.IntSize(int64(nd.Live+1)) - listpack.IntSize(int64(nd.Live))
	flags := int64(0)
	if same {
		flags = 2
	}
	nd.LpBytes += listpack.IntSize(flags) + listpack.IntSize(int64(id.Ms-nd.Master.Ms)) + listpack.IntSize(int64(id.Seq-nd.Master.Seq))
	lpCount := int64(numfields + 3)
	if !same {
		nd.LpBytes += listpack.IntSize(int64(numfields))
		lpCount += int64(numfields + 1)
	}
	off := len(nd.Buf)
	if same {
		nd.Buf = append(nd.Buf, 1)
	} else {
		nd.Buf = append(nd.Buf, 0)
		nd.Buf = binary.AppendUvarint(nd.Buf, uint64(numfields))
	}
	for i := 0; i < numfields; i++ {
		if !same {
			nd.Buf = binary.AppendUvarint(nd.Buf, uint64(len(fv[2*i])))
			nd.Buf = append(nd.Buf, fv[2*i]...)
			nd.LpBytes += listpack.StrSize(fv[2*i])
		}
		nd.Buf = binary.AppendUvarint(nd.Buf, uint64(len(fv[2*i+1])))
		nd.Buf = append(nd.Buf, fv[2*i+1]...)
		nd.LpBytes += listpack.StrSize(fv[2*i+1])
	}
	nd.LpBytes += listpack.IntSize(lpCount)
	nd.Entries = append(nd.Entries, Entry{ID: id, Off: uint32(off), N: uint32(len(nd.Buf) - off)})
	nd.Live++
	s.Length++
	s.EntriesAdded++
	s.LastID = id
	if s.Length == 1 {
		s.FirstID = id
	}
}

// Shrink drops the spare capacity of a node that will not grow again.
func (nd *Node) Shrink() {
	if cap(nd.Buf) > len(nd.Buf) {
		nd.Buf = append([]byte(nil), nd.Buf...)
	}
	if cap(nd.Entries) > len(nd.Entries) {
		nd.Entries = append([]Entry(nil), nd.Entries...)
	}
}

// nodeLast is the ID of the last entry of a node, tombstones included
// (lpGetEdgeStreamID).
func (nd *Node) LastID() ID { return nd.Entries[len(nd.Entries)-1].ID }

// SeekFwd returns the position (node, index) of the first entry with
// id >= start, tombstones included; node == len(nodes) at the end.
func (s *Stream) SeekFwd(start ID) (int, int) {
	ni := sort.Search(len(s.Nodes), func(i int) bool { return s.Nodes[i].LastID().Cmp(start) >= 0 })
	if ni == len(s.Nodes) {
		return ni, 0
	}
	es := s.Nodes[ni].Entries
	ei := sort.Search(len(es), func(i int) bool { return es[i].ID.Cmp(start) >= 0 })
	return ni, ei
}

// SeekRev returns the position of the last entry with id <= end; ni = -1
// when there is none.
func (s *Stream) SeekRev(end ID) (int, int) {
	ni := sort.Search(len(s.Nodes), func(i int) bool { return s.Nodes[i].Entries[0].ID.Cmp(end) > 0 }) - 1
	if ni < 0 {
		return -1, 0
	}
	es := s.Nodes[ni].Entries
	ei := sort.Search(len(es), func(i int) bool { return es[i].ID.Cmp(end) > 0 }) - 1
	return ni, ei
}

// RangeFwd calls fn for live entries in [start,end] ascending until fn
// returns false.
func (s *Stream) RangeFwd(start, end ID, fn func(nd *Node, e *Entry) bool) {
	ni, ei := s.SeekFwd(start)
	for ; ni < len(s.Nodes); ni, ei = ni+1, 0 {
		nd := s.Nodes[ni]
		es := nd.Entries
		for ; ei < len(es); ei++ {
			e := &es[ei]
			if e.Deleted() {
				continue
			}
			if e.ID.Cmp(end) > 0 {
				return
			}
			if !fn(nd, e) {
				return
			}
		}
	}
}

// RangeRev is rangeFwd descending.
func (s *Stream) RangeRev(start, end ID, fn func(nd *Node, e *Entry) bool) {
	ni, ei := s.SeekRev(end)
	for ; ni >= 0; ni-- {
		nd := s.Nodes[ni]
		es := nd.Entries
		if ei < 0 {
			ei = len(es) - 1
		}
		for ; ei >= 0; ei-- {
			e := &es[ei]
			if e.Deleted() {
				continue
			}
			if e.ID.Cmp(start) < 0 {
				return
			}
			if !fn(nd, e) {
				return
			}
		}
		ei = -1
	}
}

// Lookup returns the live entry with this ID.
func (s *Stream) Lookup(id ID) (*Node, *Entry) {
	ni, ei := s.SeekFwd(id)
	if ni == len(s.Nodes) {
		return nil, nil
	}
	es := s.Nodes[ni].Entries
	if ei < len(es) && es[ei].ID == id && !es[ei].Deleted() {
		return s.Nodes[ni], &es[ei]
	}
	return nil, nil
}

// DeleteItem is streamDeleteItem: it tombstones a live entry, dropping
// its node when that was the node's last live entry.
func (s *Stream) DeleteItem(id ID) bool {
	ni, ei := s.SeekFwd(id)
	if ni == len(s.Nodes) {
		return false
	}
	nd := s.Nodes[ni]
	if ei >= len(nd.Entries) || nd.Entries[ei].ID != id || nd.Entries[ei].Deleted() {
		return false
	}
	if nd.Live == 1 {
		copy(s.Nodes[ni:], s.Nodes[ni+1:])
		s.Nodes[len(s.Nodes)-1] = nil
		s.Nodes = s.Nodes[:len(s.Nodes)-1]
	} else {
		nd.Entries[ei].N = 0
		nd.LpBytes += listpack.IntSize(int64(nd.Live-1)) - listpack.IntSize(int64(nd.Live))
		nd.LpBytes += listpack.IntSize(int64(nd.Deleted+1)) - listpack.IntSize(int64(nd.Deleted))
		nd.Live--
		nd.Deleted++
	}
	s.Length--
	return true
}

// LastValidID is streamLastValidID (0-0 for an empty stream).
func (s *Stream) LastValidID() ID {
	var id ID
	s.RangeRev(ID{}, MaxID, func(_ *Node, e *Entry) bool { id = e.ID; return false })
	return id
}

// EdgeID is streamGetEdgeID. Without skipTombstones it reads the first
// (last) entry of the first (last) node, deleted or not.
func (s *Stream) EdgeID(first, skipTombstones bool) ID {
	if len(s.Nodes) == 0 {
		if first {
			return MaxID
		}
		return ID{}
	}
	if !skipTombstones {
		if first {
			return s.Nodes[0].Entries[0].ID
		}
		return s.Nodes[len(s.Nodes)-1].LastID()
	}
	found := false
	var id ID
	if first {
		s.RangeFwd(ID{}, MaxID, func(_ *Node, e *Entry) bool { id = e.ID; found = true; return false })
	} else {
		s.RangeRev(ID{}, MaxID, func(_ *Node, e *Entry) bool { id = e.ID; found = true; return false })
	}
	if !found {
		if first {
			return MaxID
		}
		return ID{}
	}
	return id
}

const (
	TrimNone = iota
	TrimMaxlen
	TrimMinID
)

// TrimArgs are XADD/XTRIM's trimming options (streamParseAddOrTrimArgs).
type TrimArgs struct {
	Strategy int
	ArgIdx   int // index of the threshold argument
	Approx   bool
	Limit    int64
	Maxlen   int64
	MinID    ID
}

// Trim is streamTrim; it returns the number of entries removed.
func (s *Stream) Trim(a *TrimArgs) int64 {
	if a.Strategy == TrimNone {
		return 0
	}
	var deleted int64
	for len(s.Nodes) > 0 {
		if a.Strategy == TrimMaxlen && s.Length <= uint64(a.Maxlen) {
			break
		}
		nd := s.Nodes[0]
		entries := int64(nd.Live)
		if a.Limit > 0 && deleted+entries > a.Limit {
			break
		}
		var remove bool
		if a.Strategy == TrimMaxlen {
			remove = int64(s.Length)-entries >= a.Maxlen
		} else {
			remove = nd.LastID().Cmp(a.MinID) < 0
		}
		if remove {
			s.Nodes[0] = nil
			s.Nodes = s.Nodes[1:]
			s.Length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.Approx {
			break
		}
		var fromNode int
		for i := range nd.Entries {
			e := &nd.Entries[i]
			var stop bool
			if a.Strategy == TrimMaxlen {
				stop = s.Length <= uint64(a.Maxlen)
			} else {
				stop = e.ID.Cmp(a.MinID) >= 0
			}
			if stop {
				break
			}
			if !e.Deleted() {
				e.N = 0
				fromNode++
				s.Length--
			}
		}
		deleted += int64(fromNode)
		nd.LpBytes += listpack.IntSize(int64(nd.Live-fromNode)) - listpack.IntSize(int64(nd.Live))
		nd.LpBytes += listpack.IntSize(int64(nd.Deleted+fromNode)) - listpack.IntSize(int64(nd.Deleted))
		nd.Live -= fromNode
		nd.Deleted += fromNode
		break
	}
	if s.Length == 0 {
		s.FirstID = ID{}
	} else {
		s.FirstID = s.EdgeID(true, true)
	}
	return deleted
}

// RangeHasTombstones is streamRangeHasTombstones (end nil = max).
func (s *Stream) RangeHasTombstones(start ID, end *ID) bool {
	if s.Length == 0 || s.MaxDeletedID.IsZero() {
		return false
	}
	if s.FirstID.Cmp(s.MaxDeletedID) > 0 {
		return false
	}
	e := MaxID
	if end != nil {
		e = *end
	}
	return start.Cmp(s.MaxDeletedID) <= 0 && s.MaxDeletedID.Cmp(e) <= 0
}

// EstimateDistance is streamEstimateDistanceFromFirstEverEntry.
func (s *Stream) EstimateDistance(id ID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	if s.Length == 0 && id.Cmp(s.LastID) < 1 {
		return int64(s.EntriesAdded)
	}
	cmpLast := id.Cmp(s.LastID)
	if cmpLast == 0 {
		return int64(s.EntriesAdded)
	} else if cmpLast > 0 {
		return InvalidEntriesRead
	}
	cmpFirst := id.Cmp(s.FirstID)
	if s.MaxDeletedID.IsZero() || s.MaxDeletedID.Cmp(s.FirstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.EntriesAdded - s.Length)
		} else if cmpFirst == 0 {
			return int64(s.EntriesAdded - s.Length + 1)
		}
	}
	return InvalidEntriesRead
}

// Lag is what streamReplyWithCGLag computes; ok=false means null.
func (s *Stream) Lag(g *CG) (int64, bool) {
	if s.EntriesAdded == 0 {
		return 0, true
	}
	if g.EntriesRead != InvalidEntriesRead && !s.RangeHasTombstones(g.LastID, nil) {
		return int64(s.EntriesAdded) - g.EntriesRead, true
	}
	if er := s.EstimateDistance(g.LastID); er != InvalidEntriesRead {
		return int64(s.EntriesAdded) - er, true
	}
	return 0, false
}

// ----------------------------------------------------------- groups / PEL

type NACK struct {
	DeliveryTime  int64
	DeliveryCount uint64
	Consumer      *Consumer
}

// Consumer is one consumer of a group, with its own pending entries.
type Consumer struct {
	Name     []byte
	SeenTime int64
	Pel      *PEL
}

// CG is a consumer group.
type CG struct {
	Name        []byte
	LastID      ID
	EntriesRead int64
	Pel         *PEL
	Consumers   map[string]*Consumer
}

// PEL is an ordered map ID -> *NACK: a hash map plus a
// sorted ID slice from which removed IDs are dropped lazily.
type PEL struct {
	m    map[ID]*NACK
	ids  []ID
	dead int
}

// NewPEL is an empty pending entries list.
func NewPEL() *PEL { return &PEL{m: map[ID]*NACK{}} }

// Len is the number of pending entries.
func (p *PEL) Len() int { return len(p.m) }

// Get is id's pending entry, or nil.
func (p *PEL) Get(id ID) *NACK { return p.m[id] }

// Insert adds id; it reports false (and changes nothing) if present.
func (p *PEL) Insert(id ID, n *NACK) bool {
	if _, ok := p.m[id]; ok {
		return false
	}
	p.m[id] = n
	if k := len(p.ids); k == 0 || p.ids[k-1].Cmp(id) < 0 {
		p.ids = append(p.ids, id)
		return true
	}
	i := sort.Search(len(p.ids), func(i int) bool { return p.ids[i].Cmp(id) >= 0 })
	if i < len(p.ids) && p.ids[i] == id {
		p.dead-- // a removed ID comes back
		return true
	}
	p.ids = append(p.ids, ID{})
	copy(p.ids[i+1:], p.ids[i:])
	p.ids[i] = id
	return true
}

// Remove drops id.
func (p *PEL) Remove(id ID) {
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
			p.ids[i] = ID{}
		}
		p.ids = out
		p.dead = 0
	}
}

// Ceil returns the first present ID >= id.
func (p *PEL) Ceil(id ID) (ID, *NACK, bool) {
	i := sort.Search(len(p.ids), func(i int) bool { return p.ids[i].Cmp(id) >= 0 })
	for ; i < len(p.ids); i++ {
		if n, ok := p.m[p.ids[i]]; ok {
			return p.ids[i], n, true
		}
	}
	return ID{}, nil, false
}

// First and last present IDs.
func (p *PEL) First() (ID, bool) {
	id, _, ok := p.Ceil(ID{})
	return id, ok
}

// Last is the greatest pending ID, if any.
func (p *PEL) Last() (ID, bool) {
	for i := len(p.ids) - 1; i >= 0; i-- {
		if _, ok := p.m[p.ids[i]]; ok {
			return p.ids[i], true
		}
	}
	return ID{}, false
}

// Each visits present IDs >= start in order until fn returns false. fn
// must not insert into p (removing the visited ID is fine).
func (p *PEL) Each(start ID, fn func(id ID, n *NACK) bool) {
	cur := start
	for {
		id, n, ok := p.Ceil(cur)
		if !ok || !fn(id, n) {
			return
		}
		next, ok := id.Incr()
		if !ok {
			return
		}
		cur = next
	}
}

// LookupCG is the group named name, or nil.
func (s *Stream) LookupCG(name []byte) *CG {
	if s.Groups == nil {
		return nil
	}
	return s.Groups[string(name)]
}

// CreateCG adds a group; nil if one has that name already.
func (s *Stream) CreateCG(name []byte, id ID, entriesRead int64) *CG {
	if s.Groups == nil {
		s.Groups = map[string]*CG{}
	}
	if _, ok := s.Groups[string(name)]; ok {
		return nil
	}
	g := &CG{Name: clone(name), LastID: id, EntriesRead: entriesRead, Pel: NewPEL(), Consumers: map[string]*Consumer{}}
	s.Groups[string(name)] = g
	return g
}

// SortedGroups returns the groups in name order (Redis keeps them in a rax).
func (s *Stream) SortedGroups() []*CG {
	out := make([]*CG, 0, len(s.Groups))
	for _, g := range s.Groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i].Name) < string(out[j].Name) })
	return out
}

// SortedConsumers are the group's consumers by name.
func (g *CG) SortedConsumers() []*Consumer {
	out := make([]*Consumer, 0, len(g.Consumers))
	for _, c := range g.Consumers {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i].Name) < string(out[j].Name) })
	return out
}

// LookupConsumer is the consumer named name, or nil; with refresh its
// seen time becomes now.
func (g *CG) LookupConsumer(name []byte, refresh bool, now int64) *Consumer {
	c := g.Consumers[string(name)]
	if c != nil && refresh {
		c.SeenTime = now
	}
	return c
}

// CreateConsumer adds a consumer; nil if one has that name already.
func (g *CG) CreateConsumer(name []byte, now int64) *Consumer {
	if _, ok := g.Consumers[string(name)]; ok {
		return nil
	}
	c := &Consumer{Name: clone(name), SeenTime: now, Pel: NewPEL()}
	g.Consumers[string(name)] = c
	return c
}

// DelConsumer removes a consumer and its pending entries; it returns how
// many were pending.
func (g *CG) DelConsumer(name []byte) int {
	c := g.Consumers[string(name)]
	if c == nil {
		return 0
	}
	n := c.Pel.Len()
	c.Pel.Each(ID{}, func(id ID, _ *NACK) bool {
		g.Pel.Remove(id)
		return true
	})
	delete(g.Consumers, string(name))
	return n
}

// ------------------------------------------------------- clone / RDB form

// Clone is streamDup: nodes (tombstones included) and groups are copied
// as they are.
func (s *Stream) Clone() *Stream {
	out := &Stream{Length: s.Length, LastID: s.LastID, FirstID: s.FirstID, MaxDeletedID: s.MaxDeletedID, EntriesAdded: s.EntriesAdded}
	out.Nodes = make([]*Node, len(s.Nodes))
	for i, nd := range s.Nodes {
		c := *nd
		c.Entries = append([]Entry(nil), nd.Entries...)
		c.Buf = append([]byte(nil), nd.Buf...)
		out.Nodes[i] = &c // master fields are immutable, so they are shared
	}
	for _, g := range s.Groups {
		ng := out.CreateCG(g.Name, g.LastID, g.EntriesRead)
		for _, c := range g.Consumers {
			ng.Consumers[string(c.Name)] = &Consumer{Name: clone(c.Name), SeenTime: c.SeenTime, Pel: NewPEL()}
		}
		g.Pel.Each(ID{}, func(id ID, n *NACK) bool {
			c := ng.Consumers[string(n.Consumer.Name)]
			nn := &NACK{DeliveryTime: n.DeliveryTime, DeliveryCount: n.DeliveryCount, Consumer: c}
			ng.Pel.Insert(id, nn)
			c.Pel.Insert(id, nn)
			return true
		})
	}
	return out
}

// IDToRDB is id in the rdb package's form.
func IDToRDB(id ID) rdb.StreamID { return rdb.StreamID{Ms: id.Ms, Seq: id.Seq} }

// IDFromRDB is an rdb package ID as an ID.
func IDFromRDB(id rdb.StreamID) ID { return ID{id.Ms, id.Seq} }

// ToRDB is the stream as an RDB value.
func (s *Stream) ToRDB() *rdb.Value {
	st := &rdb.Stream{
		LastID:       IDToRDB(s.LastID),
		FirstID:      IDToRDB(s.FirstID),
		MaxDeletedID: IDToRDB(s.MaxDeletedID),
		EntriesAdded: s.EntriesAdded,
	}
	st.Entries = make([]rdb.StreamEntry, 0, s.Length)
	s.RangeFwd(ID{}, MaxID, func(nd *Node, e *Entry) bool {
		fields := make([][2][]byte, 0, nd.NumFields(e))
		nd.EachField(e, func(f, v []byte) { fields = append(fields, [2][]byte{f, v}) })
		st.Entries = append(st.Entries, rdb.StreamEntry{ID: IDToRDB(e.ID), Fields: fields})
		return true
	})
	for _, g := range s.SortedGroups() {
		rg := rdb.StreamGroup{Name: g.Name, LastID: IDToRDB(g.LastID), EntriesRead: g.EntriesRead}
		g.Pel.Each(ID{}, func(id ID, n *NACK) bool {
			rg.PEL = append(rg.PEL, rdb.StreamPending{ID: IDToRDB(id), DeliveryTime: n.DeliveryTime, DeliveryCount: n.DeliveryCount, Consumer: n.Consumer.Name})
			return true
		})
		for _, c := range g.SortedConsumers() {
			rg.Consumers = append(rg.Consumers, rdb.StreamConsumer{Name: c.Name, SeenTime: c.SeenTime, ActiveTime: c.SeenTime})
		}
		st.Groups = append(st.Groups, rg)
	}
	return &rdb.Value{Kind: rdb.KindStream, Encoding: rdb.EncStream, Stream: st}
}

// FromRDB rebuilds a stream, its nodes split by lim.
func FromRDB(v *rdb.Value, lim NodeLimits) *Stream {
	s := New()
	st := v.Stream
	if st == nil {
		return s
	}
	for _, e := range st.Entries {
		fv := make([][]byte, 0, 2*len(e.Fields))
		for _, p := range e.Fields {
			fv = append(fv, p[0], p[1])
		}
		s.AppendItem(IDFromRDB(e.ID), fv, lim)
	}
	s.LastID = IDFromRDB(st.LastID)
	s.EntriesAdded = st.EntriesAdded
	s.MaxDeletedID = IDFromRDB(st.MaxDeletedID)
	if s.Length > 0 {
		s.FirstID = s.EdgeID(true, true)
	} else {
		s.FirstID = ID{}
	}
	for _, rg := range st.Groups {
		g := s.CreateCG(rg.Name, IDFromRDB(rg.LastID), rg.EntriesRead)
		if g == nil {
			continue
		}
		for _, rc := range rg.Consumers {
			g.Consumers[string(rc.Name)] = &Consumer{Name: clone(rc.Name), SeenTime: rc.SeenTime, Pel: NewPEL()}
		}
		for _, p := range rg.PEL {
			c := g.Consumers[string(p.Consumer)]
			if c == nil {
				c = &Consumer{Name: clone(p.Consumer), SeenTime: p.DeliveryTime, Pel: NewPEL()}
				g.Consumers[string(p.Consumer)] = c
			}
			n := &NACK{DeliveryTime: p.DeliveryTime, DeliveryCount: p.DeliveryCount, Consumer: c}
			id := IDFromRDB(p.ID)
			g.Pel.Insert(id, n)
			c.Pel.Insert(id, n)
		}
	}
	return s
}

// clone is an owned copy of b (never nil).
func clone(b []byte) []byte { return append([]byte{}, b...) }
