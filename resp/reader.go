package resp

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/aofserver/aofserver/memsize"
	"github.com/aofserver/aofserver/rstring"
)

// Request parsing lives on the connection goroutine (or the network
// loop), outside the executor. It never allocates according to a length
// the client announced: the buffer only grows as bytes really arrive.

const (
	protoInlineMaxSize = 64 * 1024 // PROTO_INLINE_MAX_SIZE
	protoIOBufLen      = 16 * 1024 // PROTO_IOBUF_LEN
	protoMbulkBigArg   = 32 * 1024 // PROTO_MBULK_BIG_ARG

	// Redis 7.0.15's (Debian's build) limits for a client that must still
	// authenticate: at most 10 arguments of at most 16384 bytes each.
	unauthMaxMultibulk = 10
	unauthMaxBulk      = 16384
)

// ProtocolError is replied as "-ERR Protocol error: <Msg>" and the
// connection is closed, as Redis does.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

// ErrQueryBufferLimit: the client's unparsed bytes reached
// client-query-buffer-limit (MaxQueryBuf); Redis closes the connection.
var ErrQueryBufferLimit = errors.New("query buffer limit reached")

// Reader accumulates bytes from a client and cuts them into commands.
// Parsed arguments alias its buffer until the next Reset.
type Reader struct {
	buf []byte
	end int // buf[:end] holds data
	pos int // next unparsed byte

	// state of a multibulk command in progress (starting at cmdStart)
	cmdStart int
	mbl      int // remaining bulk arguments, 0 if none in progress
	bulkLen  int // length of the next bulk, -1 if its header is not read yet
	marks    []int

	MaxBulk     int64 // proto-max-bulk-len
	MaxQueryBuf int64 // client-query-buffer-limit
	// AuthState reports whether a password is set and whether the client
	// has authenticated; nil means no password.
	AuthState func() (required, authed bool)

	// Redis checks the unauthenticated limits as it parses each command,
	// after the ones before it ran. We parse a whole read ahead, so once a
	// command that may change the client's authentication (AUTH, HELLO,
	// RESET) is parsed in the batch, authMayChange is set; a header that
	// then crosses a limit pauses parsing there (paused) instead of
	// failing. The caller runs the batch and calls parse again before
	// reading more, and the header is checked against the new state.
	authMayChange bool
	paused        bool

	// args of the commands parsed in the current batch, flattened.
	args   [][]byte
	cmdIdx []int
	// batchStart is where the batch's unprocessed bytes began: Redis's
	// query buffer holds them all until the batch ran (CLIENT LIST qbuf).
	batchStart int

	// QB is the query buffer as Redis would hold it (CLIENT LIST,
	// clientsCron); bigTrim: the big argument being read trimmed it.
	QB      QueryBuf
	bigTrim bool
}

// NewReader returns a Reader with Redis's default limits
// (proto-max-bulk-len 512 MB, client-query-buffer-limit 1 GB).
func NewReader() *Reader {
	return &Reader{buf: make([]byte, protoIOBufLen), bulkLen: -1, MaxBulk: 512 << 20, MaxQueryBuf: 1 << 30,
		QB: QueryBuf{bulk: -1}}
}

// Space returns the free tail of the buffer to read into, growing or
// compacting it first as needed.
func (r *Reader) Space() ([]byte, error) {
	if r.end == len(r.buf) {
		// Move the unparsed part to the front if that frees room.
		start := r.pos
		if r.mbl > 0 || r.bulkLen >= 0 {
			start = r.cmdStart
		}
		if start > 0 {
			n := copy(r.buf, r.buf[start:r.end])
			r.end = n
			r.pos -= start
			r.cmdStart -= start
		}
		if r.end == len(r.buf) {
			if int64(len(r.buf)) >= r.MaxQueryBuf && r.MaxQueryBuf > 0 {
				return nil, ErrQueryBufferLimit
			}
			want := len(r.buf) * 2
			// For a big bulk already announced, grow only to what is
			// needed, and only as its bytes arrive (doubling).
			nb := make([]byte, want)
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
	}
	tail := r.buf[r.end:]
	// Read at most PROTO_IOBUF_LEN at a time, as Redis: when the size
	// limits of inline and header lines trip depends on it. Only the
	// bytes of a big bulk (PROTO_MBULK_BIG_ARG) are read in one go.
	if len(tail) > protoIOBufLen && !(r.mbl > 0 && r.bulkLen >= protoMbulkBigArg) {
		tail = tail[:protoIOBufLen]
	}
	return tail, nil
}

// NCmds returns the number of complete commands parsed so far in this
// batch; ArgsOf(i) returns the i-th.
func (r *Reader) NCmds() int { return len(r.cmdIdx) }

func (r *Reader) ArgsOf(i int) [][]byte {
	end := len(r.args)
	if i+1 < len(r.cmdIdx) {
		end = r.cmdIdx[i+1]
	}
	return r.args[r.cmdIdx[i]:end:end]
}

// Partial reports whether the buffer ends inside a command: its client has
// more of it to send.
func (r *Reader) Partial() bool { return r.pos < r.end || r.mbl > 0 || r.bulkLen >= 0 }

// MorePaused reports whether parsing paused on an unauthenticated limit:
// the caller must run the batch, then parse again before reading.
func (r *Reader) MorePaused() bool { return r.paused }

// Reset drops the parsed batch and compacts the buffer. Arguments returned
// before are invalid afterwards.
func (r *Reader) Reset() {
	r.processed()
	r.args = r.args[:0]
	r.cmdIdx = r.cmdIdx[:0]
	r.authMayChange = false
	start := r.pos
	if r.mbl > 0 || r.bulkLen >= 0 {
		start = r.cmdStart
	}
	if start == r.end {
		// A buffer grown for big arguments is kept while the batches
		// use at least half of it (a client sending 1 MB values reuses
		// it instead of growing a new one, 4 MB of garbage, each time),
		// and shrinks back after a batch that did not: Redis's
		// clientsCronResizeQueryBuffer trims one bigger than twice its
		// recent peak.
		if len(r.buf) > 4*protoIOBufLen && r.end < len(r.buf)/2 {
			r.buf = make([]byte, protoIOBufLen)
		}
		r.end, r.pos, r.cmdStart = 0, 0, 0
		return
	}
	if start > 0 && start > len(r.buf)/2 {
		n := copy(r.buf, r.buf[start:r.end])
		r.end = n
		r.pos -= start
		r.cmdStart -= start
	}
}

// Parse cuts as many complete commands as possible out of the buffer.
// After a *ProtocolError the commands parsed before it still run; the
// connection then closes.
func (r *Reader) Parse() error {
	err := r.parseBuf()
	if len(r.cmdIdx) == 0 {
		r.processed() // nothing to run: Redis trims at once
	}
	return err
}

func (r *Reader) parseBuf() error {
	r.paused = false
	if len(r.cmdIdx) == 0 {
		r.batchStart = r.pos
		if r.mbl > 0 || r.bulkLen >= 0 {
			r.batchStart = r.cmdStart
		}
	}
	for r.pos < r.end && !r.paused {
		if r.mbl == 0 && r.bulkLen < 0 {
			if r.buf[r.pos] == '*' {
				ok, err := r.parseMultibulkHeader()
				if err != nil || !ok {
					return err
				}
				if r.mbl == 0 {
					continue // empty multibulk: no command, as Redis
				}
			} else {
				ok, err := r.parseInline()
				if err != nil || !ok {
					return err
				}
				continue
			}
		}
		ok, err := r.parseBulks()
		if err != nil || !ok {
			return err
		}
	}
	return nil
}

// unauthLimit decides on a header over an unauthenticated limit: pause
// (the client's authentication may change before this command runs), fail,
// or go on (authenticated).
func (r *Reader) unauthLimit(msg string) (pause bool, err error) {
	if r.AuthState == nil {
		return false, nil
	}
	if r.authMayChange {
		r.paused = true
		return true, nil
	}
	if required, authed := r.AuthState(); required && !authed {
		return false, &ProtocolError{msg}
	}
	return false, nil
}

// noteAuthCommand sets authMayChange after a command that may change the
// client's authentication, once a password is set: AUTH and HELLO (they
// may authenticate it) and RESET (it drops the authentication).
func (r *Reader) noteAuthCommand(name []byte) {
	if r.authMayChange || r.AuthState == nil || len(name) < 4 || len(name) > 5 {
		return
	}
	if !bytes.EqualFold(name, []byte("auth")) && !bytes.EqualFold(name, []byte("hello")) &&
		!bytes.EqualFold(name, []byte("reset")) {
		return
	}
	if required, _ := r.AuthState(); required {
		r.authMayChange = true
	}
}

func (r *Reader) parseMultibulkHeader() (bool, error) {
	data := r.buf[r.pos:r.end]
	nl := indexCString(data, '\r')
	if nl < 0 || nl+1 >= len(data) {
		if len(data) > protoInlineMaxSize {
			return false, &ProtocolError{"too big mbulk count string"}
		}
		return false, nil
	}
	if nl > protoInlineMaxSize {
		return false, &ProtocolError{"too big mbulk count string"}
	}
	n, ok := rstring.String2ll(data[1:nl])
	if !ok || n > 1<<31-1 {
		return false, &ProtocolError{"invalid multibulk length"}
	}
	if n > unauthMaxMultibulk {
		if pause, err := r.unauthLimit("unauthenticated multibulk length"); pause || err != nil {
			return false, err
		}
	}
	r.cmdStart = r.pos
	r.pos += nl + 2
	if n <= 0 {
		return true, nil // empty command: skipped
	}
	r.mbl = int(n)
	r.bulkLen = -1
	r.marks = r.marks[:0]
	return true, nil
}

func (r *Reader) parseBulks() (bool, error) {
	for r.mbl > 0 {
		if r.bulkLen < 0 {
			data := r.buf[r.pos:r.end]
			nl := indexCString(data, '\r')
			if nl < 0 || nl+1 >= len(data) {
				if len(data) > protoInlineMaxSize {
					return false, &ProtocolError{"too big bulk count string"}
				}
				return false, nil
			}
			if nl > protoInlineMaxSize {
				return false, &ProtocolError{"too big bulk count string"}
			}
			if data[0] != '$' {
				return false, &ProtocolError{"expected '$', got '" + string(data[0]) + "'"}
			}
			n, ok := rstring.String2ll(data[1:nl])
			if !ok || n < 0 || (r.MaxBulk > 0 && n > r.MaxBulk) {
				return false, &ProtocolError{"invalid bulk length"}
			}
			if n > unauthMaxBulk {
				if pause, err := r.unauthLimit("unauthenticated bulk length"); pause || err != nil {
					return false, err
				}
			}
			r.pos += nl + 2
			r.bulkLen = int(n)
			r.bigTrim = n >= protoMbulkBigArg && r.bigHeader(int(n))
		}
		if r.end-r.pos < r.bulkLen+2 {
			return false, nil
		}
		r.marks = append(r.marks, r.pos-r.cmdStart, r.pos-r.cmdStart+r.bulkLen)
		r.pos += r.bulkLen + 2 // the CRLF after the data is not checked, as Redis
		if r.bigTrim {
			r.bigTrim = false
			r.bigDone(r.bulkLen)
		}
		r.bulkLen = -1
		r.mbl--
	}
	r.cmdIdx = append(r.cmdIdx, len(r.args))
	base := r.buf[r.cmdStart:]
	for i := 0; i < len(r.marks); i += 2 {
		r.args = append(r.args, base[r.marks[i]:r.marks[i+1]:r.marks[i+1]])
	}
	r.noteAuthCommand(base[r.marks[0]:r.marks[1]])
	return true, nil
}

func (r *Reader) parseInline() (bool, error) {
	data := r.buf[r.pos:r.end]
	nl := indexCString(data, '\n')
	if nl < 0 {
		if len(data) > protoInlineMaxSize {
			return false, &ProtocolError{"too big inline request"}
		}
		return false, nil
	}
	line := data[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	argv, ok := rstring.SplitArgs(line)
	if !ok {
		return false, &ProtocolError{"unbalanced quotes in request"}
	}
	r.pos += nl + 1
	if len(argv) == 0 {
		return true, nil
	}
	r.cmdIdx = append(r.cmdIdx, len(r.args))
	r.args = append(r.args, argv...)
	r.noteAuthCommand(argv[0])
	return true, nil
}

// indexCString is bytes.IndexByte as Redis's strchr sees it: the search
// stops at a NUL byte, so a line with a NUL before its terminator is
// never complete (Redis then waits until the size limit errors).
func indexCString(data []byte, c byte) int {
	i := bytes.IndexByte(data, c)
	if i < 0 {
		return -1
	}
	if bytes.IndexByte(data[:i], 0) >= 0 {
		return -1
	}
	return i
}

// QueryBuf is Redis 7.0.15's query buffer (an sds string) as CLIENT LIST
// (qbuf, qbuf-free) and clientsCronResizeQueryBuffer see it: its length
// (bytes read and not yet processed), its allocation and its recent peak.
// Our reader's own buffer differs (it is kept at PROTO_IOBUF_LEN and read
// into by the connection's goroutine outside the executor), so the figures
// Redis shows are computed from the same events Redis's buffer goes
// through: the reads, the parse of a big argument's header and its
// completion, the trim after processing, and the cron's resizes. Updated
// by the connection's goroutine and by the cron (under s.mu): hence mu.
type QueryBuf struct {
	mu    sync.Mutex
	len   int64 // sdslen(querybuf)
	alloc int64 // sdsalloc(querybuf)
	peak  int64 // querybuf_peak
	bulk  int64 // c->bulklen: length of the argument being read, -1 if none
	// Mirror publishes alloc for readers that do not take mu (the
	// client's qbufCap: memory figures).
	Mirror *atomic.Int64
}

// PROTO_RESIZE_THRESHOLD: clientsCronResizeQueryBuffer trims a busy
// client's buffer only above it.
const protoResizeThreshold = 32 * 1024

// makeRoom is sdsMakeRoomFor (greedy: double below SDS_MAX_PREALLOC,
// else add 1 MB) or sdsMakeRoomForNonGreedy. Under mu.
func (q *QueryBuf) makeRoom(addlen int64, greedy bool) {
	if q.alloc-q.len >= addlen {
		return
	}
	newlen := q.len + addlen
	if greedy {
		if newlen < 1<<20 {
			newlen *= 2
		} else {
			newlen += 1 << 20
		}
	}
	q.alloc = memsize.SdsUsableAlloc(newlen)
}

func (q *QueryBuf) publish() {
	if q.Mirror != nil {
		q.Mirror.Store(q.alloc)
	}
}

// Read is readQueryFromClient's handling of the buffer around a read of n
// bytes: room for PROTO_IOBUF_LEN (non-greedy while the buffer is smaller
// than that), or exactly the rest of a big argument being read.
func (r *Reader) Read(n int) {
	r.end += n
	q := &r.QB
	q.mu.Lock()
	readlen := int64(protoIOBufLen)
	big := r.mbl > 0 && r.bulkLen >= protoMbulkBigArg
	if big {
		if rem := int64(r.bulkLen+2) - q.len; rem > 0 {
			readlen = rem
		}
	}
	q.makeRoom(readlen, !(big || q.alloc < protoIOBufLen))
	q.len += int64(n)
	q.alloc = max(q.alloc, q.len)
	q.peak = max(q.peak, q.len)
	q.publish()
	q.mu.Unlock()
}

// bigHeader is processMultibulkBuffer on the header of an argument of at
// least PROTO_MBULK_BIG_ARG bytes: when the buffer holds no more than that
// argument, it is trimmed to it and sized for all of it (so the argument
// can become the object without a copy). It reports whether it did.
func (r *Reader) bigHeader(n int) bool {
	unparsed := int64(r.end - r.pos)
	if unparsed > int64(n)+2 {
		return false
	}
	q := &r.QB
	q.mu.Lock()
	q.len = unparsed
	q.bulk = int64(n)
	q.makeRoom(int64(n)+2-q.len, false)
	q.publish()
	q.mu.Unlock()
	return true
}

// bigDone is the completion of a big argument whose header trimmed the
// buffer: Redis makes the buffer itself the argument and starts a new one
// sized for another argument as big ("if we saw a fat argument we'll see
// another one likely"). rest is what was read past the argument.
func (r *Reader) bigDone(n int) {
	q := &r.QB
	q.mu.Lock()
	q.alloc = memsize.SdsUsableAlloc(int64(n) + 2)
	q.len = int64(r.end - r.pos)
	q.alloc = max(q.alloc, q.len)
	q.bulk = -1
	q.publish()
	q.mu.Unlock()
}

// processed is the trim after processInputBuffer: what is left is the
// part of a command not complete yet, from the argument being read.
func (r *Reader) processed() {
	q := &r.QB
	q.mu.Lock()
	q.len = int64(r.end - r.pos)
	q.bulk = -1
	if r.mbl > 0 && r.bulkLen >= 0 {
		q.bulk = int64(r.bulkLen)
	}
	q.mu.Unlock()
}

// CronResize is clientsCronResizeQueryBuffer: a buffer wasting more than
// 4 KB is freed of its spare room once the client has been idle over 2
// seconds, or, above PROTO_RESIZE_THRESHOLD and twice the recent peak,
// trimmed to that peak (or the argument being read). idleSecs is
// server.unixtime - c->lastinteraction.
func (q *QueryBuf) CronResize(idleSecs int64) {
	q.mu.Lock()
	if q.alloc-q.len > 4*1024 {
		if idleSecs > 2 {
			q.alloc = q.len // sdsRemoveFreeSpace
		} else if q.alloc > protoResizeThreshold && q.alloc/2 > q.peak {
			resize := max(q.len, q.peak, q.bulk)
			q.alloc = max(resize, q.len) // sdsResize: exactly that
		}
	}
	q.peak = max(q.len, q.bulk)
	q.publish()
	q.mu.Unlock()
}

// Figures returns the buffer's length and spare room (CLIENT LIST qbuf and
// qbuf-free).
func (q *QueryBuf) Figures() (qbuf, free int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.len, q.alloc - q.len
}

// Size returns sdsalloc(querybuf).
func (q *QueryBuf) Size() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.alloc
}

// BatchBytes is the length of Redis's query buffer while the current
// batch runs: it holds the whole read until the batch's commands ran
// (CLIENT LIST qbuf as the running client sees itself).
func (r *Reader) BatchBytes() int64 { return int64(r.end - r.batchStart) }
