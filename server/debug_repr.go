package server

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"

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

// debugStdout is where listpack.Repr and quicklistRepr print: Redis's printf to
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
		listpack.Repr(w, rest[:l])
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
				count = listpack.Count(body)
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
				listpack.Repr(w, body)
				w.WriteString("}\n")
			}
			w.WriteString("}\n")
		}
	}
	w.Flush()
	c.status("Quicklist structure printed on stdout")
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
