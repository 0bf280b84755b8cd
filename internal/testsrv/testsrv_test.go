package testsrv

import (
	"strings"
	"testing"
	"time"
)

// TestStartRedisAndParse starts the real redis-server and checks the RESP
// client's raw and parsed forms of RESP2 and RESP3 replies.
func TestStartRedisAndParse(t *testing.T) {
	p := StartRedis(t, "")
	c, err := DialConn(p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const d = 10 * time.Second
	if l, err := c.DoLine(d, "SET", "k", "v"); err != nil || l != "+OK" {
		t.Fatalf("SET: %q %v", l, err)
	}
	if l, err := c.DoLine(d, "GET", "k"); err != nil || l != "v" {
		t.Fatalf("GET: %q %v", l, err)
	}
	if raw, err := c.DoRaw(d, "MGET", "k", "nokey"); err != nil || raw != "*2\r\n$1\r\nv\r\n$-1\r\n" {
		t.Fatalf("MGET: %q %v", raw, err)
	}
	v, err := c.Do(d, "HELLO", "3")
	if err != nil || v.Kind != '%' || len(v.Elems)%2 != 0 {
		t.Fatalf("HELLO 3: %+v %v", v, err)
	}
	if v, err := c.Do(d, "GET", "nokey"); err != nil || v.Kind != '_' || !v.Nil {
		t.Fatalf("RESP3 GET nokey: %+v %v", v, err)
	}
	if v, err := c.Do(d, "NOSUCH"); err != nil || v.Kind != '-' || !strings.HasPrefix(v.Str, "ERR unknown command") {
		t.Fatalf("NOSUCH: %+v %v", v, err)
	}
	WaitFor(t, 10*time.Second, "the ready line in redis.log", func() bool {
		return CountLines(p.LogText(), ReadyLine) == 1
	})
}
