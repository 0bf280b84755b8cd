package aof

// Preallocation (aofserver's own, opt-in with PreallocSize; Redis appends
// plainly).
//
// Under appendfsync always every fdatasync of a growing file must also
// commit the new file size through the file system's journal, which on ext4
// doubles its cost (measured here: about 0.65 ms per fdatasync appending,
// 0.32 ms overwriting in place). So under Always the incr file is extended
// ahead of the data with padding and the data overwrite it: most fsyncs then
// flush data blocks only.
//
// The padding is lines of 63 '#' and a '\n': annotations, which Redis's
// loader and redis-check-aof skip (spec §2.1 step 4), so real Redis loads a
// padded file as it is. Right after each batch written into the padding a
// '#' is written too, so that what is left of the padding line the data
// ended in is still an annotation, never an empty line. Closing a file
// (shutdown, rotation) truncates the padding away: a cleanly closed file is
// byte-identical to one written without it.
//
// After a power cut a batch that was written but not fdatasync'ed may be
// on disk in part, followed by padding. Such a tail was never acknowledged
// under Always; our loader recognises it (the file ends in padding) and
// treats it like a torn tail (aof-load-truncated). Real Redis sees a format
// error there, which `redis-check-aof --fix` repairs; set aof-prealloc-size
// to 0 to keep Redis's plain truncated-tail behaviour.

const padLineLen = 64

// padding returns n bytes of padding lines (n a multiple of padLineLen).
func padding(n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		if i%padLineLen == padLineLen-1 {
			b[i] = '\n'
		} else {
			b[i] = '#'
		}
	}
	return b
}

// isPadLine reports whether line (as read by fgets) is padding: only '#'
// and an optional final '\n'.
func isPadLine(line []byte) bool {
	for i, c := range line {
		if c == '\n' && i == len(line)-1 {
			return true
		}
		if c != '#' {
			return false
		}
	}
	return true
}

// isPadding reports whether b consists of padding bytes only.
func isPadding(b []byte) bool {
	for _, c := range b {
		if c != '#' && c != '\n' {
			return false
		}
	}
	return len(b) > 0
}

// extend makes sure at least need bytes of padding follow seg.off, adding
// chunk bytes at a time. A failure (full disk) is not an error for the
// AOF: the partial padding is cut off and the segment appends plainly from
// then on.
func (a *AOF) extend(seg *segment, need, chunk int64) {
	if seg.noPrealloc || chunk <= 0 || seg.alloc-seg.off >= need {
		return
	}
	chunk = (chunk + padLineLen - 1) / padLineLen * padLineLen
	for seg.alloc-seg.off < need {
		if int64(len(a.pad)) != chunk {
			a.pad = padding(chunk)
		}
		if _, err := seg.f.WriteAt(a.pad, seg.alloc); err != nil {
			a.log.Warn().Msgf("Can't preallocate the AOF file %s (%s): appending without preallocation", seg.name, Strerror(err))
			seg.noPrealloc = true
			if terr := seg.f.Truncate(seg.alloc); terr != nil {
				a.log.Warn().Msgf("Can't truncate the AOF file %s after a failed preallocation: %s", seg.name, Strerror(terr))
			}
			return
		}
		seg.alloc += chunk
	}
}

// writeData writes p at the end of the data, plus a '#' when padding
// follows, and returns how many bytes of p were written.
func (a *AOF) writeData(seg *segment, p []byte) (int, error) {
	data := p
	if seg.alloc > seg.off+int64(len(p)) {
		data = append(p, '#') // p is the writer's own buffer; this uses its spare capacity
	}
	n, err := seg.f.WriteAt(data, seg.off)
	if n > len(p) {
		n = len(p)
	}
	seg.off += int64(n)
	if seg.off > seg.alloc {
		seg.alloc = seg.off
	}
	return n, err
}

// trimPadding cuts the padding off a segment being closed. Durable after
// the following fdatasync.
func (a *AOF) trimPadding(seg *segment) {
	if seg.alloc <= seg.off {
		return
	}
	if err := seg.f.Truncate(seg.off); err != nil {
		a.log.Warn().Msgf("Can't remove the preallocated tail of the AOF file %s: %s", seg.name, Strerror(err))
		return
	}
	seg.alloc = seg.off
}
