package replication

// Backlog is the circular backlog of the replication stream (Redis's
// repl_backlog): the newest bytes of the stream, from which a replica
// that lost its link continues with PSYNC (+CONTINUE).
type Backlog struct {
	buf     []byte
	idx     int   // where the next byte goes
	histlen int64 // bytes held
	offset  int64 // repl offset of the first byte held
	next    int64 // repl offset of the next byte written
}

// NewBacklog makes a backlog of size bytes whose first byte will be the
// stream's byte at repl offset next.
func NewBacklog(size int, next int64) *Backlog {
	return &Backlog{buf: make([]byte, size), offset: next, next: next}
}

// Size is repl_backlog_size: the bytes it can hold.
func (b *Backlog) Size() int { return len(b.buf) }

// FirstOffset is repl_backlog_first_byte_offset.
func (b *Backlog) FirstOffset() int64 { return b.offset }

// HistLen is repl_backlog_histlen: the bytes held.
func (b *Backlog) HistLen() int64 { return b.histlen }

// Holds reports whether a replica may continue from repl offset off
// (masterTryPartialResynchronization's backlog check).
func (b *Backlog) Holds(off int64) bool {
	return off >= b.offset && off <= b.offset+b.histlen
}

// Write appends stream bytes, dropping the oldest that no longer fit.
func (b *Backlog) Write(p []byte) {
	size := len(b.buf)
	b.next += int64(len(p))
	b.histlen += int64(len(p))
	if len(p) > size {
		p = p[len(p)-size:] // only the tail can be held
	}
	for len(p) > 0 {
		n := copy(b.buf[b.idx:], p)
		b.idx = (b.idx + n) % size
		p = p[n:]
	}
	if b.histlen > int64(size) {
		b.histlen = int64(size)
	}
	b.offset = b.next - b.histlen
}

// From returns a copy of the held bytes from repl offset off on (off must
// be one Holds accepts).
func (b *Backlog) From(off int64) []byte {
	skip := off - b.offset
	n := int(b.histlen - skip)
	out := make([]byte, 0, n)
	size := len(b.buf)
	start := (b.idx - n + size) % size
	if start+n <= size {
		return append(out, b.buf[start:start+n]...)
	}
	out = append(out, b.buf[start:]...)
	return append(out, b.buf[:n-(size-start)]...)
}

// Resize keeps the newest bytes that fit (CONFIG SET repl-backlog-size).
func (b *Backlog) Resize(size int) {
	if size == len(b.buf) {
		return
	}
	keep := b.histlen
	if keep > int64(size) {
		keep = int64(size)
	}
	data := b.From(b.next - keep)
	*b = *NewBacklog(size, b.next-keep)
	b.Write(data)
}
