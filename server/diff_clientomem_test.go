package server

import (
	"regexp"
	"strings"
	"testing"
)

// A client's own CLIENT INFO / CLIENT LIST line shows no output pending
// once it read its replies (omem=0 events=r, as Redis 7.0.15 always
// does): a client with asynchronous output (it subscribed once) must not
// see the reply it already got as still being written.
func TestDiffClientOwnOmemAfterReplies(t *testing.T) {
	p := newDiffPair(t)
	oc, rc := p.conn(0)
	big := strings.Repeat("x", 200000)
	fields := regexp.MustCompile(` omem=\d+ tot-mem=\d+ events=\S+`)
	evs := regexp.MustCompile(` omem=\d+ .*events=\S+`)
	for _, c := range []*respConn{oc, rc} {
		c.do("SET", "big", big)
		c.do("SUBSCRIBE", "ch")
		c.do("UNSUBSCRIBE", "ch")
	}
	for i := 0; i < 300; i++ {
		for _, c := range []*respConn{oc, rc} {
			if got := c.do("GET", "big"); len(got) != len(big)+len("$200000\r\n\r\n") {
				t.Fatalf("GET: %d bytes", len(got))
			}
			line := c.do("CLIENT", "INFO")
			f := fields.FindString(line)
			if !strings.HasPrefix(f, " omem=0 ") || !strings.HasSuffix(f, " events=r") {
				t.Fatalf("round %d, %s: own CLIENT INFO shows %q, want omem=0 events=r", i, map[bool]string{true: "ours", false: "redis"}[c == oc], evs.FindString(line))
			}
		}
	}
}
