package server

import (
	"bufio"
	"io"
	"strconv"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/rdb"
)

// respBaseEncoder writes an AOF base in Redis's RESP rewrite format
// (aof-use-rdb-preamble no; spec §3.6): SELECT per DB, then SET / RPUSH /
// SADD / ZADD / HMSET in chunks of 64 items, then PEXPIREAT for keys with
// a TTL. It has no trailer.
type respBaseEncoder struct {
	w   *bufio.Writer
	ts  bool
	buf []byte
	err error
}

const aofRewriteItemsPerCmd = 64

func newRESPBaseEncoder(w io.Writer, ts bool) *respBaseEncoder {
	return &respBaseEncoder{w: bufio.NewWriterSize(w, 1<<16), ts: ts}
}

func (e *respBaseEncoder) write(argv ...[]byte) {
	if e.err != nil {
		return
	}
	e.buf = aof.AppendCommand(e.buf[:0], argv)
	_, e.err = e.w.Write(e.buf)
}

func (e *respBaseEncoder) Header(_ []rdb.Aux) error {
	if e.ts {
		_, e.err = e.w.WriteString("#TS:" + strconv.FormatInt(time.Now().Unix(), 10) + "\r\n")
	}
	return e.err
}

func (e *respBaseEncoder) SelectDB(db int, _, _ uint64) error {
	e.write([]byte("SELECT"), []byte(strconv.Itoa(db)))
	return e.err
}

func (e *respBaseEncoder) chunks(cmd string, key []byte, items [][]byte, per int) {
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

func (e *respBaseEncoder) Key(key []byte, v *rdb.Value, expireMs int64) error {
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
	}
	if expireMs >= 0 {
		e.write([]byte("PEXPIREAT"), key, []byte(strconv.FormatInt(expireMs, 10)))
	}
	return e.err
}

func (e *respBaseEncoder) Close() error {
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}
