package rdb

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/aofserver/aofserver/listpack"
	"github.com/aofserver/aofserver/rstring"
)

// Stream entry flags inside a node listpack (t_stream.c).
const (
	streamFlagDeleted    = 1 << 0
	streamFlagSameFields = 1 << 1
)

// Causes of stream corruption (inside CorruptionError).
var (
	errStreamNodeKey      = errors.New("Stream node key entry is not the size of a stream ID")
	errStreamEmptyNode    = errors.New("Empty listpack inside stream")
	errStreamListpack     = errors.New("Stream listpack integrity check failed.")
	errStreamOrder        = errors.New("stream entry IDs are not in ascending order")
	errStreamNodeCount    = errors.New("stream node entry counts do not match its entries")
	errStreamLength       = errors.New("stream length does not match its entries")
	errStreamLastID       = errors.New("stream last ID is smaller than its last entry")
	errStreamDupGroup     = errors.New("Duplicated consumer group name")
	errStreamDupPEL       = errors.New("Duplicated global PEL entry loading stream consumer group")
	errStreamDupConsumer  = errors.New("Duplicate stream consumer detected")
	errStreamPELNotFound  = errors.New("Consumer entry not found in group global PEL")
	errStreamPELTwice     = errors.New("Duplicated consumer PEL entry loading a stream consumer group")
	errStreamPELNoConsumr = errors.New("Stream CG PEL entry without consumer")
)

// streamReadError is a short read inside a stream. Redis's loader reports
// it with its own message (rdbReportReadError), which redis-check-rdb
// prints with the rdb.c line of 7.0.15; it still matches
// io.ErrUnexpectedEOF.
type streamReadError struct {
	line int
	msg  string
}

func (e *streamReadError) Error() string { return e.msg + " (unexpected EOF)" }
func (e *streamReadError) Unwrap() error { return io.ErrUnexpectedEOF }

// Redis 7.0.15's messages for short reads in rdbLoadObject's stream branch.
var (
	srNodes       = &streamReadError{2327, "Stream listpacks len loading failed."}
	srNodeKey     = &streamReadError{2338, "Stream master ID loading failed: invalid encoding or I/O error."}
	srListpack    = &streamReadError{2355, "Stream listpacks loading failed."}
	srMeta        = &streamReadError{2424, "Stream object metadata loading failed."}
	srGroups      = &streamReadError{2438, "Stream cgroup count loading failed."}
	srGroupName   = &streamReadError{2449, "Error reading the consumer group name from Stream"}
	srGroupID     = &streamReadError{2458, "Stream cgroup ID loading failed."}
	srGroupOffset = &streamReadError{2469, "Stream cgroup offset loading failed."}
	srPELSize     = &streamReadError{2495, "Stream PEL size loading failed."}
	srPELID       = &streamReadError{2502, "Stream PEL ID loading failed."}
	srPELNack     = &streamReadError{2510, "Stream PEL NACK loading failed."}
	srConsumers   = &streamReadError{2527, "Stream consumers num loading failed."}
	srConsName    = &streamReadError{2534, "Error reading the consumer name from Stream group."}
	srSeenTime    = &streamReadError{2549, "Stream short read reading seen time."}
	srConsPELSize = &streamReadError{2558, "Stream consumer PEL num loading failed."}
	srConsPELID   = &streamReadError{2566, "Stream short read reading PEL streamID."}
)

// sr turns a short read into Redis's message for the read being done;
// other errors pass unchanged.
func sr(err error, what *streamReadError) error {
	var ce *CorruptionError
	if err != nil && errors.Is(err, io.ErrUnexpectedEOF) && errors.As(err, &ce) {
		ce.Err = what
	}
	return err
}

// scgInvalidEntriesRead is SCG_INVALID_ENTRIES_READ.
const scgInvalidEntriesRead = -1

// CompareStreamID orders stream IDs like Redis's streamCompareID.
func CompareStreamID(a, b StreamID) int {
	if c := cmp.Compare(a.Ms, b.Ms); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}

func decodeStreamID(b []byte) StreamID {
	return StreamID{Ms: binary.BigEndian.Uint64(b[:8]), Seq: binary.BigEndian.Uint64(b[8:16])}
}

func appendStreamID(dst []byte, id StreamID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

// lpElem is one listpack element: a string (sub-slice of the listpack,
// capacity capped) or an integer.
type lpElem struct {
	s     []byte
	v     int64
	isInt bool
}

func (e lpElem) bytes() []byte {
	if e.isInt {
		return formatInt(e.v)
	}
	return e.s
}

// int returns the element as an integer, accepting a string holding a
// canonical integer as Redis's lpGetIntegerIfValid does.
func (e lpElem) int() (int64, bool) {
	if e.isInt {
		return e.v, true
	}
	return rstring.String2ll(e.s)
}

func lpElems(p []byte, dst []lpElem) ([]lpElem, error) {
	_, err := listpack.Each(p, func(s []byte, v int64, isInt bool) error {
		dst = append(dst, lpElem{s: s, v: v, isInt: isInt})
		return nil
	})
	return dst, err
}

// streamNode parses one node listpack (already split into elements) with
// master ID master, appending its live entries to s.Entries. prev is the
// ID of the entry before this node (live or deleted); have tells if
// there is one. It returns the ID of the node's last entry.
func streamNode(s *Stream, master StreamID, el []lpElem, prev StreamID, have bool) (StreamID, error) {
	pos := 0
	nextInt := func() (int64, bool) {
		if pos >= len(el) {
			return 0, false
		}
		v, ok := el[pos].int()
		pos++
		return v, ok
	}
	// take returns the next n elements as strings.
	take := func(n int64) ([][]byte, bool) {
		if n < 0 || n > int64(len(el)-pos) {
			return nil, false
		}
		out := make([][]byte, n)
		for i := range out {
			out[i] = el[pos].bytes()
			pos++
		}
		return out, true
	}
	count, ok1 := nextInt()
	deleted, ok2 := nextInt()
	nf, ok3 := nextInt()
	if !ok1 || !ok2 || !ok3 || count < 0 || deleted < 0 {
		return prev, errStreamListpack
	}
	masterFields, ok := take(nf)
	if !ok {
		return prev, errStreamListpack
	}
	if z, ok := nextInt(); !ok || z != 0 {
		return prev, errStreamListpack
	}
	// Every entry takes at least 4 elements.
	if count+deleted > int64(len(el)-pos)/4 {
		return prev, errStreamListpack
	}
	var live, dead int64
	for n := count + deleted; n > 0; n-- {
		flags, ok1 := nextInt()
		msd, ok2 := nextInt()
		seqd, ok3 := nextInt()
		if !ok1 || !ok2 || !ok3 {
			return prev, errStreamListpack
		}
		same := flags&streamFlagSameFields != 0
		fields, extra, width := nf, int64(3), int64(1)
		if !same {
			// num-fields, then field/value pairs
			if fields, ok = nextInt(); !ok {
				return prev, errStreamListpack
			}
			extra += fields + 1
			width = 2
		}
		if fields < 0 || fields > int64(len(el)-pos)/width {
			return prev, errStreamListpack
		}
		id := StreamID{Ms: master.Ms + uint64(msd), Seq: master.Seq + uint64(seqd)}
		if CompareStreamID(id, master) < 0 || (have && CompareStreamID(id, prev) <= 0) {
			return prev, errStreamOrder
		}
		prev, have = id, true
		if flags&streamFlagDeleted != 0 {
			pos += int(fields * width)
			dead++
		} else {
			fv := make([][2][]byte, fields)
			for i := range fv {
				if same {
					fv[i] = [2][]byte{masterFields[i], el[pos].bytes()}
				} else {
					fv[i] = [2][]byte{el[pos].bytes(), el[pos+1].bytes()}
				}
				pos += int(width)
			}
			s.Entries = append(s.Entries, StreamEntry{ID: id, Fields: fv})
			live++
		}
		if lc, ok := nextInt(); !ok || lc != fields+extra {
			return prev, errStreamListpack
		}
	}
	if pos != len(el) {
		return prev, errStreamListpack
	}
	if live != count || dead != deleted {
		return prev, errStreamNodeCount
	}
	return prev, nil
}

func (d *decoder) readStreamID() (StreamID, error) {
	ms, err := d.readCount()
	if err != nil {
		return StreamID{}, err
	}
	seq, err := d.readCount()
	return StreamID{Ms: ms, Seq: seq}, err
}

func (d *decoder) readRawStreamID() (StreamID, error) {
	var b [16]byte
	if err := d.readFull(b[:]); err != nil {
		return StreamID{}, err
	}
	return decodeStreamID(b[:]), nil
}

func (d *decoder) readMillis() (int64, error) {
	var b [8]byte
	if err := d.readFull(b[:]); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(b[:])), nil
}

// readStream reads a stream of RDB type 15, 19 or 21 (rdbLoadObject). An
// empty stream is a valid value (Redis keeps it), so it is never nil.
func (d *decoder) readStream(t byte) (*Value, error) {
	s := &Stream{}
	nodes, err := d.readCount()
	if err != nil {
		return nil, sr(err, srNodes)
	}
	var elems []lpElem
	var prev StreamID
	have := false
	for i := uint64(0); i < nodes; i++ {
		key, err := d.readString()
		if err != nil {
			return nil, sr(err, srNodeKey)
		}
		if len(key) != 16 {
			return nil, d.corrupt(errStreamNodeKey)
		}
		master := decodeStreamID(key)
		lp, err := d.readString()
		if err != nil {
			return nil, sr(err, srListpack)
		}
		if elems, err = lpElems(lp, elems[:0]); err != nil {
			return nil, d.corrupt(fmt.Errorf("%w (%w)", errStreamListpack, err))
		}
		if len(elems) == 0 {
			return nil, d.corrupt(errStreamEmptyNode)
		}
		if have && CompareStreamID(master, prev) <= 0 {
			return nil, d.corrupt(errStreamOrder)
		}
		if prev, err = streamNode(s, master, elems, prev, have); err != nil {
			return nil, d.corrupt(err)
		}
		have = true
	}
	clear(elems)
	length, err := d.readCount()
	if err != nil {
		return nil, sr(err, srMeta)
	}
	if length != uint64(len(s.Entries)) {
		return nil, d.corrupt(errStreamLength)
	}
	if s.LastID, err = d.readStreamID(); err != nil {
		return nil, sr(err, srMeta)
	}
	if t == typeStreamListpacks {
		// Redis derives what RDB 10 stores: entries_added is the length,
		// no deletion is known, the first ID is the first live entry (or
		// the maximal ID for an empty stream, as streamGetEdgeID gives).
		s.EntriesAdded = length
		s.FirstID = StreamID{Ms: math.MaxUint64, Seq: math.MaxUint64}
		if len(s.Entries) > 0 {
			s.FirstID = s.Entries[0].ID
		}
	} else {
		if s.FirstID, err = d.readStreamID(); err != nil {
			return nil, sr(err, srMeta)
		}
		if s.MaxDeletedID, err = d.readStreamID(); err != nil {
			return nil, sr(err, srMeta)
		}
		if s.EntriesAdded, err = d.readCount(); err != nil {
			return nil, sr(err, srMeta)
		}
	}
	if n := len(s.Entries); n > 0 && CompareStreamID(s.Entries[n-1].ID, s.LastID) > 0 {
		return nil, d.corrupt(errStreamLastID)
	}
	ngroups, err := d.readCount()
	if err != nil {
		return nil, sr(err, srGroups)
	}
	s.Groups = make([]StreamGroup, 0, capHint(ngroups))
	for i := uint64(0); i < ngroups; i++ {
		g, err := d.readStreamGroup(t, s)
		if err != nil {
			return nil, err
		}
		s.Groups = append(s.Groups, g)
	}
	slices.SortFunc(s.Groups, func(a, b StreamGroup) int { return bytes.Compare(a.Name, b.Name) })
	for i := 1; i < len(s.Groups); i++ {
		if bytes.Equal(s.Groups[i-1].Name, s.Groups[i].Name) {
			return nil, d.corrupt(fmt.Errorf("%w %s", errStreamDupGroup, s.Groups[i].Name))
		}
	}
	if len(s.Groups) == 0 {
		s.Groups = nil
	}
	return &Value{Kind: KindStream, Encoding: EncStream, Stream: s}, nil
}

func (d *decoder) readStreamGroup(t byte, s *Stream) (StreamGroup, error) {
	var g StreamGroup
	var err error
	if g.Name, err = d.readString(); err != nil {
		return g, sr(err, srGroupName)
	}
	if g.LastID, err = d.readStreamID(); err != nil {
		return g, sr(err, srGroupID)
	}
	if t == typeStreamListpacks {
		g.EntriesRead = streamEstimateEntriesRead(s, g.LastID)
	} else {
		n, err := d.readCount()
		if err != nil {
			return g, sr(err, srGroupOffset)
		}
		g.EntriesRead = int64(n) // all-ones is SCG_INVALID_ENTRIES_READ
	}
	npel, err := d.readCount()
	if err != nil {
		return g, sr(err, srPELSize)
	}
	g.PEL = make([]StreamPending, 0, capHint(npel))
	for i := uint64(0); i < npel; i++ {
		var p StreamPending
		if p.ID, err = d.readRawStreamID(); err != nil {
			return g, sr(err, srPELID)
		}
		if p.DeliveryTime, err = d.readMillis(); err != nil {
			return g, sr(err, srPELNack)
		}
		if p.DeliveryCount, err = d.readCount(); err != nil {
			return g, sr(err, srPELNack)
		}
		g.PEL = append(g.PEL, p)
	}
	slices.SortFunc(g.PEL, func(a, b StreamPending) int { return CompareStreamID(a.ID, b.ID) })
	for i := 1; i < len(g.PEL); i++ {
		if g.PEL[i-1].ID == g.PEL[i].ID {
			return g, d.corrupt(errStreamDupPEL)
		}
	}
	ncons, err := d.readCount()
	if err != nil {
		return g, sr(err, srConsumers)
	}
	g.Consumers = make([]StreamConsumer, 0, capHint(ncons))
	for i := uint64(0); i < ncons; i++ {
		var c StreamConsumer
		if c.Name, err = d.readString(); err != nil {
			return g, sr(err, srConsName)
		}
		if c.SeenTime, err = d.readMillis(); err != nil {
			return g, sr(err, srSeenTime)
		}
		c.ActiveTime = c.SeenTime
		if t == typeStreamListpacks3 {
			if c.ActiveTime, err = d.readMillis(); err != nil {
				return g, sr(err, srSeenTime)
			}
		}
		n, err := d.readCount()
		if err != nil {
			return g, sr(err, srConsPELSize)
		}
		for j := uint64(0); j < n; j++ {
			id, err := d.readRawStreamID()
			if err != nil {
				return g, sr(err, srConsPELID)
			}
			k, found := slices.BinarySearchFunc(g.PEL, id, func(p StreamPending, id StreamID) int { return CompareStreamID(p.ID, id) })
			if !found {
				return g, d.corrupt(errStreamPELNotFound)
			}
			if g.PEL[k].Consumer != nil {
				return g, d.corrupt(errStreamPELTwice)
			}
			g.PEL[k].Consumer = c.Name
		}
		g.Consumers = append(g.Consumers, c)
	}
	for i := range g.PEL {
		if g.PEL[i].Consumer == nil {
			return g, d.corrupt(errStreamPELNoConsumr)
		}
	}
	slices.SortFunc(g.Consumers, func(a, b StreamConsumer) int { return bytes.Compare(a.Name, b.Name) })
	for i := 1; i < len(g.Consumers); i++ {
		if bytes.Equal(g.Consumers[i-1].Name, g.Consumers[i].Name) {
			return g, d.corrupt(errStreamDupConsumer)
		}
	}
	if len(g.PEL) == 0 {
		g.PEL = nil
	}
	if len(g.Consumers) == 0 {
		g.Consumers = nil
	}
	return g, nil
}

// streamEstimateEntriesRead is streamEstimateDistanceFromFirstEverEntry
// (t_stream.c), which Redis uses for groups loaded from RDB type 15.
func streamEstimateEntriesRead(s *Stream, id StreamID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	length := uint64(len(s.Entries))
	if length == 0 && CompareStreamID(id, s.LastID) < 1 {
		return int64(s.EntriesAdded)
	}
	switch c := CompareStreamID(id, s.LastID); {
	case c == 0:
		return int64(s.EntriesAdded)
	case c > 0:
		return scgInvalidEntriesRead
	}
	cmpFirst := CompareStreamID(id, s.FirstID)
	if s.MaxDeletedID == (StreamID{}) || CompareStreamID(s.MaxDeletedID, s.FirstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.EntriesAdded - length)
		} else if cmpFirst == 0 {
			return int64(s.EntriesAdded - length + 1)
		}
	}
	return scgInvalidEntriesRead
}
