package server

import (
	"regexp"
	"testing"
)

// RESET is Redis 7.0.15's clearClientConnectionState: it leaves tracking,
// MULTI, subscriptions, the name, the DB and the protocol, but keeps
// CLIENT NO-EVICT (other.tcl's RESET tests and CLIENT INFO's flags).
func TestDiffResetKeepsNoEvict(t *testing.T) {
	p := newDiffPair(t)
	p.run([][]string{
		cmd("CLIENT", "SETNAME", "foo"), cmd("CLIENT", "NO-EVICT", "on"), cmd("SELECT", "2"),
		cmd("CLIENT", "TRACKING", "on"), cmd("MULTI"), cmd("SET", "k", "v"),
		cmd("RESET"), cmd("EXEC"), cmd("CLIENT", "GETNAME"), cmd("CLIENT", "TRACKINGINFO"),
	})
	oc, rc := p.conn(0)
	// age and idle are seconds of wall time: the two connections may be
	// on either side of a second.
	re := regexp.MustCompile(`name=\S* age=\d+ idle=\d+ flags=\S+ db=\d+ sub=\d+ psub=\d+ ssub=\d+ multi=-?\d+`)
	secs := regexp.MustCompile(`(age|idle)=\d+`)
	fields := func(c *respConn) string {
		return secs.ReplaceAllString(re.FindString(c.do("CLIENT", "INFO")), "$1=N")
	}
	if got, want := fields(oc), fields(rc); got != want || want == "" {
		t.Fatalf("CLIENT INFO after RESET: ours %q, redis %q", got, want)
	}
	p.run([][]string{cmd("CLIENT", "NO-EVICT", "off"), cmd("RESET")})
	if got, want := fields(oc), fields(rc); got != want || want == "" {
		t.Fatalf("CLIENT INFO after NO-EVICT off and RESET: ours %q, redis %q", got, want)
	}
}
