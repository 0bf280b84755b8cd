package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/aofserver/aofserver/rstring"
)

// CheckOptions tune Check.
type CheckOptions struct {
	// Now is the current time in Unix milliseconds, for the "already
	// expired" count.
	Now int64
	// Key, when set, receives every key that loads (including already
	// expired ones), as Visitor.Key does; an error stops the check and is
	// reported as an RDB error.
	Key func(db int, key []byte, v *Value, expireMs int64) error
}

// CheckResult summarizes a Check.
type CheckResult struct {
	OK bool
	// Terminated is set for corrupt content (not a short file, signature,
	// version, object type or checksum problem): Redis's loader then exits
	// on the spot ("Terminating server after rdb file reading failure."),
	// even inside redis-check-aof.
	Terminated     bool
	Offset         int64 // bytes consumed (right after the checksum when OK)
	Keys           uint64
	Expires        uint64
	AlreadyExpired uint64
}

// What redis-check-rdb says it was doing when an error struck
// (rdb_check_doing_string).
var checkDoing = [...]string{"start", "read-type", "read-expire", "read-key", "read-object-value", "check-sum", "read-len", "read-aux", "read-module-aux", "read-functions"}

const (
	doingStart = iota
	doingReadType
	doingReadExpire
	doingReadKey
	doingReadObjectValue
	doingCheckSum
	doingReadLen
	doingReadAux
	doingReadModuleAux
	doingReadFunctions
)

// Redis 7.0's rdb_type_string, indexed by RDB type byte.
var checkTypeNames = [...]string{"string", "list-linked", "set-hashtable", "zset-v1", "hash-hashtable", "zset-v2", "module-pre-release", "module-value", "", "hash-zipmap", "list-ziplist", "set-intset", "zset-ziplist", "hash-ziplist", "quicklist", "stream", "hash-listpack", "zset-listpack", "quicklist-v2"} // 7.0.15 has no name for 19: "unknown"

// wholeReader makes every Read all-or-nothing, like C's fread(buf,len,1,fp)
// in Redis's rio: a short read consumes nothing, so the offset reported for
// an unexpected EOF is where the failed read started, as redis-check-rdb
// prints it.
type wholeReader struct{ br *bufio.Reader }

func (w wholeReader) ReadByte() (byte, error) { return w.br.ReadByte() }

func (w wholeReader) Read(p []byte) (int, error) {
	if len(p) <= w.br.Size() {
		b, err := w.br.Peek(len(p))
		if len(b) < len(p) {
			if err == nil || err == io.EOF {
				err = io.EOF
			}
			return 0, err
		}
		return w.br.Read(p)
	}
	return w.br.Read(p)
}

type checker struct {
	d       *decoder
	w       io.Writer
	res     CheckResult
	doing   int
	key     []byte // key being read (nil between keys)
	keyType int    // -1 between keys; Redis starts at 0
}

func (c *checker) info(format string, args ...any) {
	fmt.Fprintf(c.w, "[offset %d] %s\n", c.d.off, fmt.Sprintf(format, args...))
}

func (c *checker) showInfo() {
	fmt.Fprintf(c.w, "[info] %d keys read\n", c.res.Keys)
	fmt.Fprintf(c.w, "[info] %d expires\n", c.res.Expires)
	fmt.Fprintf(c.w, "[info] %d already expired\n", c.res.AlreadyExpired)
}

func (c *checker) fail(msg string) {
	fmt.Fprintf(c.w, "--- RDB ERROR DETECTED ---\n")
	fmt.Fprintf(c.w, "[offset %d] %s\n", c.d.off, msg)
	fmt.Fprintf(c.w, "[additional info] While doing: %s\n", checkDoing[c.doing])
	if c.key != nil {
		fmt.Fprintf(c.w, "[additional info] Reading key '%s'\n", rstring.CString(c.key))
	}
	if c.keyType != -1 {
		fmt.Fprintf(c.w, "[additional info] Reading type %d (%s)\n", c.keyType, checkTypeName(c.keyType))
	}
	c.showInfo()
}

func checkTypeName(t int) string {
	if t >= 0 && t < len(checkTypeNames) {
		return checkTypeNames[t]
	}
	return "unknown"
}

// Check verifies one RDB stream read from r the way redis-check-rdb 7.0.15
// does, writing its report to w: "[offset 0] Checking RDB file <name>", an
// "[offset N] AUX FIELD k = 'v'" line per AUX field, "Selecting DB ID n",
// "Checksum OK", then "\o/ RDB looks OK! \o/" and the "[info]" counts, or
// "--- RDB ERROR DETECTED ---" with the offset, the step, the key and its
// type. Like Decode it stops right after the checksum, so an AOF's RESP tail
// can be read on from r. Error texts other than unexpected EOF, signature,
// version, object type and CRC are this package's own (Redis has one per
// encoding check); they come in Redis's "Internal error in RDB reading ..."
// frame and set Terminated.
func Check(r *bufio.Reader, name string, w io.Writer, opt CheckOptions) CheckResult {
	c := &checker{d: &decoder{src: wholeReader{r}}, w: w}
	c.info("Checking RDB file %s", name)
	if c.run(opt) {
		c.res.OK = true
		c.info("\\o/ RDB looks OK! \\o/")
		c.showInfo()
	}
	c.res.Offset = c.d.off
	return c.res
}

// failErr reports err: unexpected EOF as Redis words it, anything else with
// our message.
func (c *checker) failErr(err error) bool {
	var sre *streamReadError
	if errors.As(err, &sre) {
		// A short read inside a stream: Redis's loader reports it itself.
		c.fail(fmt.Sprintf("Internal error in RDB reading offset 0, function at rdb.c:%d -> %s", sre.line, sre.msg))
		c.res.Terminated = true
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		c.fail("Unexpected EOF reading RDB file")
		return false
	}
	msg := err.Error()
	var ce *CorruptionError
	if errors.As(err, &ce) {
		msg = ce.Err.Error()
	}
	// Redis's rdbReportCorruptRDB form, without its rdb.c line number.
	c.fail("Internal error in RDB reading offset 0, function at rdb.c -> " + msg)
	c.res.Terminated = true
	return false
}

func (c *checker) run(opt CheckOptions) bool {
	d := c.d
	var magic [9]byte
	if err := d.readFull(magic[:]); err != nil {
		d.off = 0
		return c.failErr(err)
	}
	if string(magic[:5]) != "REDIS" {
		c.fail("Wrong signature trying to load DB from file")
		return false
	}
	ver := 0
	for _, ch := range magic[5:] {
		if ch < '0' || ch > '9' {
			break
		}
		ver = ver*10 + int(ch-'0')
	}
	if ver < 1 || ver > rdbVersion {
		c.fail(fmt.Sprintf("Can't handle RDB format version %d", ver))
		return false
	}
	d.ver = ver
	db := 0
	expire := int64(-1)
	for {
		c.doing = doingReadType
		typeOff := d.off
		t, err := d.readByte()
		if err != nil {
			return c.failErr(err)
		}
		switch t {
		case opExpireTimeMs:
			c.doing = doingReadExpire
			var b [8]byte
			if err := d.readFull(b[:]); err != nil {
				return c.failErr(err)
			}
			expire = int64(binary.LittleEndian.Uint64(b[:]))
			continue
		case opExpireTime:
			c.doing = doingReadExpire
			var b [4]byte
			if err := d.readFull(b[:]); err != nil {
				return c.failErr(err)
			}
			expire = int64(int32(binary.LittleEndian.Uint32(b[:]))) * 1000
			continue
		case opFreq:
			if _, err := d.readByte(); err != nil {
				return c.failErr(err)
			}
			continue
		case opIdle:
			if _, err := d.readCount(); err != nil {
				return c.failErr(err)
			}
			continue
		case opEOF:
		case opSelectDB:
			c.doing = doingReadLen
			n, err := d.readCount()
			if err != nil {
				return c.failErr(err)
			}
			c.info("Selecting DB ID %d", n)
			db = int(n)
			continue
		case opResizeDB:
			c.doing = doingReadLen
			if _, err := d.readCount(); err != nil {
				return c.failErr(err)
			}
			if _, err := d.readCount(); err != nil {
				return c.failErr(err)
			}
			continue
		case opAux:
			c.doing = doingReadAux
			k, err := d.readString()
			if err != nil {
				return c.failErr(err)
			}
			v, err := d.readString()
			if err != nil {
				return c.failErr(err)
			}
			c.info("AUX FIELD %s = '%s'", rstring.CString(k), rstring.CString(v))
			continue
		case opModuleAux:
			c.doing = doingReadModuleAux
			if _, err := d.skipUnsupported(t); err != nil {
				return c.failErr(err)
			}
			continue
		case opFunction:
			c.fail(fmt.Sprintf("Pre-release function format not supported %d", ver))
			return false
		case opFunction2:
			c.doing = doingReadFunctions
			if _, err := d.readString(); err != nil {
				return c.failErr(err)
			}
			continue
		default:
			if !(t <= 7 || (t >= 9 && t <= 19)) {
				c.fail(fmt.Sprintf("Invalid object type: %d", t))
				return false
			}
			c.keyType = int(t)
		}
		if t == opEOF {
			break
		}
		c.doing = doingReadKey
		key, err := d.readString()
		if err != nil {
			return c.failErr(err)
		}
		c.key = key
		c.res.Keys++
		c.doing = doingReadObjectValue
		d.key = string(key)
		v, err := d.readObject(t, typeOff)
		if _, ok := err.(*UnsupportedTypeError); ok {
			skipped, serr := d.skipUnsupported(t)
			if serr != nil {
				return c.failErr(serr)
			}
			if !skipped {
				c.fail(fmt.Sprintf("The RDB file contains data of type %d (%s) this checker can't load", t, checkTypeName(int(t))))
				return false
			}
			v, err = nil, nil
		}
		if err != nil {
			return c.failErr(err)
		}
		if expire != -1 {
			if expire < opt.Now {
				c.res.AlreadyExpired++
			}
			c.res.Expires++
		}
		if v != nil && opt.Key != nil {
			if err := opt.Key(db, key, v, expire); err != nil {
				c.fail(err.Error())
				return false
			}
		}
		d.key = ""
		c.key = nil
		c.keyType = -1
		expire = -1
	}
	if ver < 5 {
		return true
	}
	c.doing = doingCheckSum
	want := d.crc
	var b [8]byte
	if err := d.readFull(b[:]); err != nil {
		return c.failErr(err)
	}
	switch got := binary.LittleEndian.Uint64(b[:]); {
	case got == 0:
		c.info("RDB file was saved with checksum disabled: no check performed.")
	case got != want:
		c.fail("RDB CRC error")
		return false
	default:
		c.info("Checksum OK")
	}
	return true
}
