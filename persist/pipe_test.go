package persist

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/aofserver/aofserver/rdb"
)

// A stream whose plain strings were staged as refs, and whose checksum
// the feeder patched, is byte for byte the stream one encoder writes with
// rdbchecksum yes: the walk's deferral is invisible in the file.
func TestPipeRefsMatchDirectEncoding(t *testing.T) {
	type kv struct {
		key, val string
		expire   int64
		ref      bool // staged as a ref (else encoded by the walk)
	}
	var keys []kv
	for i := range 3000 {
		keys = append(keys, kv{fmt.Sprintf("key:%d", i), fmt.Sprintf("value %d %s", i, bytes.Repeat([]byte("x"), i%70)), int64(-1), i%3 != 0})
		if i%7 == 0 {
			keys[i].expire = 1700000000000 + int64(i)
		}
	}
	aux := rdb.StandardAux(1700000000, 1<<20, false)
	opt := rdb.EncoderOptions{Compression: true}

	var want bytes.Buffer
	direct := rdb.NewEncoder(&want, rdb.EncoderOptions{Compression: true, Checksum: true})
	direct.Header(aux)
	direct.SelectDB(0, uint64(len(keys)), 0)
	for _, k := range keys {
		direct.Key([]byte(k.key), &rdb.Value{Kind: rdb.KindString, Str: []byte(k.val)}, k.expire)
	}
	if err := direct.Close(); err != nil {
		t.Fatal(err)
	}

	q := NewPipe()
	q.DeferStrings(opt, true)
	var st Stage
	enc := rdb.NewEncoder(&st, opt)
	enc.Header(aux)
	enc.SelectDB(0, uint64(len(keys)), 0)
	var spare Batch
	for i, k := range keys {
		if k.ref {
			st.Ref(k.key, []byte(k.val), k.expire)
		} else {
			enc.Key([]byte(k.key), &rdb.Value{Kind: rdb.KindString, Str: []byte(k.val)}, k.expire)
		}
		if i%100 == 99 { // a walk step's end
			spare = q.Put(st.Take(spare))
		}
	}
	enc.Close()
	q.Put(st.Take(spare))
	q.Close()
	var got bytes.Buffer
	if err := q.Feed(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("fed stream differs from the direct encoding: %d bytes, want %d", got.Len(), want.Len())
	}
}

// A failed pipe ends the feed, and its error is the caller's to read.
func TestPipeFailEndsFeed(t *testing.T) {
	q := NewPipe()
	var st Stage
	st.Write([]byte("abc"))
	q.Put(st.Take(Batch{}))
	boom := errors.New("boom")
	q.Fail(boom)
	var out bytes.Buffer
	if err := q.Feed(&out); err != nil {
		t.Fatalf("Feed = %v, want nil (the pipe's error is Err's)", err)
	}
	if !errors.Is(q.Err(), boom) || out.Len() != 0 {
		t.Fatalf("Err = %v, fed %q; want boom and nothing", q.Err(), out.String())
	}
	q.WaitBelow(0) // a failed pipe holds no producer back
}
