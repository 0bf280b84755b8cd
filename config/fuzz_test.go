package config

import (
	"strings"
	"testing"
)

// FuzzParseRedisConf: any text either parses or yields a *ParseError; it
// never panics, and a successful parse survives a rewrite round trip.
func FuzzParseRedisConf(f *testing.F) {
	for _, s := range []string{
		"port 6379\nbind 127.0.0.1 -::1\nsave 900 1\n",
		`requirepass "a\x41\n" 'b\'c'`,
		"maxmemory 1gb\nclient-output-buffer-limit normal 1mb 2mb 3\n",
		"notify-keyspace-events KEA\nslaveof 1.2.3.4 5\n",
		"port \"abc\nfoo\n",
		"save \"\"\nhash-max-ziplist-entries 1\nlatency-tracking-info-percentiles 1.5 99\n",
		"include /nonexistent/*.conf\nrename-command A B\nx.y 1\n",
		"oom-score-adj-values 1 2 3\nshutdown-on-sigint save now\nunixsocketperm 777\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		// Keep the fuzzer away from includes of real files and huge inputs.
		if len(text) > 4096 || strings.Contains(strings.ToLower(text), "include") {
			return
		}
		c := Default()
		err := ParseRedisConf(c, text, "fuzz.conf")
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		all := c.Get("*")
		// Rewriting from scratch and re-parsing gives the same values.
		out := c.rewriteContent("", false)
		c2 := Default()
		if err := ParseRedisConf(c2, out, "rewritten.conf"); err != nil {
			t.Fatalf("rewritten config does not parse: %v\n%s", err, out)
		}
		if got := c2.Get("*"); len(got) != len(all) {
			t.Fatalf("rewrite lost directives")
		} else {
			for i := range got {
				if got[i] != all[i] && got[i][0] != "dir" {
					t.Fatalf("rewrite changed %s: %q -> %q\n%s", all[i][0], all[i][1], got[i][1], out)
				}
			}
		}
	})
}

// FuzzParseYAML: arbitrary YAML yields a value or an error, never a panic.
func FuzzParseYAML(f *testing.F) {
	f.Add("port: 1\nsave: [[1, 2]]\nbind: [a, b]\n")
	f.Add("- x\n")
	f.Add("a: &x [1]\nb: *x\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 || strings.Contains(strings.ToLower(text), "include") {
			return
		}
		_ = ParseYAML(Default(), strings.NewReader(text), "fuzz.yaml")
	})
}
