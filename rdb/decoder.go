package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Visitor receives the contents of an RDB stream in file order. Returning
// an error stops Decode, which returns that error unchanged.
type Visitor interface {
	Aux(key, val []byte) error
	SelectDB(db int) error
	ResizeDB(dbSize, expiresSize uint64) error
	Function(code []byte) error
	// Key is called for every non-empty key. expireMs is -1 if the key has
	// no TTL. key and v are freshly allocated and may be retained.
	Key(db int, key []byte, v *Value, expireMs int64) error
}

// DecodeOptions tune Decode.
type DecodeOptions struct {
	MaxDatabases int // 0 = no check; otherwise SELECTDB >= MaxDatabases is an error
	// Deep and Limits are as in PayloadOptions: Redis sanitizes a file it
	// loads only under sanitize-dump-payload yes.
	Deep   bool
	Limits *Limits
}

// byteSource is what the decoder reads from: a *bufio.Reader for files, a
// *bytes.Reader for DUMP payloads.
type byteSource interface {
	io.Reader
	io.ByteReader
}

// readChunk bounds the allocation made ahead of data that has not arrived.
const readChunk = 1 << 16

type decoder struct {
	src byteSource
	off int64
	crc uint64
	ver int
	key string // key being read, for error context

	deep bool    // sanitize-dump-payload's deep checks (see readObject)
	lim  *Limits // the loading server's encoding limits; nil = unknown
}

func (d *decoder) corrupt(err error) error {
	return &CorruptionError{Offset: d.off, Key: d.key, Err: err}
}

func (d *decoder) eof(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return d.corrupt(err)
}

func (d *decoder) readByte() (byte, error) {
	b, err := d.src.ReadByte()
	if err != nil {
		return 0, d.eof(err)
	}
	d.crc = crc64Tab[0][byte(d.crc)^b] ^ d.crc>>8
	d.off++
	return b, nil
}

func (d *decoder) readFull(p []byte) error {
	n, err := io.ReadFull(d.src, p)
	d.crc = CRC64(d.crc, p[:n])
	d.off += int64(n)
	if err != nil {
		return d.eof(err)
	}
	return nil
}

// readBytes reads n bytes, growing the buffer only as data arrives, so a
// corrupt length cannot make us allocate much more than the input holds.
func (d *decoder) readBytes(n uint64) ([]byte, error) {
	if n <= readChunk {
		b := make([]byte, n)
		return b, d.readFull(b)
	}
	b := make([]byte, 0, readChunk)
	for uint64(len(b)) < n {
		step := uint64(max(len(b), readChunk))
		if rem := n - uint64(len(b)); step > rem {
			step = rem
		}
		have := len(b)
		b = append(b, make([]byte, step)...)
		if err := d.readFull(b[have:]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// readLen reads a length; encoded reports the 11xxxxxx special form, in
// which case the value is the encoding id.
func (d *decoder) readLen() (n uint64, encoded bool, err error) {
	b, err := d.readByte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3F), false, nil
	case 1:
		b2, err := d.readByte()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3F)<<8 | uint64(b2), false, nil
	case lenEncVal:
		return uint64(b & 0x3F), true, nil
	}
	var buf [8]byte
	switch b {
	case len32:
		if err := d.readFull(buf[:4]); err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(buf[:4])), false, nil
	case len64:
		if err := d.readFull(buf[:8]); err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(buf[:8]), false, nil
	}
	return 0, false, d.corrupt(fmt.Errorf("%w 0x%02x", errBadLength, b))
}

// readCount reads a plain length (special encodings are corruption).
func (d *decoder) readCount() (uint64, error) {
	n, enc, err := d.readLen()
	if err == nil && enc {
		err = d.corrupt(errBadLength)
	}
	return n, err
}

// readString reads an RDB string in any encoding.
func (d *decoder) readString() ([]byte, error) {
	n, enc, err := d.readLen()
	if err != nil {
		return nil, err
	}
	if !enc {
		return d.readBytes(n)
	}
	return d.readStringEncoded(n)
}

// readStringEncoded reads the body of a string in special encoding n.
func (d *decoder) readStringEncoded(n uint64) ([]byte, error) {
	var buf [4]byte
	switch n {
	case encInt8:
		b, err := d.readByte()
		if err != nil {
			return nil, err
		}
		return formatInt(int64(int8(b))), nil
	case encInt16:
		if err := d.readFull(buf[:2]); err != nil {
			return nil, err
		}
		return formatInt(int64(int16(binary.LittleEndian.Uint16(buf[:])))), nil
	case encInt32:
		if err := d.readFull(buf[:4]); err != nil {
			return nil, err
		}
		return formatInt(int64(int32(binary.LittleEndian.Uint32(buf[:])))), nil
	case encLZF:
		clen, err := d.readCount()
		if err != nil {
			return nil, err
		}
		ulen, err := d.readCount()
		if err != nil {
			return nil, err
		}
		if ulen/lzfMaxRatio > clen {
			return nil, d.corrupt(errBadLZF)
		}
		comp, err := d.readBytes(clen)
		if err != nil {
			return nil, err
		}
		out := make([]byte, ulen)
		if !lzfDecompress(comp, out) {
			return nil, d.corrupt(errBadLZF)
		}
		return out, nil
	}
	return nil, d.corrupt(fmt.Errorf("%w %d", errBadStringEnc, n))
}

// Decode reads one RDB stream from r and stops right after the 8-byte
// checksum (version >= 5), so the caller can keep reading an AOF RESP tail
// from the same bufio.Reader. n is the number of bytes consumed.
func Decode(r *bufio.Reader, v Visitor, opt DecodeOptions) (n int64, err error) {
	d := &decoder{src: r, deep: opt.Deep, lim: opt.Limits}
	err = d.run(v, opt)
	return d.off, err
}

func (d *decoder) run(vis Visitor, opt DecodeOptions) error {
	var magic [9]byte
	if err := d.readFull(magic[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && d.off < 5 {
			return &CorruptionError{Offset: 0, Err: errBadSignature}
		}
		return err
	}
	if string(magic[:5]) != "REDIS" {
		return &CorruptionError{Offset: 0, Err: errBadSignature}
	}
	// atoi: leading digits only.
	ver := 0
	for _, c := range magic[5:] {
		if c < '0' || c > '9' {
			break
		}
		ver = ver*10 + int(c-'0')
	}
	if ver < 1 || ver > rdbVersion {
		return &VersionError{Version: ver}
	}
	d.ver = ver

	db := 0
	expire := int64(-1)
	// Module values are skipped so the visitor sees every other key; the
	// first one is reported once the whole file checks out.
	var unsupported *UnsupportedTypeError
	for {
		d.key = ""
		typeOff := d.off
		t, err := d.readByte()
		if err != nil {
			return err
		}
		switch t {
		case opExpireTimeMs:
			var b [8]byte
			if err := d.readFull(b[:]); err != nil {
				return err
			}
			expire = int64(binary.LittleEndian.Uint64(b[:]))
		case opExpireTime:
			var b [4]byte
			if err := d.readFull(b[:]); err != nil {
				return err
			}
			expire = int64(int32(binary.LittleEndian.Uint32(b[:]))) * 1000
		case opIdle:
			if _, err := d.readCount(); err != nil {
				return err
			}
		case opFreq:
			if _, err := d.readByte(); err != nil {
				return err
			}
		case opSelectDB:
			n, err := d.readCount()
			if err != nil {
				return err
			}
			if n > math.MaxInt32 || (opt.MaxDatabases > 0 && n >= uint64(opt.MaxDatabases)) {
				return fmt.Errorf("rdb: at offset %d: data file was created with a Redis server configured to handle more than %d databases",
					typeOff, opt.MaxDatabases)
			}
			db = int(n)
			if err := vis.SelectDB(db); err != nil {
				return err
			}
		case opResizeDB:
			size, err := d.readCount()
			if err != nil {
				return err
			}
			exp, err := d.readCount()
			if err != nil {
				return err
			}
			if err := vis.ResizeDB(size, exp); err != nil {
				return err
			}
		case opAux:
			k, err := d.readString()
			if err != nil {
				return err
			}
			val, err := d.readString()
			if err != nil {
				return err
			}
			if err := vis.Aux(k, val); err != nil {
				return err
			}
		case opModuleAux:
			ue := &UnsupportedTypeError{Offset: typeOff, Type: t, Name: typeName(t)}
			if _, err := d.skipUnsupported(t); err != nil {
				return err
			}
			unsupported = noteUnsupported(unsupported, ue)
		case opFunction2:
			code, err := d.readString()
			if err != nil {
				return err
			}
			if err := vis.Function(code); err != nil {
				return err
			}
		case opFunction:
			code, err := d.readOldFunction()
			if err != nil {
				return err
			}
			if err := vis.Function(code); err != nil {
				return err
			}
		case opEOF:
			if d.ver < 5 {
				if unsupported != nil {
					return unsupported
				}
				return nil
			}
			want := d.crc
			var b [8]byte
			if err := d.readFull(b[:]); err != nil {
				return err
			}
			got := binary.LittleEndian.Uint64(b[:])
			if got != 0 && got != want {
				return &CorruptionError{Offset: d.off - 8, Err: &checksumError{want: want, got: got}}
			}
			if unsupported != nil {
				return unsupported
			}
			return nil
		default:
			key, err := d.readString()
			if err != nil {
				return err
			}
			d.key = string(key)
			v, err := d.readObject(t, typeOff)
			if ue, ok := err.(*UnsupportedTypeError); ok {
				skipped, serr := d.skipUnsupported(t)
				if serr != nil {
					return serr
				}
				unsupported = noteUnsupported(unsupported, ue)
				if !skipped {
					return unsupported
				}
				expire = -1
				continue
			}
			if err != nil {
				return err
			}
			if v != nil { // empty collections are skipped, as Redis does
				if err := vis.Key(db, key, v, expire); err != nil {
					return err
				}
			}
			expire = -1
		}
	}
}

// readOldFunction reads the 7.0-rc FUNCTION opcode body (name, engine,
// optional description, code) and returns the code in the 7.0 GA form,
// with the "#!<engine> name=<name>" shebang line Redis adds when loading it.
func (d *decoder) readOldFunction() ([]byte, error) {
	name, err := d.readString()
	if err != nil {
		return nil, err
	}
	engine, err := d.readString()
	if err != nil {
		return nil, err
	}
	hasDesc, err := d.readCount()
	if err != nil {
		return nil, err
	}
	if hasDesc != 0 {
		if _, err := d.readString(); err != nil {
			return nil, err
		}
	}
	blob, err := d.readString()
	if err != nil {
		return nil, err
	}
	code := make([]byte, 0, len(engine)+len(name)+len(blob)+10)
	code = append(code, "#!"...)
	code = append(code, engine...)
	code = append(code, " name="...)
	code = append(code, name...)
	code = append(code, '\n')
	return append(code, blob...), nil
}

func noteUnsupported(first, ue *UnsupportedTypeError) *UnsupportedTypeError {
	if first == nil {
		first = ue
	}
	if ue.Key != "" {
		first.Keys = append(first.Keys, ue.Key)
	}
	return first
}
