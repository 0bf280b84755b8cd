package server

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Commands replayed from the AOF are run by their procs in Redis
// (loadSingleAppendOnlyFile): they count nowhere, but what they run
// through call() (a script's commands, a MULTI block's at EXEC) counts in
// total_commands_processed and failed_calls, not in calls, usec, the
// latency percentiles or the slowlog. Errors count in errorstats.
func TestAOFLoadCommandStatsAsRedis(t *testing.T) {
	figures := regexp.MustCompile(`(usec|usec_per_call|p50|p99|p99\.9)=[0-9.]+`)
	var got [][]string
	for _, tg := range loadingTargets(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no",
		"--latency-tracking", "yes", "--slowlog-log-slower-than", "0") {
		writeIncr(t, tg.dir,
			[]string{"SELECT", "0"},
			[]string{"SET", "s", "str"},
			[]string{"INCR", "s"},
			[]string{"EVAL", "redis.pcall('incr', 's') redis.call('ping') redis.pcall('multi') redis.call('set', 'k', 'v') return 1", "0"},
			[]string{"MULTI"},
			[]string{"SET", "a", "1"},
			[]string{"INCR", "s"},
			[]string{"EXEC"},
			[]string{"GET", "a"},
		)
		c := dial(t, tg.addr)
		c.do("CONFIG", "RESETSTAT")
		c.do("SLOWLOG", "RESET")
		if r := c.do("DEBUG", "LOADAOF"); r != "+OK\r\n" {
			t.Fatalf("%s: DEBUG LOADAOF: %q", tg.name, r)
		}
		var out []string
		for _, sec := range []string{"commandstats", "errorstats", "latencystats"} {
			var lines []string
			for _, l := range strings.Split(bulkText(c.do("INFO", sec)), "\r\n") {
				if l != "" && !strings.HasPrefix(l, "#") {
					lines = append(lines, figures.ReplaceAllString(l, "$1=x"))
				}
			}
			slices.Sort(lines)
			out = append(out, lines...)
		}
		out = append(out, "total_commands_processed:"+infoField(c, "stats", "total_commands_processed"),
			"total_error_replies:"+infoField(c, "stats", "total_error_replies"),
			"slowlog len "+c.do("SLOWLOG", "LEN"))
		got = append(got, out)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("differ\nours:  %q\nredis: %q", got[0], got[1])
	}
}
