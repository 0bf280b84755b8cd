package persist

import (
	"bufio"
	"io"
	"strconv"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/rdb"
)

// Encoder is what a snapshot writes through: an rdb.Encoder, or a
// RESPBase (an AOF base with aof-use-rdb-preamble no). Both also have
// Function(code), which writes a function library before the keys.
type Encoder interface {
	Header(aux []rdb.Aux) error
	SelectDB(db int, size, expires uint64) error
	Key(key []byte, v *rdb.Value, expireMs int64) error
	Close() error
}

// RESPBase writes an AOF base in Redis's RESP rewrite format
// (aof-use-rdb-preamble no; spec §3.6): SELECT per DB, then SET / RPUSH /
// SADD / ZADD / HMSET in chunks of 64 items, then PEXPIREAT for keys with
// a TTL. It has no trailer.
type RESPBase struct {
	w   *bufio.Writer
	ts  bool
	buf []byte
	err error
}

const aofRewriteItemsPerCmd = 64

// NewRESPBase writes to w; with ts the base starts with a #TS: annotation
// (aof-timestamp-enabled).
func NewRESPBase(w io.Writer, ts bool) *RESPBase {
	return &RESPBase{w: bufio.NewWriterSize(w, 1<<16), ts: ts}
}

func (e *RESPBase) write(argv ...[]byte) {
	if e.err != nil {
		return
	}
	e.buf = aof.AppendCommand(e.buf[:0], argv)
	_, e.err = e.w.Write(e.buf)
}

func (e *RESPBase) Header(_ []rdb.Aux) error {
	if e.ts {
		_, e.err = e.w.WriteString("#TS:" + strconv.FormatInt(time.Now().Unix(), 10) + "\r\n")
	}
	return e.err
}

// Function writes a library as Redis 7.0's rewriteFunctions does: FUNCTION
// LOAD <code>, before any SELECT.
func (e *RESPBase) Function(code []byte) error {
	e.write([]byte("FUNCTION"), []byte("LOAD"), code)
	return e.err
}

func (e *RESPBase) SelectDB(db int, _, _ uint64) error {
	e.write([]byte("SELECT"), []byte(strconv.Itoa(db)))
	return e.err
}

func (e *RESPBase) chunks(cmd string, key []byte, items [][]byte, per int) {
	for i := 0; i < len(items); i += per {
		end := i + per
		if end > len(items) {
			end = len(items)
		}
		argv := make([][]byte, 0, 2+end-i)
		argv = append(argv, []byte(cmd), key)
		argv = append(argv, items[i:end]...)
		e.write(argv...)
	}
}

func (e *RESPBase) Key(key []byte, v *rdb.Value, expireMs int64) error {
	switch v.Kind {
	case rdb.KindString:
		e.write([]byte("SET"), key, v.Str)
	case rdb.KindList:
		e.chunks("RPUSH", key, v.List, aofRewriteItemsPerCmd)
	case rdb.KindSet:
		e.chunks("SADD", key, v.Set, aofRewriteItemsPerCmd)
	case rdb.KindZSet:
		items := make([][]byte, 0, 2*len(v.ZSet))
		for _, m := range v.ZSet {
			items = append(items, strconv.AppendFloat(nil, m.Score, 'g', 17, 64), m.Member)
		}
		for i := range items {
			if string(items[i]) == "+Inf" {
				items[i] = []byte("inf")
			} else if string(items[i]) == "-Inf" {
				items[i] = []byte("-inf")
			}
		}
		e.chunks("ZADD", key, items, 2*aofRewriteItemsPerCmd)
	case rdb.KindHash:
		items := make([][]byte, 0, 2*len(v.Hash))
		for _, p := range v.Hash {
			items = append(items, p[0], p[1])
		}
		e.chunks("HMSET", key, items, 2*aofRewriteItemsPerCmd)
	case rdb.KindStream:
		e.stream(key, v.Stream)
	}
	if expireMs >= 0 {
		e.write([]byte("PEXPIREAT"), key, []byte(strconv.FormatInt(expireMs, 10)))
	}
	return e.err
}

func (e *RESPBase) Close() error {
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// stream writes a stream as Redis 7.0's rewriteStreamObject: one XADD per
// entry (an empty stream is made with "XADD key MAXLEN 0 0-1 x y"), then
// XSETID with ENTRIESADDED and MAXDELETEDID, then per group XGROUP CREATE
// ... ENTRIESREAD, and per consumer either an XCLAIM ... JUSTID FORCE for
// each pending entry or XGROUP CREATECONSUMER when it has none.
func (e *RESPBase) stream(key []byte, st *rdb.Stream) {
	id := func(x rdb.StreamID) []byte {
		b := strconv.AppendUint(nil, x.Ms, 10)
		b = append(b, '-')
		return strconv.AppendUint(b, x.Seq, 10)
	}
	num := func(v int64) []byte { return strconv.AppendInt(nil, v, 10) }
	if len(st.Entries) > 0 {
		for _, en := range st.Entries {
			argv := make([][]byte, 0, 3+2*len(en.Fields))
			argv = append(argv, []byte("XADD"), key, id(en.ID))
			for _, f := range en.Fields {
				argv = append(argv, f[0], f[1])
			}
			e.write(argv...)
		}
	} else {
		e.write([]byte("XADD"), key, []byte("MAXLEN"), []byte("0"), []byte("0-1"), []byte("x"), []byte("y"))
	}
	e.write([]byte("XSETID"), key, id(st.LastID), []byte("ENTRIESADDED"), num(int64(st.EntriesAdded)), []byte("MAXDELETEDID"), id(st.MaxDeletedID))
	for _, g := range st.Groups {
		e.write([]byte("XGROUP"), []byte("CREATE"), key, g.Name, id(g.LastID), []byte("ENTRIESREAD"), num(g.EntriesRead))
		byConsumer := map[string][]rdb.StreamPending{}
		for _, p := range g.PEL {
			byConsumer[string(p.Consumer)] = append(byConsumer[string(p.Consumer)], p)
		}
		for _, c := range g.Consumers {
			pel := byConsumer[string(c.Name)]
			if len(pel) == 0 {
				e.write([]byte("XGROUP"), []byte("CREATECONSUMER"), key, g.Name, c.Name)
				continue
			}
			for _, p := range pel {
				e.write([]byte("XCLAIM"), key, g.Name, c.Name, []byte("0"), id(p.ID), []byte("TIME"), num(p.DeliveryTime),
					[]byte("RETRYCOUNT"), num(int64(p.DeliveryCount)), []byte("JUSTID"), []byte("FORCE"))
			}
		}
	}
}
