package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/aofserver/aofserver/listpack"
)

// StreamLimits are the stream-node-max-bytes and stream-node-max-entries
// directives, which decide how the encoder splits a stream's entries into
// listpack nodes (as XADD does). Zero means no limit, as in Redis (a node
// never exceeds 1 GiB).
type StreamLimits struct {
	NodeMaxBytes   int // 4096
	NodeMaxEntries int // 100
}

// DefaultStreamLimits returns Redis 7.0's defaults.
func DefaultStreamLimits() StreamLimits {
	return StreamLimits{NodeMaxBytes: 4096, NodeMaxEntries: 100}
}

// streamListpackMaxSize is STREAM_LISTPACK_MAX_SIZE.
const streamListpackMaxSize = 1 << 30

// checkStream reports why s cannot be written, or nil.
func checkStream(s *Stream) error {
	if s == nil {
		return fmt.Errorf("%w: stream without data", ErrInvalidValue)
	}
	for i := range s.Entries {
		if i > 0 && CompareStreamID(s.Entries[i-1].ID, s.Entries[i].ID) >= 0 {
			return fmt.Errorf("%w: stream entry %d-%d is not above the one before it", ErrInvalidValue, s.Entries[i].ID.Ms, s.Entries[i].ID.Seq)
		}
	}
	if n := len(s.Entries); n > 0 && CompareStreamID(s.Entries[n-1].ID, s.LastID) > 0 {
		return fmt.Errorf("%w: stream last ID is below its last entry", ErrInvalidValue)
	}
	for gi := range s.Groups {
		g := &s.Groups[gi]
		for j := range s.Groups[:gi] {
			if bytes.Equal(s.Groups[j].Name, g.Name) {
				return fmt.Errorf("%w: duplicate stream group %q", ErrInvalidValue, g.Name)
			}
		}
		names := make(map[string]bool, len(g.Consumers))
		for _, c := range g.Consumers {
			if names[string(c.Name)] {
				return fmt.Errorf("%w: duplicate consumer %q in group %q", ErrInvalidValue, c.Name, g.Name)
			}
			names[string(c.Name)] = true
		}
		for i, p := range g.PEL {
			if !names[string(p.Consumer)] {
				return fmt.Errorf("%w: pending entry %d-%d of group %q has no consumer", ErrInvalidValue, p.ID.Ms, p.ID.Seq, g.Name)
			}
			if i > 0 && CompareStreamID(g.PEL[i-1].ID, p.ID) >= 0 {
				return fmt.Errorf("%w: pending entries of group %q are not in ascending order", ErrInvalidValue, g.Name)
			}
		}
	}
	return nil
}

func sameFields(master [][]byte, fv [][2][]byte) bool {
	if len(master) != len(fv) {
		return false
	}
	for i := range fv {
		if !bytes.Equal(master[i], fv[i][0]) {
			return false
		}
	}
	return true
}

// streamNodeBounds splits entries into nodes the way a sequence of XADDs
// into a new key does (streamAppendItem): a new node starts when the tail
// node's listpack size plus the raw size of the new entry's fields and
// values reaches the byte limit, or when the node holds the entry limit.
// It appends the index of each node's first entry to bounds.
func streamNodeBounds(entries []StreamEntry, lim StreamLimits, bounds []int) []int {
	maxBytes := lim.NodeMaxBytes
	if maxBytes <= 0 || maxBytes > streamListpackMaxSize {
		maxBytes = streamListpackMaxSize
	}
	var master *StreamEntry
	rest, count := 0, 0 // listpack bytes except the count element; entries in the node
	for i := range entries {
		e := &entries[i]
		tot := 0
		for _, fv := range e.Fields {
			tot += len(fv[0]) + len(fv[1])
		}
		if master != nil {
			if rest+listpack.IntSize(int64(count))+tot >= maxBytes || (lim.NodeMaxEntries > 0 && count >= lim.NodeMaxEntries) {
				master = nil
			}
		}
		same := true
		if master == nil {
			bounds = append(bounds, i)
			master, count = e, 0
			rest = listpack.EmptySize + listpack.IntSize(0) + listpack.IntSize(int64(len(e.Fields))) + listpack.IntSize(0)
			for _, fv := range e.Fields {
				rest += listpack.StrSize(fv[0])
			}
		} else {
			same = len(master.Fields) == len(e.Fields)
			for j := 0; same && j < len(e.Fields); j++ {
				same = bytes.Equal(master.Fields[j][0], e.Fields[j][0])
			}
		}
		count++
		msd, seqd := int64(e.ID.Ms-master.ID.Ms), int64(e.ID.Seq-master.ID.Seq)
		flags, lpCount := int64(streamFlagSameFields), int64(len(e.Fields)+3)
		if !same {
			flags, lpCount = 0, lpCount+int64(len(e.Fields)+1)
			rest += listpack.IntSize(int64(len(e.Fields)))
		}
		rest += listpack.IntSize(flags) + listpack.IntSize(msd) + listpack.IntSize(seqd) + listpack.IntSize(lpCount)
		for _, fv := range e.Fields {
			if !same {
				rest += listpack.StrSize(fv[0])
			}
			rest += listpack.StrSize(fv[1])
		}
	}
	return bounds
}

// appendStreamNode builds the listpack of one node holding entries.
func (w *valueWriter) appendStreamNode(dst []byte, entries []StreamEntry) []byte {
	master := &entries[0]
	var key [16]byte
	dst = w.appendString(dst, appendStreamID(key[:0], master.ID))
	lp := &w.lp
	lp.Begin(w.blob)
	lp.AppendInt(int64(len(entries)))
	lp.AppendInt(0) // deleted
	lp.AppendInt(int64(len(master.Fields)))
	masterNames := make([][]byte, len(master.Fields))
	for i, fv := range master.Fields {
		lp.AppendString(fv[0])
		masterNames[i] = fv[0]
	}
	lp.AppendInt(0) // master entry terminator
	for i := range entries {
		e := &entries[i]
		same := sameFields(masterNames, e.Fields)
		n := int64(len(e.Fields))
		if same {
			lp.AppendInt(streamFlagSameFields)
		} else {
			lp.AppendInt(0)
		}
		lp.AppendInt(int64(e.ID.Ms - master.ID.Ms))
		lp.AppendInt(int64(e.ID.Seq - master.ID.Seq))
		if !same {
			lp.AppendInt(n)
		}
		for _, fv := range e.Fields {
			if !same {
				lp.AppendString(fv[0])
			}
			lp.AppendString(fv[1])
		}
		if same {
			lp.AppendInt(n + 3)
		} else {
			lp.AppendInt(2*n + 4)
		}
	}
	w.blob = lp.Finish()
	return w.appendString(dst, w.blob)
}

func appendLenID(dst []byte, id StreamID) []byte {
	return appendLen(appendLen(dst, id.Ms), id.Seq)
}

// appendStream writes a STREAM_LISTPACKS_2 body like rdbSaveObject, with
// the entries laid out in nodes as XADD would have built them.
func (w *valueWriter) appendStream(dst []byte, s *Stream) []byte {
	lim := DefaultStreamLimits()
	if w.streamLimits != nil {
		lim = *w.streamLimits
	}
	w.bounds = streamNodeBounds(s.Entries, lim, w.bounds[:0])
	dst = appendLen(dst, uint64(len(w.bounds)))
	for n, start := range w.bounds {
		end := len(s.Entries)
		if n+1 < len(w.bounds) {
			end = w.bounds[n+1]
		}
		dst = w.appendStreamNode(dst, s.Entries[start:end])
	}
	dst = appendLen(dst, uint64(len(s.Entries)))
	dst = appendLenID(dst, s.LastID)
	dst = appendLenID(dst, s.FirstID)
	dst = appendLenID(dst, s.MaxDeletedID)
	dst = appendLen(dst, s.EntriesAdded)

	dst = appendLen(dst, uint64(len(s.Groups)))
	groups := s.Groups
	byName := func(a, b StreamGroup) int { return bytes.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(groups, byName) {
		groups = slices.Clone(groups)
		slices.SortFunc(groups, byName)
	}
	for gi := range groups {
		g := &groups[gi]
		dst = w.appendString(dst, g.Name)
		dst = appendLenID(dst, g.LastID)
		dst = appendLen(dst, uint64(g.EntriesRead))
		dst = appendLen(dst, uint64(len(g.PEL)))
		owned := make(map[string][]StreamID, len(g.Consumers))
		for _, p := range g.PEL {
			dst = appendStreamID(dst, p.ID)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.DeliveryTime))
			dst = appendLen(dst, p.DeliveryCount)
			owned[string(p.Consumer)] = append(owned[string(p.Consumer)], p.ID)
		}
		consumers := g.Consumers
		byCName := func(a, b StreamConsumer) int { return bytes.Compare(a.Name, b.Name) }
		if !slices.IsSortedFunc(consumers, byCName) {
			consumers = slices.Clone(consumers)
			slices.SortFunc(consumers, byCName)
		}
		dst = appendLen(dst, uint64(len(consumers)))
		for _, c := range consumers {
			dst = w.appendString(dst, c.Name)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(c.SeenTime))
			ids := owned[string(c.Name)]
			dst = appendLen(dst, uint64(len(ids)))
			for _, id := range ids {
				dst = appendStreamID(dst, id)
			}
		}
	}
	return dst
}
