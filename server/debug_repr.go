package server

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"unsafe"

	"github.com/aofserver/aofserver/listpack"
	"github.com/aofserver/aofserver/memsize"
	"github.com/aofserver/aofserver/rdb"
)

// DEBUG LISTPACK, QUICKLIST, SDSLEN and STRUCTSIZE: Redis 7.0.15's views of
// its in-memory encodings. Our values are not stored as listpacks or sds
// strings, so the listpacks printed are the ones Redis would hold (the RDB
// encoder's, which builds them as Redis does) and the sds figures are those
// of the allocations Redis makes for a value set by SET (sdsnewlen through
// jemalloc's size classes).

// debugStdout is where lpRepr and quicklistRepr print: Redis's printf to
// stdout (tests may redirect it).
var debugStdout io.Writer = os.Stdout

// debugListpack is DEBUG LISTPACK <key>.
func debugListpack(c *client, key []byte) {
	s := c.srv
	e, ok := s.lookupReadNoTouch(c, key) // objectCommandLookupOrReply
	if !ok {
		c.err(errNoSuchKey)
		return
	}
	if objEncoding(e) != "listpack" {
		c.err("ERR Not a listpack encoded object.")
		return
	}
	opts := rdb.EncoderOptions{Limits: s.rdbLimits()}
	p := rdb.DumpPayload(objToRDB(e), opts)
	// type byte, then the listpack as one RDB string (no compression)
	if l, rest, ok := rdbLen(p[1:]); ok && uint64(len(rest)) >= l {
		w := bufio.NewWriter(debugStdout)
		lpRepr(w, rest[:l])
		w.Flush()
	}
	c.status("Listpack structure printed on stdout")
}

// debugQuicklist is DEBUG QUICKLIST <key> [<0|1>]: quicklistRepr of the
// nodes Redis would have for the list (list-max-listpack-size and
// list-compress-depth as configured now).
func debugQuicklist(c *client, argv [][]byte) {
	s := c.srv
	e, ok := s.lookupReadNoTouch(c, argv[2])
	if !ok {
		c.err(errNoSuchKey)
		return
	}
	full := len(argv) == 4 && cAtoi(argv[3]) != 0
	if objEncoding(e) != "quicklist" {
		c.err("ERR Not a quicklist encoded object.")
		return
	}
	lim := s.rdbLimits()
	v := objToRDB(e)
	// Two serializations with the same node split: one tells which nodes
	// Redis keeps LZF-compressed, the other has every node in clear.
	packed := rdb.DumpPayload(v, rdb.EncoderOptions{Limits: lim})
	lim.ListCompressDepth = 0
	clear := rdb.DumpPayload(v, rdb.EncoderOptions{Limits: lim})
	w := bufio.NewWriter(debugStdout)
	nodes, _, _ := rdbLen(packed[1:])
	fmt.Fprintf(w, "{count : %d}\n{len : %d}\n{fill : %d}\n{compress : %d}\n{bookmark_count : 0}\n",
		objLength(e), nodes, s.cfg.ListMaxListpackSize, s.cfg.ListCompressDepth)
	pp, cp := packed[1:], clear[1:]
	_, pp, _ = rdbLen(pp)
	_, cp, _ = rdbLen(cp)
	for i := uint64(0); i < nodes; i++ {
		var container uint64
		var lzf, ok bool
		var body []byte
		if container, pp, ok = rdbLen(pp); !ok {
			break
		}
		if len(pp) > 0 && pp[0] == 0xC3 { // an LZF blob: clen, ulen, data
			var clen uint64
			clen, pp, _ = rdbLen(pp[1:])
			_, pp, _ = rdbLen(pp)
			pp = pp[min(uint64(len(pp)), clen):]
			lzf = true
		} else {
			var l uint64
			l, pp, _ = rdbLen(pp)
			pp = pp[min(uint64(len(pp)), l):]
		}
		_, cp, _ = rdbLen(cp) // container
		l, rest, _ := rdbLen(cp)
		body, cp = rest[:l], rest[l:]
		count := 1
		if container != 1 {
			count = int(binary.LittleEndian.Uint16(body[4:6]))
			if count == 0xffff {
				count = lpCount(body)
			}
		}
		fmt.Fprintf(w, "{quicklist node(%d)\n{container : %s, encoding: %s, size: %d, count: %d, recompress: 0, attempted_compress: 0}\n",
			i, map[bool]string{true: "PLAIN", false: "PACKED"}[container == 1],
			map[bool]string{true: "LZF", false: "RAW"}[lzf], len(body), count)
		if full {
			if container == 1 {
				// printf("%s"): the element up to its first NUL
				b := body
				for j, ch := range b {
					if ch == 0 {
						b = b[:j]
						break
					}
				}
				fmt.Fprintf(w, "{ entry : %s }\n", b)
			} else {
				w.WriteString("{ listpack:\n")
				lpRepr(w, body)
				w.WriteString("}\n")
			}
			w.WriteString("}\n")
		}
	}
	w.Flush()
	c.status("Quicklist structure printed on stdout")
}

// lpEntry decodes the listpack entry at lp[i]: its header size, encoded
// size (header and data, no backlen) and value as lpGet renders it.
func lpEntry(lp []byte, i int) (hdr, size int, val []byte) {
	b := lp[i]
	le := func(n int) int64 { // n-byte little-endian two's complement
		var u uint64
		for j := n - 1; j >= 0; j-- {
			u = u<<8 | uint64(lp[i+1+j])
		}
		shift := 64 - 8*uint(n)
		return int64(u<<shift) >> shift
	}
	switch {
	case b&0x80 == 0: // 7-bit uint
		return 1, 1, strconv.AppendInt(nil, int64(b&0x7f), 10)
	case b&0xc0 == 0x80: // 6-bit string
		l := int(b & 0x3f)
		return 1, 1 + l, lp[i+1 : i+1+l]
	case b&0xe0 == 0xc0: // 13-bit int
		v := int64(b&0x1f)<<8 | int64(lp[i+1])
		if v >= 1<<12 {
			v -= 1 << 13
		}
		return 1, 2, strconv.AppendInt(nil, v, 10)
	case b&0xf0 == 0xe0: // 12-bit string
		l := int(b&0x0f)<<8 | int(lp[i+1])
		return 2, 2 + l, lp[i+2 : i+2+l]
	case b == 0xf0: // 32-bit string
		l := int(binary.LittleEndian.Uint32(lp[i+1:]))
		return 5, 5 + l, lp[i+5 : i+5+l]
	case b == 0xf1:
		return 1, 3, strconv.AppendInt(nil, le(2), 10)
	case b == 0xf2:
		return 1, 4, strconv.AppendInt(nil, le(3), 10)
	case b == 0xf3:
		return 1, 5, strconv.AppendInt(nil, le(4), 10)
	case b == 0xf4:
		return 1, 9, strconv.AppendInt(nil, le(8), 10)
	}
	return 1, 1, nil
}

// lpCount walks the listpack (its header count saturates at 65535).
func lpCount(lp []byte) int {
	n := 0
	for i := 6; i < len(lp) && lp[i] != 0xff; n++ {
		_, size, _ := lpEntry(lp, i)
		i += size + listpack.BacklenSize(size)
	}
	return n
}

// lpRepr is Redis's lpRepr: one block per entry, the address being that of
// our copy of the bytes.
func lpRepr(w *bufio.Writer, lp []byte) {
	if len(lp) < 7 {
		return
	}
	fmt.Fprintf(w, "{total bytes %d} {num entries %d}\n", binary.LittleEndian.Uint32(lp), lpCount(lp))
	base := uintptr(unsafe.Pointer(&lp[0]))
	for i, index := 6, 0; i < len(lp) && lp[i] != 0xff; index++ {
		hdr, size, val := lpEntry(lp, i)
		back := listpack.BacklenSize(size)
		fmt.Fprintf(w, "{\n\taddr: 0x%08x,\n\tindex: %2d,\n\toffset: %1d,\n\thdr+entrylen+backlen: %2d,\n\thdrlen: %3d,\n\tbacklen: %2d,\n\tpayload: %1d\n",
			base+uintptr(i), index, i, size+back, hdr, back, size-hdr)
		w.WriteString("\tbytes: ")
		for _, b := range lp[i : i+size+back] {
			fmt.Fprintf(w, "%02x|", b)
		}
		w.WriteString("\n\t[str]")
		if len(val) > 40 {
			w.Write(val[:40])
			w.WriteString("...")
		} else {
			w.Write(val)
		}
		w.WriteString("\n}\n")
		i += size + back
	}
	w.WriteString("{end}\n\n")
}

// debugStructSize is DEBUG STRUCTSIZE: the sizes of Redis's structures in
// its 64-bit build.
func debugStructSize(c *client) {
	c.bulkString("bits:" + strconv.Itoa(strconv.IntSize) + " robj:16 dictentry:24 sdshdr5:1 sdshdr8:3 sdshdr16:5 sdshdr32:9 sdshdr64:17 ")
}

// debugSDSLen is DEBUG SDSLEN <key> (a dictFind: expired keys included).
func debugSDSLen(c *client, key []byte) {
	e, ok := c.db.keys.Get(bstr(key))
	if !ok {
		c.err(errNoSuchKey)
		return
	}
	enc := ""
	if e.typ() == typString {
		enc = stringEncoding(e)
	}
	if enc != "embstr" && enc != "raw" {
		c.err("ERR Not an sds encoded string.")
		return
	}
	// The key is sdsdup'ed by dbAdd. An embstr value lives in the robj's
	// allocation with no spare room; a raw one is a fresh sdsnewlen.
	kAvail, kAlloc := memsize.SdsNewLen(len(key))
	vLen := len(e.str())
	var vAvail, vAlloc int
	if enc == "embstr" {
		vAlloc = int(memsize.Jemalloc(int64(16+3+vLen+1))) - 16
	} else {
		vAvail, vAlloc = memsize.SdsNewLen(vLen)
		// tryObjectEncoding's trimStringObjectIfNeeded: a shrink within
		// jemalloc's class, so only alloc changes.
		if vAvail > vLen/10 {
			vAvail = 0
		}
	}
	c.status(fmt.Sprintf("key_sds_len:%d, key_sds_avail:%d, key_zmalloc: %d, val_sds_len:%d, val_sds_avail:%d, val_zmalloc: %d",
		len(key), kAvail, kAlloc, vLen, vAvail, vAlloc))
}
