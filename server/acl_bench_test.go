package server

import (
	"strconv"
	"testing"
)

// BenchmarkExecSetACL is BenchmarkExecSet run as an ACL user: the default
// user (allowed everything: one flag test), and a user whose key patterns
// make processCommand extract and match the keys.
func BenchmarkExecSetACL(b *testing.B) {
	for _, tc := range []struct {
		name  string
		rules []string
	}{
		{"default", nil},
		{"keypattern", []string{"on", "nopass", "+@all", "~key:*"}},
		{"selector", []string{"on", "nopass", "+get", "~other:*", "(+@all ~key:*)"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ts := startOurServer(b)
			s := ts.s
			c := execClient(s, 99)
			s.mu.Lock()
			defer s.mu.Unlock()
			c.user = s.acl.def
			if tc.rules != nil {
				u := s.acl.rules.NewUser("bench")
				for _, r := range tc.rules {
					if e := s.acl.rules.Set(u, r); e != nil {
						b.Fatal(e)
					}
				}
				c.user = u
			}
			const nkeys = 100000
			keys := make([][]byte, nkeys)
			for i := range keys {
				keys[i] = []byte("key:" + strconv.Itoa(i*7919%nkeys))
			}
			argv := [][]byte{[]byte("SET"), nil, []byte("xxx")}
			for _, k := range keys {
				argv[1] = k
				s.processCommand(c, argv)
			}
			if string(c.out[:3]) != "+OK" {
				b.Fatalf("%q", c.out[:40])
			}
			c.out = c.out[:0]
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				argv[1] = keys[i%nkeys]
				s.processCommand(c, argv)
				c.out = c.out[:0]
			}
		})
	}
}
