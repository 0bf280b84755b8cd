package rdb

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

const redisServerBin = testsrv.RedisServerPath

func needBinary(t *testing.T, path string) { t.Helper(); testsrv.Need(t, path) }

// redisConn is a minimal RESP2 client for tests.
type redisConn struct {
	c net.Conn
	r *bufio.Reader
}

// startRedis runs redis-server on a free 127.0.0.1 port with dir as its
// working directory and stops it when the test ends.
func startRedis(t *testing.T, dir string, extra ...string) *redisConn {
	t.Helper()
	p := testsrv.StartRedis(t, dir, extra...) // answers PING: loading is over
	c, err := testsrv.DialConn(p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &redisConn{c: c.NC, r: c.BR}
}

type redisError string

func (e redisError) Error() string { return string(e) }

func (rc *redisConn) do(args ...any) (any, error) {
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		var s []byte
		switch v := a.(type) {
		case string:
			s = []byte(v)
		case []byte:
			s = v
		default:
			s = fmt.Append(nil, v)
		}
		b = fmt.Appendf(b, "$%d\r\n", len(s))
		b = append(append(b, s...), '\r', '\n')
	}
	_ = rc.c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := rc.c.Write(b); err != nil {
		return nil, err
	}
	return rc.read()
}

func (rc *redisConn) read() (any, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, fmt.Errorf("empty reply line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return nil, redisError(line[1:])
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(rc.r, buf); err != nil {
			return nil, err
		}
		return buf[:n], nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		out := make([]any, 0, max(n, 0))
		for i := 0; i < n; i++ {
			v, err := rc.read()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad reply %q", line)
}

func (rc *redisConn) must(t *testing.T, args ...any) any {
	t.Helper()
	v, err := rc.do(args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// contents returns a canonical text form of a key's data, read with
// ordinary commands, for order-insensitive comparison.
func (rc *redisConn) contents(t *testing.T, key string) string {
	t.Helper()
	typ := rc.must(t, "TYPE", key).(string)
	var items []string
	switch typ {
	case "string":
		return "string:" + string(rc.must(t, "GET", key).([]byte))
	case "list":
		for _, e := range rc.must(t, "LRANGE", key, 0, -1).([]any) {
			items = append(items, string(e.([]byte)))
		}
		return "list:" + strings.Join(items, "\x00")
	case "set":
		for _, e := range rc.must(t, "SMEMBERS", key).([]any) {
			items = append(items, string(e.([]byte)))
		}
	case "zset":
		r := rc.must(t, "ZRANGE", key, 0, -1, "WITHSCORES").([]any)
		for i := 0; i < len(r); i += 2 {
			items = append(items, string(r[i].([]byte))+"="+string(r[i+1].([]byte)))
		}
		return "zset:" + strings.Join(items, "\x00")
	case "hash":
		r := rc.must(t, "HGETALL", key).([]any)
		for i := 0; i < len(r); i += 2 {
			items = append(items, string(r[i].([]byte))+"="+string(r[i+1].([]byte)))
		}
	default:
		t.Fatalf("key %q has type %q", key, typ)
	}
	slices.Sort(items)
	return typ + ":" + strings.Join(items, "\x00")
}

// valueContents is contents() for a Value, formatting scores like Redis.
func valueContents(v *Value) string {
	var items []string
	switch v.Kind {
	case KindString:
		return "string:" + string(v.Str)
	case KindList:
		for _, e := range v.List {
			items = append(items, string(e))
		}
		return "list:" + strings.Join(items, "\x00")
	case KindSet:
		for _, e := range v.Set {
			items = append(items, string(e))
		}
	case KindZSet:
		zs := slices.Clone(v.ZSet)
		slices.SortFunc(zs, compareZMember)
		for _, m := range zs {
			items = append(items, string(m.Member)+"="+string(appendD2String(nil, m.Score)))
		}
		return "zset:" + strings.Join(items, "\x00")
	case KindHash:
		for _, fv := range v.Hash {
			items = append(items, string(fv[0])+"="+string(fv[1]))
		}
	}
	slices.Sort(items)
	return v.Kind.String() + ":" + strings.Join(items, "\x00")
}

// redisDataset is a set of keys with the commands that build them in
// Redis and the Value we expect Redis to hold.
type datasetKey struct {
	key     string
	cmds    [][]any
	v       *Value
	ordered bool // Redis's bytes are deterministic (no hash-table order)
}

func buildDataset() []datasetKey {
	rng := rand.New(rand.NewPCG(7, 11))
	var ds []datasetKey
	add := func(key string, ordered bool, v *Value, cmds ...[]any) {
		ds = append(ds, datasetKey{key: key, cmds: cmds, v: v, ordered: ordered})
	}
	str := func(key, val string) {
		add(key, true, &Value{Kind: KindString, Str: []byte(val)}, []any{"SET", key, val})
	}
	// The brief's dataset.
	str("str", "hello")
	str("num", "12345")
	str("big", strings.Repeat("a", 72))
	add("list", true, &Value{Kind: KindList, List: strs("a", "b", "c", "1", "2")}, []any{"RPUSH", "list", "a", "b", "c", "1", "2"})
	add("iset", true, &Value{Kind: KindSet, Set: strs("1", "2", "3")}, []any{"SADD", "iset", "1", "2", "3"})
	add("sset", false, &Value{Kind: KindSet, Set: strs("x", "y", "z")}, []any{"SADD", "sset", "x", "y", "z"})
	add("zs", true, &Value{Kind: KindZSet, ZSet: []ZMember{{[]byte("a"), 1}, {[]byte("b"), 2.5}}}, []any{"ZADD", "zs", "1", "a", "2.5", "b"})
	add("h", true, &Value{Kind: KindHash, Hash: [][2][]byte{{[]byte("f1"), []byte("v1")}, {[]byte("f2"), []byte("2")}}},
		[]any{"HSET", "h", "f1", "v1", "f2", "2"})

	// Strings around the integer and LZF thresholds.
	for _, s := range []string{"0", "-1", "127", "128", "-128", "-129", "32767", "32768", "-32768", "-32769",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "007", "-0", "+1", " 1", "9223372036854775807",
		"", "12345678901", "1.5"} {
		str("s:"+s, s)
	}
	for _, n := range []int{20, 21, 22, 24, 25, 30, 40, 64, 100, 300, 1000, 5000, 70000} {
		// Partly repetitive text so that compression sometimes pays off, sometimes barely.
		var b []byte
		for len(b) < n {
			if rng.IntN(3) == 0 {
				b = append(b, "abcabcabc"...)
			} else {
				b = append(b, byte('a'+rng.IntN(26)))
			}
		}
		str(fmt.Sprintf("lzf:%d", n), string(b[:n]))
		rnd := make([]byte, n)
		for i := range rnd {
			rnd[i] = byte(rng.Uint32())
		}
		str(fmt.Sprintf("rnd:%d", n), string(rnd))
	}

	// Lists that span several quicklist nodes, with mixed element sizes.
	var biglist [][]byte
	cmd := []any{"RPUSH", "biglist"}
	for i := 0; i < 3000; i++ {
		var e string
		switch rng.IntN(5) {
		case 0:
			e = strconv.Itoa(rng.IntN(1 << 20))
		case 1:
			e = strconv.FormatInt(rng.Int64()-rng.Int64(), 10)
		case 2:
			e = strings.Repeat("y", rng.IntN(300))
		case 3:
			e = strings.Repeat("z", 4000+rng.IntN(3000))
		default:
			e = fmt.Sprintf("item-%d", i)
		}
		biglist = append(biglist, []byte(e))
		cmd = append(cmd, e)
	}
	add("biglist", true, &Value{Kind: KindList, List: biglist}, cmd)
	var intlist [][]byte
	cmd = []any{"RPUSH", "intlist"}
	for i := 0; i < 10000; i++ {
		intlist = append(intlist, []byte(strconv.Itoa(i%200)))
		cmd = append(cmd, i%200)
	}
	add("intlist", true, &Value{Kind: KindList, List: intlist}, cmd)

	// Intsets of each width, and a set over the intset limit.
	add("iset16", true, &Value{Kind: KindSet, Set: strs("-3", "1", "300")}, []any{"SADD", "iset16", "300", "1", "-3"})
	add("iset32", true, &Value{Kind: KindSet, Set: strs("70000", "1", "-3")}, []any{"SADD", "iset32", "1", "70000", "-3"})
	add("iset64", true, &Value{Kind: KindSet, Set: strs("5000000000", "1")}, []any{"SADD", "iset64", "1", "5000000000"})
	var bigset [][]byte
	cmd = []any{"SADD", "bigintset"}
	for i := 1; i <= 600; i++ {
		bigset = append(bigset, []byte(strconv.Itoa(i)))
		cmd = append(cmd, i)
	}
	add("bigintset", false, &Value{Kind: KindSet, Set: bigset}, cmd)

	// Zsets: listpack with special scores, and a skiplist.
	add("zspecial", true, &Value{Kind: KindZSet, ZSet: []ZMember{
		{[]byte("top"), math.Inf(1)}, {[]byte("bottom"), math.Inf(-1)}, {[]byte("zero"), 0}, {[]byte("third"), 1.0 / 3},
		{[]byte("neg"), -2.5e-7}, {[]byte("huge"), 1e20}, {[]byte("i"), 4503599627370495}, {[]byte("tie-b"), 7}, {[]byte("tie-a"), 7},
	}}, []any{"ZADD", "zspecial", "+inf", "top", "-inf", "bottom", "0", "zero", strconv.FormatFloat(1.0/3, 'g', 17, 64), "third",
		"-2.5e-7", "neg", "1e20", "huge", "4503599627370495", "i", "7", "tie-b", "7", "tie-a"})
	var bigz []ZMember
	cmd = []any{"ZADD", "bigzset"}
	for i := 1; i <= 200; i++ {
		s := float64(i%50) * 1.5
		bigz = append(bigz, ZMember{[]byte(fmt.Sprintf("member%d", i)), s})
		cmd = append(cmd, strconv.FormatFloat(s, 'g', 17, 64), fmt.Sprintf("member%d", i))
	}
	add("bigzset", true, &Value{Kind: KindZSet, ZSet: bigz}, cmd)
	long := strings.Repeat("m", 65)
	add("zlongmember", true, &Value{Kind: KindZSet, ZSet: []ZMember{{[]byte(long), 1}, {[]byte("s"), 2}}},
		[]any{"ZADD", "zlongmember", "1", long, "2", "s"})

	// Hashes: listpack at the value limit, hashtable over it and over the entry limit.
	v64 := strings.Repeat("v", 64)
	add("h64", true, &Value{Kind: KindHash, Hash: [][2][]byte{{[]byte("a"), []byte(v64)}, {[]byte("n"), []byte("-70000")}, {[]byte("b"), []byte("x")}}},
		[]any{"HSET", "h64", "a", v64, "n", "-70000", "b", "x"})
	add("h65", false, &Value{Kind: KindHash, Hash: [][2][]byte{{[]byte("a"), []byte(v64 + "v")}, {[]byte("b"), []byte("x")}}},
		[]any{"HSET", "h65", "a", v64 + "v", "b", "x"})
	var bh [][2][]byte
	cmd = []any{"HSET", "bighash"}
	for i := 1; i <= 600; i++ {
		f, v := fmt.Sprintf("field%d", i), fmt.Sprintf("value%d", i)
		bh = append(bh, [2][]byte{[]byte(f), []byte(v)})
		cmd = append(cmd, f, v)
	}
	add("bighash", false, &Value{Kind: KindHash, Hash: bh}, cmd)
	return ds
}

func TestRedisDumpByteExact(t *testing.T) {
	rc := startRedis(t, t.TempDir())
	ds := buildDataset()
	opt := EncoderOptions{Compression: true, Checksum: true, Limits: DefaultLimits()}
	for _, k := range ds {
		for _, c := range k.cmds {
			rc.must(t, c...)
		}
	}
	for _, k := range ds {
		redisDump, ok := rc.must(t, "DUMP", k.key).([]byte)
		if !ok {
			t.Fatalf("DUMP %s: no payload", k.key)
		}
		ours := DumpPayload(k.v, opt)
		if ours == nil {
			t.Fatalf("%s: DumpPayload returned nil", k.key)
		}
		if k.ordered && !bytes.Equal(ours, redisDump) {
			t.Errorf("%s: DUMP differs\n ours  %x\n redis %x", k.key, ours[:min(len(ours), 120)], redisDump[:min(len(redisDump), 120)])
		}
		// Same type byte (encoding) even when the order differs.
		if ours[0] != redisDump[0] {
			t.Errorf("%s: type %d, redis %d", k.key, ours[0], redisDump[0])
		}
		// Redis's payload decodes to the same data.
		v, err := ParseDumpPayload(redisDump)
		if err != nil {
			t.Fatalf("%s: ParseDumpPayload(redis): %v", k.key, err)
		}
		if got, want := valueContents(v), valueContents(k.v); got != want {
			t.Errorf("%s: decoded redis payload differs", k.key)
		}
		if PickEncoding(k.v, opt.Limits) != v.Encoding && k.v.Kind != KindString {
			t.Errorf("%s: PickEncoding %s, redis has %s", k.key, PickEncoding(k.v, opt.Limits), v.Encoding)
		}
		// Redis accepts our payload and holds the same data.
		rc.must(t, "RESTORE", "r:"+k.key, 0, ours)
		if got, want := rc.contents(t, "r:"+k.key), rc.contents(t, k.key); got != want {
			t.Errorf("%s: restored data differs", k.key)
		}
		if got, want := rc.contents(t, k.key), valueContents(k.v); got != want {
			t.Errorf("%s: test dataset does not describe redis's data", k.key)
		}
	}
	// A corrupted payload gets the reply ParseDumpPayload predicts.
	p := DumpPayload(ds[0].v, opt)
	p[len(p)-1] ^= 1
	_, redisErr := rc.do("RESTORE", "bad", 0, p)
	_, ourErr := ParseDumpPayload(p)
	if redisErr == nil || ourErr == nil || redisErr.Error() != ourErr.Error() {
		t.Errorf("bad checksum: redis %v, ours %v", redisErr, ourErr)
	}
}

// writeDatasetFile encodes the dataset (plus TTLs and several DBs) as a
// complete RDB file.
func writeDatasetFile(t *testing.T, path string, ds []datasetKey, opt EncoderOptions) {
	t.Helper()
	var buf bytes.Buffer
	e := NewEncoder(&buf, opt)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.Header(StandardAux(time.Now().Unix(), 1<<20, false)))
	must(e.Function([]byte("#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return 1 end)")))
	must(e.SelectDB(0, uint64(len(ds)), 1))
	for i, k := range ds {
		exp := int64(-1)
		if i == 0 {
			exp = 4102444800000
		}
		must(e.Key([]byte(k.key), k.v, exp))
	}
	must(e.SelectDB(3, 1, 0))
	must(e.Key([]byte("db3"), &Value{Kind: KindString, Str: []byte("v")}, -1))
	must(e.Close())
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRedisLoadsOurFile(t *testing.T) {
	dir := t.TempDir()
	ds := buildDataset()
	opt := EncoderOptions{Compression: true, Checksum: true, Limits: DefaultLimits()}
	writeDatasetFile(t, filepath.Join(dir, "dump.rdb"), ds, opt)

	needBinary(t, testsrv.RedisBinDir+"/redis-check-rdb")
	out, err := exec.Command(testsrv.RedisBinDir+"/redis-check-rdb", filepath.Join(dir, "dump.rdb")).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
		t.Fatalf("redis-check-rdb: %v\n%s", err, out)
	}

	rc := startRedis(t, dir, "--dbfilename", "dump.rdb")
	if n := rc.must(t, "DBSIZE").(int64); n != int64(len(ds)) {
		t.Fatalf("DBSIZE = %d, want %d", n, len(ds))
	}
	for _, k := range ds {
		if got, want := rc.contents(t, k.key), valueContents(k.v); got != want {
			t.Errorf("%s: loaded data differs", k.key)
		}
	}
	if ttl := rc.must(t, "PEXPIRETIME", ds[0].key).(int64); ttl != 4102444800000 {
		t.Errorf("PEXPIRETIME = %d", ttl)
	}
	rc.must(t, "SELECT", 3)
	if v := rc.must(t, "GET", "db3"); string(v.([]byte)) != "v" {
		t.Errorf("db3 = %q", v)
	}
	if libs := rc.must(t, "FUNCTION", "LIST").([]any); len(libs) != 1 {
		t.Errorf("FUNCTION LIST = %v", libs)
	}
	// Redis's own SAVE of what it loaded decodes to the same data.
	rc.must(t, "SAVE")
	saved, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := decodeBytes(saved, DecodeOptions{MaxDatabases: 16})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.keys) != len(ds)+1 || len(c.functions) != 1 {
		t.Fatalf("redis SAVE holds %d keys, %d functions", len(c.keys), len(c.functions))
	}
	for _, kr := range c.keys {
		if kr.db != 0 {
			continue
		}
		for _, k := range ds {
			if k.key == kr.key && valueContents(kr.v) != valueContents(k.v) {
				t.Errorf("%s: redis SAVE decodes differently", k.key)
			}
		}
	}
}
