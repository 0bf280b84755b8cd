package server

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A successful BGSAVE and BGREWRITEAOF log Redis's child lines, under the
// child's pid with role C, before the parent's "terminated with success":
// "DB saved on disk" / "Successfully created the temporary AOF base file
// ...", then "Fork CoW for ...".
func TestChildDoneLogLinesAsRedis(t *testing.T) {
	linePid := regexp.MustCompile(`^(\d+):([MC]) \d\d \w{3} \d{4} [\d:.]+ `)
	num := regexp.MustCompile(`\d+`)
	var got [][]string
	for _, tg := range loadingTargets(t) {
		c := dial(t, tg.addr)
		c.do("SET", "a", "1")
		n := len(tg.log())
		if r := c.do("BGSAVE"); r != "+Background saving started\r\n" {
			t.Fatalf("%s: BGSAVE %q", tg.name, r)
		}
		waitFor(t, tg.name+": BGSAVE", func() bool { return strings.Contains(tg.log(), "Background saving terminated") })
		c.do("BGREWRITEAOF")
		waitFor(t, tg.name+": BGREWRITEAOF", func() bool { return strings.Contains(tg.log(), "Background AOF rewrite finished") })
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(tg.log()[n:]), "\n") {
			m := linePid.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			// the role, and whether the line is the child's (its pid differs)
			msg := m[2] + " " + num.ReplaceAllString(l[len(m[0]):], "N")
			out = append(out, msg)
		}
		got = append(got, out)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("differ\nours:  %q\nredis: %q", got[0], got[1])
	}
}
