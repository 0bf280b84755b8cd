package server

import (
	"regexp"
	"testing"
)

// COPY duplicates a shared integer into an object of its own (Redis's
// dupStringObject): OBJECT REFCOUNT and DEBUG OBJECT of the copy say 1,
// and it stays so through RENAME, MOVE and EXPIRE, until a command
// replaces the value (INCR makes it shared again) or a reload shares it.
func TestDiffCopySharedInteger(t *testing.T) {
	obj := func(k string) [][]string {
		return [][]string{cmd("OBJECT", "ENCODING", k), cmd("OBJECT", "REFCOUNT", k)}
	}
	var cmds [][]string
	add := func(c ...[]string) { cmds = append(cmds, c...) }
	add(cmd("SET", "foo", "1"), cmd("COPY", "foo", "bar"))
	add(obj("foo")...)
	add(obj("bar")...)
	add(cmd("SET", "z", "0"), cmd("COPY", "z", "z2"), cmd("SET", "edge", "9999"), cmd("COPY", "edge", "edge2"))
	add(obj("z2")...)
	add(obj("edge2")...)
	add(cmd("SET", "big", "10000"), cmd("COPY", "big", "big2"), cmd("SET", "neg", "-1"), cmd("COPY", "neg", "neg2"))
	add(obj("big2")...)
	add(obj("neg2")...)
	add(cmd("SET", "s", "abc"), cmd("COPY", "s", "s2"))
	add(obj("s2")...)
	add(cmd("RENAME", "bar", "bar2"), cmd("EXPIRE", "bar2", "1000"))
	add(obj("bar2")...)
	add(cmd("COPY", "bar2", "bar3"), cmd("MOVE", "bar3", "1"), cmd("SELECT", "1"))
	add(obj("bar3")...)
	add(cmd("SELECT", "0"), cmd("COPY", "foo", "inc"), cmd("INCR", "inc"))
	add(obj("inc")...)
	add(cmd("COPY", "foo", "inc2"), cmd("INCRBY", "inc2", "20000"), cmd("DECRBY", "inc2", "20000"))
	add(obj("inc2")...)
	add(cmd("COPY", "foo", "app"), cmd("APPEND", "app", "2"))
	add(obj("app")...)
	add(cmd("COPY", "foo", "rel"), cmd("DEBUG", "RELOAD"))
	add(obj("rel")...)
	add(obj("foo")...)
	p := newDiffPair(t)
	p.run(cmds)
	// DEBUG OBJECT's refcount too.
	oc, rc := p.conn(0)
	re := regexp.MustCompile(`refcount:\d+ encoding:\S+`)
	for _, k := range []string{"foo", "bar2", "z2", "big2", "inc", "rel"} {
		p.run([][]string{cmd("COPY", k, k+"-c")})
		for _, key := range []string{k, k + "-c"} {
			got, want := re.FindString(oc.do("DEBUG", "OBJECT", key)), re.FindString(rc.do("DEBUG", "OBJECT", key))
			if got != want || want == "" {
				t.Fatalf("DEBUG OBJECT %s: ours %q, redis %q", key, got, want)
			}
		}
	}
	p.checkDigest()
}
