package server

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/hll"
)

// HyperLogLog (PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST) with Redis
// 7.0's exact representation, so that an HLL string written by either
// server is read identically by the other:
//
//	header (16 bytes): "HYLL", encoding (0 dense, 1 sparse), 3 unused
//	bytes, cached cardinality (64-bit little endian; bit 63 set = stale).
//	dense: 16384 6-bit registers packed LSB first (12288 bytes).
//	sparse: run-length opcodes ZERO 00xxxxxx (1..64 zero registers),
//	XZERO 01xxxxxx yyyyyyyy (1..16384 zero registers), VAL 1vvvvvxx
//	(value 1..32 repeated 1..4 times).
//
// HLLs are plain strings: they are kept as raw (growable) strings and
// modified in place after the snapshot hook has run, as Redis modifies its
// unshared sds.

const (
	errHLLInvalid   = "INVALIDOBJ Corrupted HLL object detected"
	errHLLWrongType = "WRONGTYPE Key is not a valid HyperLogLog string value."
)

func init() {
	hll := func(name string, arity int, flags uint64, first, last int, proc cmdProc, summary string, acl ...string) *command {
		return &command{name: name, arity: arity, flags: flags, firstKey: first, lastKey: last, step: 1, proc: proc,
			group: "hyperloglog", summary: summary, since: "2.8.9", acl: acl}
	}
	register(
		hll("pfadd", -2, cmdWrite|cmdDenyOOM|cmdFast, 1, 1, pfaddCommand,
			"Adds the specified elements to the specified HyperLogLog.", "@write", "@hyperloglog", "@fast"),
		hll("pfcount", -2, cmdReadonly, 1, -1, pfcountCommand,
			"Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", "@read", "@hyperloglog", "@slow"),
		hll("pfmerge", -2, cmdWrite|cmdDenyOOM, 1, -1, pfmergeCommand,
			"Merge N different HyperLogLogs into a single one.", "@write", "@hyperloglog", "@slow"),
		hll("pfdebug", 3, cmdWrite|cmdDenyOOM|cmdAdmin, 2, 2, pfdebugCommand,
			"Internal commands for debugging HyperLogLog values", "@write", "@hyperloglog", "@admin", "@slow", "@dangerous"),
		hll("pfselftest", 1, cmdAdmin, 0, 0, pfselftestCommand,
			"An internal command for testing HyperLogLog values", "@hyperloglog", "@admin", "@slow", "@dangerous"),
	)
}

// hllSparseMaxBytes is the hll-sparse-max-bytes directive.
func (s *Server) hllSparseMaxBytes() int64 { return s.cfg.HLLSparseMaxBytes }

// hllCheck replies the right error and returns false unless e is an HLL.
func hllCheck(c *client, e entry) bool {
	if e.typ() != typString {
		c.errWrongType()
		return false
	}
	if !hll.Valid(e.str()) {
		c.err(errHLLWrongType)
		return false
	}
	return true
}

// unshareString makes the string at p a raw (modifiable) string, as
// Redis's dbUnshareStringValue, keeping LRU and snapshot mark.
func unshareString(p *entry) *rawString {
	if rs := p.rawString(); rs != nil {
		return rs
	}
	cur := p.str()
	b := make([]byte, len(cur), len(cur)+8)
	copy(b, cur)
	lru, mark := p.lru(), p.snapMark()
	*p = newRawStringEntry(b)
	p.setLRU(lru)
	p.setSnapMark(mark)
	return p.rawString()
}

// ---------------------------------------------------------------------------
// Commands

func pfaddCommand(c *client, argv [][]byte) {
	s := c.srv
	key := argv[1]
	var rs *rawString
	updated := 0
	p := s.lookupWrite(c, key)
	if p == nil {
		e := newRawStringEntry(hll.New())
		rs = e.rawString()
		s.addKey(c.db, key, e)
		updated++
	} else {
		if !hllCheck(c, *p) {
			return
		}
		rs = unshareString(p)
	}
	maxBytes := s.hllSparseMaxBytes()
	for _, ele := range argv[2:] {
		switch hll.Add(&rs.b, ele, maxBytes) {
		case 1:
			updated++
		case -1:
			c.err(errHLLInvalid)
			return
		}
	}
	if updated > 0 {
		s.signalModifiedKey(c.db, key)
		s.notify(notifyString, "pfadd", key, c.db.id)
		s.dirty += int64(updated)
		hll.InvalidateCache(rs.b)
	}
	if updated > 0 {
		c.integer(1)
	} else {
		c.integer(0)
	}
}

func pfcountCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) > 2 {
		// Cardinality of the union.
		var max [hll.Registers]uint8
		for _, key := range argv[1:] {
			e, ok := s.lookupRead(c, key)
			if !ok {
				continue
			}
			if !hllCheck(c, e) {
				return
			}
			if !hll.Merge(&max, e.str()) {
				c.err(errHLLInvalid)
				return
			}
		}
		var h [64]int
		for _, v := range max {
			h[v]++
		}
		c.integer(int64(hll.CountHisto(&h)))
		return
	}
	key := argv[1]
	e, ok := s.lookupRead(c, key)
	if !ok {
		c.integer(0)
		return
	}
	if !hllCheck(c, e) {
		return
	}
	p := c.db.keys.GetPtr(bstr(key))
	rs := unshareString(p)
	b := rs.b
	if b[15]&0x80 == 0 {
		c.integer(int64(binary.LittleEndian.Uint64(b[8:16])))
		return
	}
	card, valid := hll.Count(b)
	if !valid {
		c.err(errHLLInvalid)
		return
	}
	// The cache update modifies the value: Redis counts it as a change
	// (so PFCOUNT is propagated) although PFCOUNT is a read command.
	s.beforeModify(c.db, bstr(key))
	binary.LittleEndian.PutUint64(rs.b[8:16], card)
	s.signalModifiedKey(c.db, key)
	s.dirty++
	c.integer(int64(card))
}

func pfmergeCommand(c *client, argv [][]byte) {
	s := c.srv
	var max [hll.Registers]uint8
	useDense := false
	for _, key := range argv[1:] {
		e, ok := s.lookupRead(c, key)
		if !ok {
			continue
		}
		if !hllCheck(c, e) {
			return
		}
		if e.str()[4] == hll.Dense {
			useDense = true
		}
		if !hll.Merge(&max, e.str()) {
			c.err(errHLLInvalid)
			return
		}
	}
	key := argv[1]
	var rs *rawString
	if p := s.lookupWrite(c, key); p == nil {
		e := newRawStringEntry(hll.New())
		rs = e.rawString()
		s.addKey(c.db, key, e)
	} else {
		rs = unshareString(p)
	}
	if useDense {
		dense, ok := hll.SparseToDense(rs.b)
		if !ok {
			c.err(errHLLInvalid)
			return
		}
		rs.b = dense
	}
	maxBytes := s.hllSparseMaxBytes()
	for j, v := range max {
		if v == 0 {
			continue
		}
		switch rs.b[4] {
		case hll.Dense:
			hll.DenseSet(rs.b[hll.HdrSize:], j, v)
		case hll.Sparse:
			hll.SparseSet(&rs.b, j, v, maxBytes)
		}
	}
	hll.InvalidateCache(rs.b)
	s.signalModifiedKey(c.db, key)
	s.notify(notifyString, "pfadd", key, c.db.id)
	s.dirty++
	c.ok()
}

func pfdebugCommand(c *client, argv [][]byte) {
	s := c.srv
	sub := argv[1]
	p := s.lookupWrite(c, argv[2])
	if p == nil {
		c.err("ERR The specified key does not exist")
		return
	}
	if !hllCheck(c, *p) {
		return
	}
	rs := unshareString(p)
	switch {
	case eqFold(sub, "getreg"):
		if rs.b[4] == hll.Sparse {
			dense, ok := hll.SparseToDense(rs.b)
			if !ok {
				c.err(errHLLInvalid)
				return
			}
			rs.b = dense
			s.dirty++ // force propagation on encoding change
		}
		regs := rs.b[hll.HdrSize:]
		c.arrayLen(hll.Registers)
		for j := 0; j < hll.Registers; j++ {
			c.integer(int64(hll.DenseGet(regs, j)))
		}
	case eqFold(sub, "decode"):
		b := rs.b
		if b[4] != hll.Sparse {
			c.err("ERR HLL encoding is not sparse")
			return
		}
		var sb strings.Builder
		for q := hll.HdrSize; q < len(b); {
			op := b[q]
			switch {
			case hll.IsZero(op):
				sb.WriteString("z:")
				sb.WriteString(strconv.Itoa(hll.ZeroLen(op)))
				q++
			case hll.IsXZero(op):
				sb.WriteString("Z:")
				sb.WriteString(strconv.Itoa(hll.XZeroLen(b, q)))
				q += 2
			default:
				sb.WriteString("v:")
				sb.WriteString(strconv.Itoa(hll.ValValue(op)))
				sb.WriteByte(',')
				sb.WriteString(strconv.Itoa(hll.ValLen(op)))
				q++
			}
			sb.WriteByte(' ')
		}
		c.bulkString(strings.TrimRight(sb.String(), " "))
	case eqFold(sub, "encoding"):
		if rs.b[4] == hll.Dense {
			c.status("dense")
		} else {
			c.status("sparse")
		}
	case eqFold(sub, "todense"):
		conv := int64(0)
		if rs.b[4] == hll.Sparse {
			dense, ok := hll.SparseToDense(rs.b)
			if !ok {
				c.err(errHLLInvalid)
				return
			}
			rs.b = dense
			conv = 1
			s.dirty++
		}
		c.integer(conv)
	default:
		c.err("ERR Unknown PFDEBUG subcommand '" + string(cString(sub)) + "'")
	}
}

// pfselftestCommand checks the register accessors and that the sparse and
// dense representations agree (a lighter version of Redis's test).
func pfselftestCommand(c *client, argv [][]byte) {
	s := c.srv
	rng := rand.New(rand.NewSource(rand.Int63()))
	regs := make([]byte, hll.DenseSize-hll.HdrSize)
	var want [hll.Registers]uint8
	for cycle := 0; cycle < 20; cycle++ {
		for i := range want {
			want[i] = uint8(rng.Intn(hll.RegisterMax + 1))
			hll.DenseSetReg(regs, i, want[i])
		}
		for i := range want {
			if v := hll.DenseGet(regs, i); v != want[i] {
				c.err("TESTFAILED Register " + strconv.Itoa(i) + " should be " + strconv.Itoa(int(want[i])) +
					" but is " + strconv.Itoa(int(v)))
				return
			}
		}
	}
	dense := &rawString{b: make([]byte, hll.DenseSize)}
	copy(dense.b, "HYLL")
	sparse := &rawString{b: hll.New()}
	maxBytes := s.hllSparseMaxBytes()
	seed := rng.Uint64()
	var ele [8]byte
	checkpoint := 1
	for j := 1; j <= 100000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		hll.Add(&dense.b, ele[:], maxBytes)
		hll.Add(&sparse.b, ele[:], maxBytes)
		if j != checkpoint {
			continue
		}
		if int64(j) < maxBytes/2 && sparse.b[4] != hll.Sparse {
			c.err("TESTFAILED sparse encoding not used")
			return
		}
		cd, _ := hll.Count(dense.b)
		cs, _ := hll.Count(sparse.b)
		if cd != cs {
			c.err("TESTFAILED dense/sparse disagree")
			return
		}
		abserr := int64(j) - int64(cd)
		if abserr < 0 {
			abserr = -abserr
		}
		maxerr := int64(math.Ceil(1.04 / math.Sqrt(hll.Registers) * 6 * float64(j)))
		if j == 10 {
			maxerr = 1
		}
		if abserr > maxerr {
			c.err("TESTFAILED Too big error. card:" + strconv.Itoa(j) + " abserr:" + strconv.FormatInt(abserr, 10))
			return
		}
		checkpoint *= 10
	}
	c.ok()
}
