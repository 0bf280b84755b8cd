package rdb

import (
	"encoding/binary"
	"io"
	"strconv"
	"sync"
)

// EncoderOptions mirror the redis.conf directives that change RDB bytes.
type EncoderOptions struct {
	Compression bool // rdbcompression: LZF for strings over 20 bytes when it saves at least 4 bytes
	Checksum    bool // rdbchecksum: real CRC-64 trailer, else 8 zero bytes
	Limits      Limits
	// StreamLimits split stream entries into nodes; nil means
	// DefaultStreamLimits (stream-node-max-bytes 4096, -entries 100).
	StreamLimits *StreamLimits
}

// Aux is one AUX field.
type Aux struct{ Key, Value []byte }

// maxKeepBuf is the largest scratch buffer an Encoder keeps between keys.
const maxKeepBuf = 1 << 20

// Encoder writes one RDB stream. Call Header, then SelectDB/Function/Key in
// file order, then Close. Not safe for concurrent use; errors are sticky.
type Encoder struct {
	w   io.Writer
	opt EncoderOptions
	vw  valueWriter
	buf []byte
	crc uint64
	n   int64
	err error
}

// NewEncoder returns an Encoder writing to w. It does not buffer beyond one
// key: wrap w in a bufio.Writer for many small keys.
func NewEncoder(w io.Writer, opt EncoderOptions) *Encoder {
	return &Encoder{w: w, opt: opt, vw: valueWriter{compression: opt.Compression, limits: opt.Limits, streamLimits: opt.StreamLimits}}
}

func (e *Encoder) flush() error {
	if e.err != nil {
		return e.err
	}
	n, err := e.w.Write(e.buf)
	e.n += int64(n)
	if e.opt.Checksum {
		e.crc = CRC64(e.crc, e.buf[:n])
	}
	if err == nil && n < len(e.buf) {
		err = io.ErrShortWrite
	}
	if cap(e.buf) > maxKeepBuf {
		e.buf = nil
	} else {
		e.buf = e.buf[:0]
	}
	e.err = err
	return err
}

// Header writes the magic "REDIS0010" and the AUX fields in the given
// order. Values that are canonical int32 decimals are integer-encoded.
func (e *Encoder) Header(aux []Aux) error {
	if e.err != nil {
		return e.err
	}
	e.buf = append(e.buf[:0], "REDIS0010"...)
	for _, a := range aux {
		e.buf = append(e.buf, opAux)
		e.buf = e.vw.appendString(e.buf, a.Key)
		e.buf = e.vw.appendString(e.buf, a.Value)
	}
	return e.flush()
}

// SelectDB writes SELECTDB db and RESIZEDB size expires.
func (e *Encoder) SelectDB(db int, size, expires uint64) error {
	if e.err != nil {
		return e.err
	}
	e.buf = append(e.buf[:0], opSelectDB)
	e.buf = appendLen(e.buf, uint64(db))
	e.buf = append(e.buf, opResizeDB)
	e.buf = appendLen(e.buf, size)
	e.buf = appendLen(e.buf, expires)
	return e.flush()
}

// Function writes one function library (FUNCTION2 opcode).
func (e *Encoder) Function(code []byte) error {
	if e.err != nil {
		return e.err
	}
	e.buf = append(e.buf[:0], opFunction2)
	e.buf = e.vw.appendString(e.buf, code)
	return e.flush()
}

// Key writes one key. expireMs < 0 means no TTL; otherwise it is the
// absolute unix time in milliseconds. An invalid value (see ErrInvalidValue)
// is reported without writing anything and is not sticky.
func (e *Encoder) Key(key []byte, v *Value, expireMs int64) error {
	if e.err != nil {
		return e.err
	}
	enc, err := e.vw.resolve(v)
	if err != nil {
		return &keyError{key: string(key), err: err}
	}
	e.buf = e.buf[:0]
	if expireMs >= 0 {
		e.buf = append(e.buf, opExpireTimeMs)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(expireMs))
	}
	e.buf = append(e.buf, typeByte(v.Kind, enc))
	e.buf = e.vw.appendString(e.buf, key)
	e.buf = e.vw.appendBody(e.buf, v, enc)
	return e.flush()
}

// Close writes the EOF opcode and the checksum (zero when Checksum is off).
// It does not close the underlying writer.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	e.buf = append(e.buf[:0], opEOF)
	if err := e.flush(); err != nil {
		return err
	}
	var crc uint64
	if e.opt.Checksum {
		crc = e.crc
	}
	e.buf = binary.LittleEndian.AppendUint64(e.buf[:0], crc)
	return e.flush()
}

// Written returns the number of bytes written so far.
func (e *Encoder) Written() int64 { return e.n }

// StandardAux returns the AUX fields Redis 7.0.15 writes for a save:
// redis-ver, redis-bits, ctime, used-mem and aof-base.
func StandardAux(ctime int64, usedMem int64, aofBase bool) []Aux {
	base := "0"
	if aofBase {
		base = "1"
	}
	return []Aux{
		{Key: []byte("redis-ver"), Value: []byte("7.0.15")},
		{Key: []byte("redis-bits"), Value: []byte("64")},
		{Key: []byte("ctime"), Value: strconv.AppendInt(nil, ctime, 10)},
		{Key: []byte("used-mem"), Value: strconv.AppendInt(nil, usedMem, 10)},
		{Key: []byte("aof-base"), Value: []byte(base)},
	}
}

type keyError struct {
	key string
	err error
}

func (e *keyError) Error() string { return "rdb: key " + strconv.Quote(e.key) + ": " + e.err.Error() }
func (e *keyError) Unwrap() error { return e.err }

// writerPool recycles valueWriters (and their 256 KiB LZF tables) for
// DumpPayload.
var writerPool = sync.Pool{New: func() any { return new(valueWriter) }}

// DumpPayload returns the DUMP serialization of v: <type><value>, the RDB
// version (u16 LE) and the CRC-64 (LE) of everything before. Checksum in
// opt is ignored: a payload always carries a real checksum, as in Redis.
// It returns nil for an invalid value (see AppendDumpPayload).
func DumpPayload(v *Value, opt EncoderOptions) []byte {
	p, err := AppendDumpPayload(nil, v, opt)
	if err != nil {
		return nil
	}
	return p
}

// AppendDumpPayload appends the DUMP serialization of v to dst.
func AppendDumpPayload(dst []byte, v *Value, opt EncoderOptions) ([]byte, error) {
	w := writerPool.Get().(*valueWriter)
	defer func() {
		if cap(w.blob) > maxKeepBuf {
			w.blob = nil
		}
		if cap(w.lzfOut) > maxKeepBuf {
			w.lzfOut = nil
		}
		writerPool.Put(w)
	}()
	w.compression, w.limits, w.streamLimits = opt.Compression, opt.Limits, opt.StreamLimits
	enc, err := w.resolve(v)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, typeByte(v.Kind, enc))
	dst = w.appendBody(dst, v, enc)
	dst = append(dst, rdbVersion, 0)
	return binary.LittleEndian.AppendUint64(dst, CRC64(0, dst[start:])), nil
}
