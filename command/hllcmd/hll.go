// Package hllcmd is the HyperLogLog command group (Redis's hyperloglog.c):
// PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST, on package hll's
// representation, written against the seam of package command.
package hllcmd

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/hll"
	"github.com/aofserver/aofserver/rstring"
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

// Group is the "hyperloglog" group, as the server registers it (the
// category is each command's own: PFSELFTEST is not @write or @read).
var Group = command.Group{Name: "hyperloglog", Category: "@hyperloglog", Commands: []command.Spec{
	pf("pfadd", -2, command.FlagWrite|command.FlagDenyOOM|command.FlagFast, 1, 1, pfaddCommand,
		"Adds the specified elements to the specified HyperLogLog.", "@write", "@fast"),
	pf("pfcount", -2, command.FlagReadonly, 1, -1, pfcountCommand,
		"Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", "@read", "@slow"),
	pf("pfmerge", -2, command.FlagWrite|command.FlagDenyOOM, 1, -1, pfmergeCommand,
		"Merge N different HyperLogLogs into a single one.", "@write", "@slow"),
	pf("pfdebug", 3, command.FlagWrite|command.FlagDenyOOM|command.FlagAdmin, 2, 2, pfdebugCommand,
		"Internal commands for debugging HyperLogLog values", "@write", "@admin", "@slow", "@dangerous"),
	pf("pfselftest", 1, command.FlagAdmin, 0, 0, pfselftestCommand,
		"An internal command for testing HyperLogLog values", "@admin", "@slow", "@dangerous"),
}}

func pf(name string, arity int, flags command.Flag, first, last int, proc command.Proc, summary string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: 1, Proc: proc, Summary: summary, Since: "2.8.9", ACL: acl}
}

// hllCheck replies the right error and returns false unless b, the value
// of a key found, is an HLL.
func hllCheck(c command.Ctx, b []byte, isString bool) bool {
	if !isString {
		c.Err(command.ErrWrongType)
		return false
	}
	if !hll.Valid(b) {
		c.Err(errHLLWrongType)
		return false
	}
	return true
}

// ---------------------------------------------------------------------------
// Commands

func pfaddCommand(c command.Ctx, argv [][]byte) {
	key := argv[1]
	var rs *[]byte
	updated := 0
	if v, isString, found := c.LookupWriteString(key); !found {
		rs = c.AddRawString(key, hll.New())
		updated++
	} else {
		if !hllCheck(c, v, isString) {
			return
		}
		rs = c.UnshareString(key)
	}
	maxBytes := c.Config().HLLSparseMaxBytes
	for _, ele := range argv[2:] {
		switch hll.Add(rs, ele, maxBytes) {
		case 1:
			updated++
		case -1:
			c.Err(errHLLInvalid)
			return
		}
	}
	if updated > 0 {
		c.SignalModifiedKey(key)
		c.Notify(command.NotifyString, "pfadd", key)
		c.AddDirty(int64(updated))
		hll.InvalidateCache(*rs)
	}
	if updated > 0 {
		c.Integer(1)
	} else {
		c.Integer(0)
	}
}

func pfcountCommand(c command.Ctx, argv [][]byte) {
	if len(argv) > 2 {
		// Cardinality of the union.
		var max [hll.Registers]uint8
		for _, key := range argv[1:] {
			v, isString, ok := c.LookupReadString(key)
			if !ok {
				continue
			}
			if !hllCheck(c, v, isString) {
				return
			}
			if !hll.Merge(&max, v) {
				c.Err(errHLLInvalid)
				return
			}
		}
		var h [64]int
		for _, v := range max {
			h[v]++
		}
		c.Integer(int64(hll.CountHisto(&h)))
		return
	}
	key := argv[1]
	v, isString, ok := c.LookupReadString(key)
	if !ok {
		c.Integer(0)
		return
	}
	if !hllCheck(c, v, isString) {
		return
	}
	rs := c.UnshareString(key)
	b := *rs
	if b[15]&0x80 == 0 {
		c.Integer(int64(binary.LittleEndian.Uint64(b[8:16])))
		return
	}
	card, valid := hll.Count(b)
	if !valid {
		c.Err(errHLLInvalid)
		return
	}
	// The cache update modifies the value: Redis counts it as a change
	// (so PFCOUNT is propagated) although PFCOUNT is a read command.
	c.BeforeModify(key)
	binary.LittleEndian.PutUint64((*rs)[8:16], card)
	c.SignalModifiedKey(key)
	c.AddDirty(1)
	c.Integer(int64(card))
}

func pfmergeCommand(c command.Ctx, argv [][]byte) {
	var max [hll.Registers]uint8
	useDense := false
	for _, key := range argv[1:] {
		v, isString, ok := c.LookupReadString(key)
		if !ok {
			continue
		}
		if !hllCheck(c, v, isString) {
			return
		}
		if v[4] == hll.Dense {
			useDense = true
		}
		if !hll.Merge(&max, v) {
			c.Err(errHLLInvalid)
			return
		}
	}
	key := argv[1]
	var rs *[]byte
	if _, _, found := c.LookupWriteString(key); !found {
		rs = c.AddRawString(key, hll.New())
	} else {
		rs = c.UnshareString(key)
	}
	if useDense {
		dense, ok := hll.SparseToDense(*rs)
		if !ok {
			c.Err(errHLLInvalid)
			return
		}
		*rs = dense
	}
	maxBytes := c.Config().HLLSparseMaxBytes
	for j, v := range max {
		if v == 0 {
			continue
		}
		switch (*rs)[4] {
		case hll.Dense:
			hll.DenseSet((*rs)[hll.HdrSize:], j, v)
		case hll.Sparse:
			hll.SparseSet(rs, j, v, maxBytes)
		}
	}
	hll.InvalidateCache(*rs)
	c.SignalModifiedKey(key)
	c.Notify(command.NotifyString, "pfadd", key)
	c.AddDirty(1)
	c.OK()
}

func pfdebugCommand(c command.Ctx, argv [][]byte) {
	sub := argv[1]
	v, isString, found := c.LookupWriteString(argv[2])
	if !found {
		c.Err("ERR The specified key does not exist")
		return
	}
	if !hllCheck(c, v, isString) {
		return
	}
	rs := c.UnshareString(argv[2])
	switch {
	case rstring.EqualFold(sub, "getreg"):
		if (*rs)[4] == hll.Sparse {
			dense, ok := hll.SparseToDense(*rs)
			if !ok {
				c.Err(errHLLInvalid)
				return
			}
			*rs = dense
			c.AddDirty(1) // force propagation on encoding change
		}
		regs := (*rs)[hll.HdrSize:]
		c.ArrayLen(hll.Registers)
		for j := 0; j < hll.Registers; j++ {
			c.Integer(int64(hll.DenseGet(regs, j)))
		}
	case rstring.EqualFold(sub, "decode"):
		b := *rs
		if b[4] != hll.Sparse {
			c.Err("ERR HLL encoding is not sparse")
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
		c.BulkString(strings.TrimRight(sb.String(), " "))
	case rstring.EqualFold(sub, "encoding"):
		if (*rs)[4] == hll.Dense {
			c.Status("dense")
		} else {
			c.Status("sparse")
		}
	case rstring.EqualFold(sub, "todense"):
		conv := int64(0)
		if (*rs)[4] == hll.Sparse {
			dense, ok := hll.SparseToDense(*rs)
			if !ok {
				c.Err(errHLLInvalid)
				return
			}
			*rs = dense
			conv = 1
			c.AddDirty(1)
		}
		c.Integer(conv)
	default:
		c.Err("ERR Unknown PFDEBUG subcommand '" + string(rstring.CString(sub)) + "'")
	}
}

// pfselftestCommand checks the register accessors and that the sparse and
// dense representations agree (a lighter version of Redis's test).
func pfselftestCommand(c command.Ctx, argv [][]byte) {
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
				c.Err("TESTFAILED Register " + strconv.Itoa(i) + " should be " + strconv.Itoa(int(want[i])) +
					" but is " + strconv.Itoa(int(v)))
				return
			}
		}
	}
	dense := make([]byte, hll.DenseSize)
	copy(dense, "HYLL")
	sparse := hll.New()
	maxBytes := c.Config().HLLSparseMaxBytes
	seed := rng.Uint64()
	var ele [8]byte
	checkpoint := 1
	for j := 1; j <= 100000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		hll.Add(&dense, ele[:], maxBytes)
		hll.Add(&sparse, ele[:], maxBytes)
		if j != checkpoint {
			continue
		}
		if int64(j) < maxBytes/2 && sparse[4] != hll.Sparse {
			c.Err("TESTFAILED sparse encoding not used")
			return
		}
		cd, _ := hll.Count(dense)
		cs, _ := hll.Count(sparse)
		if cd != cs {
			c.Err("TESTFAILED dense/sparse disagree")
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
			c.Err("TESTFAILED Too big error. card:" + strconv.Itoa(j) + " abserr:" + strconv.FormatInt(abserr, 10))
			return
		}
		checkpoint *= 10
	}
	c.OK()
}
