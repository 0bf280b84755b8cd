package manifest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/rstring"
)

func mustParse(t *testing.T, s string) *Manifest {
	t.Helper()
	m, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return m
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.manifest")
	if err != nil || len(files) != 5 {
		t.Fatalf("golden files: %v, %v", files, err)
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m := mustParse(t, string(want))
			if got := m.Marshal(); !bytes.Equal(got, want) {
				t.Fatalf("Marshal:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestGoldenStructure(t *testing.T) {
	data, err := os.ReadFile("testdata/multipart-history.manifest")
	if err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, string(data))
	want := &Manifest{
		Base: &File{"appendonly.aof.3.base.rdb", 3, Base},
		History: []File{
			{"appendonly.aof.2.incr.aof", 2, History},
			{"appendonly.aof.2.base.rdb", 2, History},
			{"appendonly.aof.1.incr.aof", 1, History},
			{"appendonly.aof.1.base.rdb", 1, History},
		},
		Incrs:       []File{{"appendonly.aof.3.incr.aof", 3, Incr}},
		CurrBaseSeq: 3,
		CurrIncrSeq: 3,
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	q, err := os.ReadFile("testdata/quoted-names.manifest")
	if err != nil {
		t.Fatal(err)
	}
	if m := mustParse(t, string(q)); m.Base.Name != "my aof.1.base.rdb" || m.Incrs[0].Name != "my aof.1.incr.aof" {
		t.Fatalf("quoted names: %+v %+v", m.Base, m.Incrs)
	}
}

// The transitions replay the history of the golden directories and must
// produce Redis's bytes.
func TestTransitionsReproduceGolden(t *testing.T) {
	golden := func(name string) string {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const F = "appendonly.aof"
	// Startup with no AOF: a base, then the first incr.
	start, base := (&Manifest{}).AfterRewrite(F, true)
	if base != (File{"appendonly.aof.1.base.rdb", 1, Base}) {
		t.Fatalf("first base = %+v", base)
	}
	start, incr := start.WithNewIncr(F)
	if incr != (File{"appendonly.aof.1.incr.aof", 1, Incr}) {
		t.Fatalf("first incr = %+v", incr)
	}

	// Interrupted rewrite: the new incr is listed, nothing else changes.
	two, _ := start.WithNewIncr(F)
	if got := string(two.Marshal()); got != golden("two-incr.manifest") {
		t.Fatalf("two-incr:\n%s", got)
	}

	m := start
	for range 2 { // BGREWRITEAOF twice
		m, _ = m.WithNewIncr(F)
		m, _ = m.AfterRewrite(F, true)
	}
	if got := string(m.Marshal()); got != golden("multipart-history.manifest") {
		t.Fatalf("multipart-history:\n%s", got)
	}
	if m.CurrBaseSeq != 3 || m.CurrIncrSeq != 3 {
		t.Fatalf("seqs %d %d", m.CurrBaseSeq, m.CurrIncrSeq)
	}
	if got := string(m.WithoutHistory().Marshal()); got != "file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n" {
		t.Fatalf("WithoutHistory:\n%s", got)
	}

	up, _ := Upgraded(F).WithNewIncr(F)
	if got := string(up.Marshal()); got != golden("upgraded-from-6.x.manifest") {
		t.Fatalf("upgraded:\n%s", got)
	}
	q, _ := (&Manifest{}).AfterRewrite("my aof", true)
	q, _ = q.WithNewIncr("my aof")
	if got := string(q.Marshal()); got != golden("quoted-names.manifest") {
		t.Fatalf("quoted:\n%s", got)
	}
}

func TestTransitionsDoNotModifyReceiver(t *testing.T) {
	m := mustParse(t, "file a.1.base.rdb seq 1 type b\nfile old seq 9 type h\nfile a.1.incr.aof seq 1 type i\nfile a.2.incr.aof seq 2 type i\nfile a.3.incr.aof seq 3 type i\n")
	before := string(m.Marshal())
	snapshot := m.Clone()

	r, base := m.AfterRewrite("a", false)
	if base != (File{"a.2.base.aof", 2, Base}) {
		t.Fatalf("base = %+v", base)
	}
	want := "file a.2.base.aof seq 2 type b\n" +
		"file a.1.incr.aof seq 1 type h\n" +
		"file a.2.incr.aof seq 2 type h\n" +
		"file a.1.base.rdb seq 1 type h\n" +
		"file old seq 9 type h\n" +
		"file a.3.incr.aof seq 3 type i\n"
	if got := string(r.Marshal()); got != want {
		t.Fatalf("AfterRewrite:\n%s\nwant:\n%s", got, want)
	}
	off, _ := m.AfterRewriteAOFOff("a", true)
	want = "file a.2.base.rdb seq 2 type b\n" +
		"file a.1.incr.aof seq 1 type h\n" +
		"file a.2.incr.aof seq 2 type h\n" +
		"file a.3.incr.aof seq 3 type h\n" +
		"file a.1.base.rdb seq 1 type h\n" +
		"file old seq 9 type h\n"
	if got := string(off.Marshal()); got != want {
		t.Fatalf("AfterRewriteAOFOff:\n%s\nwant:\n%s", got, want)
	}
	if off.CurrIncrSeq != 3 || off.Empty() || len(off.Incrs) != 0 {
		t.Fatalf("AOFOff counters: %+v", off)
	}
	// Off-then-on restarts nothing: the incr counter survives in memory.
	if _, f := off.WithNewIncr("a"); f.Seq != 4 {
		t.Fatalf("next incr after AOF-off rewrite = %d", f.Seq)
	}
	m.WithNewIncr("a")
	m.WithoutHistory()
	c := m.Clone()
	c.History[0].Name = "changed"
	c.Base.Seq = 77
	if got := string(m.Marshal()); got != before || !reflect.DeepEqual(m, snapshot) {
		t.Fatalf("receiver modified:\n%s", got)
	}
}

func TestEmptyAndNil(t *testing.T) {
	var nilM *Manifest
	if !nilM.Empty() || len(nilM.Marshal()) != 0 || !nilM.Clone().Empty() {
		t.Fatal("nil manifest not empty")
	}
	if _, ok := nilM.LastIncr(); ok {
		t.Fatal("nil LastIncr ok")
	}
	m := mustParse(t, "file h seq 1 type h\n")
	if !m.Empty() {
		t.Fatal("history-only manifest must be Empty (no base, no incr)")
	}
	if mustParse(t, "file b seq 1 type b\n").Empty() || mustParse(t, "file i seq 1 type i\n").Empty() {
		t.Fatal("base-only or incr-only manifest reported Empty")
	}
	if f, ok := mustParse(t, "file i seq 1 type i\nfile j seq 5 type i\n").LastIncr(); !ok || f.Name != "j" {
		t.Fatalf("LastIncr = %+v %v", f, ok)
	}
}

func TestNames(t *testing.T) {
	for got, want := range map[string]string{
		BaseName("appendonly.aof", 3, true):   "appendonly.aof.3.base.rdb",
		BaseName("appendonly.aof", 12, false): "appendonly.aof.12.base.aof",
		IncrName("appendonly.aof", 3):         "appendonly.aof.3.incr.aof",
		TempIncrName("appendonly.aof"):        "temp-appendonly.aof.incr",
		ManifestName("appendonly.aof"):        "appendonly.aof.manifest",
		TempManifestName("appendonly.aof"):    "temp-appendonly.aof.manifest",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestAtoll(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "12": 12, "+7": 7, "-3": -3, " \t\v\f\r\n42": 42, "5abc": 5, "abc": 0, "": 0, "-": 0,
		"9223372036854775807":  math.MaxInt64,
		"9223372036854775808":  math.MaxInt64,
		"99999999999999999999": math.MaxInt64,
		"-9223372036854775808": math.MinInt64,
		"-9223372036854775809": math.MinInt64,
		"1\x002":               1,
	} {
		if got := rstring.Atoll([]byte(in)); got != want {
			t.Errorf("rstring.Atoll(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil: split fails
	}{
		{`a b  c`, []string{"a", "b", "c"}},
		{"a\tb\vc", []string{"a", "b\vc"}}, // \v separates only between tokens
		{"\va b", []string{"a", "b"}},
		{`"a b" 'c d'`, []string{"a b", "c d"}},
		{`"\x41\x4a\x4G\n\r\t\b\a\q\\\""`, []string{"AJx4G\n\r\t\b\aq\\\""}},
		{`'it\'s' '\n'`, []string{"it's", `\n`}},
		{`ab"cd"`, []string{"abcd"}},
		{`ab'cd' e`, []string{"abcd", "e"}},
		{`""`, []string{""}},
		{`"a"b`, nil},
		{`'a'b`, nil},
		{`"abc`, nil},
		{`'abc`, nil},
		{`"abc\`, nil},
		{`"a"` + "\v" + `b`, []string{"a", "b"}},
	} {
		got, ok := rstring.SplitArgs([]byte(tc.in))
		if tc.want == nil {
			if ok {
				t.Errorf("rstring.SplitArgs(%q) = %q, want failure", tc.in, got)
			}
			continue
		}
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if !ok || !reflect.DeepEqual(gs, tc.want) {
			t.Errorf("rstring.SplitArgs(%q) = %q, %v; want %q", tc.in, gs, ok, tc.want)
		}
	}
}

func TestMarshalQuoting(t *testing.T) {
	for name, want := range map[string]string{
		"plain.aof":            `plain.aof`,
		"my aof":               `"my aof"`,
		"a\"b\\c":              `"a\"b\\c"`,
		"\n\r\t\a\b\v\f\x00":   `"\n\r\t\a\b\x0b\x0c\x00"`,
		"caf\xc3\xa9\x7f":      `"caf\xc3\xa9\x7f"`,
		"":                     `""`,
		"it's":                 `"it's"`,
		"~!@#$%^&*()_+{}|:<>?": `~!@#$%^&*()_+{}|:<>?`,
	} {
		m := &Manifest{Base: &File{Name: name, Seq: 1, Type: Base}}
		got := string(m.Marshal())
		if exp := "file " + want + " seq 1 type b\n"; got != exp {
			t.Errorf("Marshal(%q) = %q, want %q", name, got, exp)
		}
		if strings.ContainsAny(name, "\x00/\\") { // Parse rejects or cuts these
			continue
		}
		if back := mustParse(t, got); back.Base.Name != name {
			t.Errorf("reparse of %q gave %q", got, back.Base.Name)
		}
	}
}
