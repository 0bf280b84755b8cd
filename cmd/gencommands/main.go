// Command gencommands writes cmdmeta/commands_gen.go: Redis 7.0.15's command
// metadata (what COMMAND INFO and COMMAND DOCS return) as a Go table.
//
// The metadata is read from a real redis-server 7.0.15, which it starts on
// a free 127.0.0.1 port: that binary's replies are exactly 7.0.15's
// src/commands/*.json as compiled into it, with the flags and ACL
// categories Redis derives at start-up, so there is nothing to reconcile by
// hand. It refuses any other version. Run it from cmdmeta/ through
// `go generate` (see doc.go) or by hand:
//
//	go run ./cmd/gencommands -redis-server /usr/bin/redis-server -o cmdmeta/commands_gen.go
//
// Every map key of the replies is checked against the order Redis writes
// them in (server.c's addReplyCommandInfo/addReplyCommandDocs), so a field
// this generator does not know stops it instead of being dropped.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

const wantVersion = "7.0.15"

func main() {
	bin := flag.String("redis-server", "/usr/bin/redis-server", "redis-server "+wantVersion+" binary to read the metadata from")
	out := flag.String("o", "commands_gen.go", "output file")
	flag.Parse()
	if err := run(*bin, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gencommands:", err)
		os.Exit(1)
	}
}

func run(bin, out string) error {
	dir, err := os.MkdirTemp("", "gencommands")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	srv := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
	if err := srv.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", bin, err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()

	var nc net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; {
		nc, err = net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("connecting to %s on port %d: %w", bin, port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	do := func(args ...string) (*value, error) {
		var b bytes.Buffer
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := nc.Write(b.Bytes()); err != nil {
			return nil, err
		}
		v, err := parse(br)
		if err == nil && v.kind == '-' {
			err = fmt.Errorf("%v: %s", args, v.str)
		}
		return v, err
	}
	hello, err := do("HELLO", "3")
	if err != nil {
		return err
	}
	if ver := hello.get("version"); ver == nil || ver.str != wantVersion {
		return fmt.Errorf("%s is not redis-server %s", bin, wantVersion)
	}
	info, err := do("COMMAND")
	if err != nil {
		return err
	}
	docs, err := do("COMMAND", "DOCS")
	if err != nil {
		return err
	}
	cmds, err := build(info, docs)
	if err != nil {
		return err
	}
	src := emit(cmds)
	formatted, err := format.Source(src)
	if err != nil {
		return fmt.Errorf("formatting the output: %w", err)
	}
	return os.WriteFile(out, formatted, 0o644)
}

// value is a parsed RESP3 reply.
type value struct {
	kind  byte // + - : $ * % ~ _
	str   string
	n     int64
	elems []*value // maps: key, value, key, value...
}

func parse(br *bufio.Reader) (*value, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("bad reply line %q", line)
	}
	v := &value{kind: line[0]}
	body := line[1 : len(line)-2]
	switch v.kind {
	case '+', '-':
		v.str = body
	case ':':
		v.n, err = strconv.ParseInt(body, 10, 64)
	case '_':
	case '$':
		var n int
		if n, err = strconv.Atoi(body); err == nil {
			buf := make([]byte, n+2)
			if _, err = io.ReadFull(br, buf); err == nil {
				v.str = string(buf[:n])
			}
		}
	case '*', '%', '~':
		var n int
		if n, err = strconv.Atoi(body); err == nil {
			if v.kind == '%' {
				n *= 2
			}
			for i := 0; i < n && err == nil; i++ {
				var e *value
				e, err = parse(br)
				v.elems = append(v.elems, e)
			}
		}
	default:
		err = fmt.Errorf("unexpected reply type %q", line)
	}
	return v, err
}

// get returns the value of map key k, or nil.
func (v *value) get(k string) *value {
	if v.kind != '%' {
		return nil
	}
	for i := 0; i+1 < len(v.elems); i += 2 {
		if v.elems[i].str == k {
			return v.elems[i+1]
		}
	}
	return nil
}

// checkKeys verifies that map v's keys appear in the order given by order
// (each at most once), so that re-emitting them in that order is exact.
func checkKeys(v *value, what string, order ...string) error {
	if v.kind != '%' {
		return fmt.Errorf("%s: not a map (%q)", what, v.kind)
	}
	pos := 0
	for i := 0; i < len(v.elems); i += 2 {
		k := v.elems[i].str
		for pos < len(order) && order[pos] != k {
			pos++
		}
		if pos == len(order) {
			return fmt.Errorf("%s: unknown or out-of-order key %q", what, k)
		}
		pos++
	}
	return nil
}

// strs returns the strings of a set or array of simple or bulk strings,
// requiring the element kind elemKind.
func strs(v *value, aggKind, elemKind byte, what string) ([]string, error) {
	if v.kind != aggKind {
		return nil, fmt.Errorf("%s: aggregate %q, want %q", what, v.kind, aggKind)
	}
	var out []string
	for _, e := range v.elems {
		if e.kind != elemKind {
			return nil, fmt.Errorf("%s: element %q, want %q", what, e.kind, elemKind)
		}
		out = append(out, e.str)
	}
	return out, nil
}

type keySpec struct {
	notes                         string
	flags                         []string
	bs                            string
	index                         int64
	keyword                       string
	startfrom                     int64
	fk                            string
	lastkey, keystep, limit       int64
	keynumidx, firstkey, fkeystep int64
}

type arg struct {
	name, typ                              string
	keySpecIndex                           int64 // -1 when absent
	emptyToken                             bool
	token, summary, since, deprecatedSince string
	flags                                  []string
	args                                   []*arg
	hasArgs                                bool
}

type cmd struct {
	name                              string
	arity                             int64
	flags                             []string
	firstKey, lastKey, step           int64
	acl, tips                         []string
	keySpecs                          []keySpec
	summary, since, group, complexity string
	docFlags                          []string
	deprecatedSince, replacedBy       string
	history                           [][2]string
	hasHistory                        bool
	args                              []*arg
	hasArgs                           bool
	subs                              []*cmd
	hasSubs                           bool
}

func build(info, docs *value) ([]*cmd, error) {
	if info.kind != '*' {
		return nil, errors.New("COMMAND: not an array")
	}
	var out []*cmd
	for _, iv := range info.elems {
		c, err := buildInfo(iv)
		if err != nil {
			return nil, err
		}
		dv := docs.get(c.name)
		if dv == nil {
			return nil, fmt.Errorf("COMMAND DOCS has no %s", c.name)
		}
		if err := addDocs(c, dv); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sortCmds(out)
	return out, nil
}

func sortCmds(cs []*cmd) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		sortCmds(c.subs)
	}
}

func buildInfo(v *value) (*cmd, error) {
	if v.kind != '*' || len(v.elems) != 10 {
		return nil, errors.New("COMMAND entry: not a 10-element array")
	}
	e := v.elems
	c := &cmd{name: e[0].str, arity: e[1].n, firstKey: e[3].n, lastKey: e[4].n, step: e[5].n}
	var err error
	if c.flags, err = strs(e[2], '~', '+', c.name+" flags"); err != nil {
		return nil, err
	}
	if c.acl, err = strs(e[6], '~', '+', c.name+" acl"); err != nil {
		return nil, err
	}
	if c.tips, err = strs(e[7], '~', '$', c.name+" tips"); err != nil {
		return nil, err
	}
	if e[8].kind != '~' {
		return nil, fmt.Errorf("%s key specs: not a set", c.name)
	}
	for _, ks := range e[8].elems {
		k, err := buildKeySpec(ks, c.name)
		if err != nil {
			return nil, err
		}
		c.keySpecs = append(c.keySpecs, k)
	}
	switch e[9].kind {
	case '~': // no subcommands
		if len(e[9].elems) != 0 {
			return nil, fmt.Errorf("%s subcommands: a non-empty set", c.name)
		}
	case '*':
		c.hasSubs = true
		for _, sv := range e[9].elems {
			sc, err := buildInfo(sv)
			if err != nil {
				return nil, err
			}
			c.subs = append(c.subs, sc)
		}
	default:
		return nil, fmt.Errorf("%s subcommands: %q", c.name, e[9].kind)
	}
	return c, nil
}

func buildKeySpec(v *value, name string) (keySpec, error) {
	var k keySpec
	what := name + " key spec"
	if err := checkKeys(v, what, "notes", "flags", "begin_search", "find_keys"); err != nil {
		return k, err
	}
	if n := v.get("notes"); n != nil {
		k.notes = n.str
	}
	var err error
	if k.flags, err = strs(v.get("flags"), '~', '+', what+" flags"); err != nil {
		return k, err
	}
	bs, fk := v.get("begin_search"), v.get("find_keys")
	if bs == nil || fk == nil {
		return k, fmt.Errorf("%s: no begin_search or find_keys", what)
	}
	if err := checkKeys(bs, what, "type", "spec"); err != nil {
		return k, err
	}
	if err := checkKeys(fk, what, "type", "spec"); err != nil {
		return k, err
	}
	k.bs = bs.get("type").str
	spec := bs.get("spec")
	switch k.bs {
	case "index":
		if err := checkKeys(spec, what, "index"); err != nil {
			return k, err
		}
		k.index = spec.get("index").n
	case "keyword":
		if err := checkKeys(spec, what, "keyword", "startfrom"); err != nil {
			return k, err
		}
		k.keyword, k.startfrom = spec.get("keyword").str, spec.get("startfrom").n
	case "unknown":
		if len(spec.elems) != 0 {
			return k, fmt.Errorf("%s: unknown begin_search with a spec", what)
		}
	default:
		return k, fmt.Errorf("%s: begin_search type %q", what, k.bs)
	}
	k.fk = fk.get("type").str
	spec = fk.get("spec")
	switch k.fk {
	case "range":
		if err := checkKeys(spec, what, "lastkey", "keystep", "limit"); err != nil {
			return k, err
		}
		k.lastkey, k.keystep, k.limit = spec.get("lastkey").n, spec.get("keystep").n, spec.get("limit").n
	case "keynum":
		if err := checkKeys(spec, what, "keynumidx", "firstkey", "keystep"); err != nil {
			return k, err
		}
		k.keynumidx, k.firstkey, k.fkeystep = spec.get("keynumidx").n, spec.get("firstkey").n, spec.get("keystep").n
	case "unknown":
		if len(spec.elems) != 0 {
			return k, fmt.Errorf("%s: unknown find_keys with a spec", what)
		}
	default:
		return k, fmt.Errorf("%s: find_keys type %q", what, k.fk)
	}
	return k, nil
}

func addDocs(c *cmd, v *value) error {
	what := c.name + " docs"
	if err := checkKeys(v, what, "summary", "since", "group", "complexity", "doc_flags",
		"deprecated_since", "replaced_by", "history", "arguments", "subcommands"); err != nil {
		return err
	}
	str := func(k string) string {
		if e := v.get(k); e != nil {
			return e.str
		}
		return ""
	}
	for _, k := range []string{"summary", "since", "group", "complexity", "deprecated_since", "replaced_by"} {
		if x := v.get(k); x != nil && x.str == "" {
			return fmt.Errorf("%s: empty %s (the table cannot tell it from an absent one)", what, k)
		}
	}
	c.summary, c.since, c.group, c.complexity = str("summary"), str("since"), str("group"), str("complexity")
	c.deprecatedSince, c.replacedBy = str("deprecated_since"), str("replaced_by")
	if df := v.get("doc_flags"); df != nil {
		var err error
		if c.docFlags, err = strs(df, '~', '+', what+" doc_flags"); err != nil {
			return err
		}
	}
	if h := v.get("history"); h != nil {
		if h.kind != '~' {
			return fmt.Errorf("%s history: %q", what, h.kind)
		}
		c.hasHistory = true
		for _, e := range h.elems {
			pair, err := strs(e, '*', '$', what+" history")
			if err != nil || len(pair) != 2 {
				return fmt.Errorf("%s history entry: %v", what, err)
			}
			c.history = append(c.history, [2]string{pair[0], pair[1]})
		}
	}
	if a := v.get("arguments"); a != nil {
		var err error
		c.hasArgs = true
		if c.args, err = buildArgs(a, what); err != nil {
			return err
		}
	}
	sv := v.get("subcommands")
	if (sv != nil) != c.hasSubs {
		return fmt.Errorf("%s: COMMAND and COMMAND DOCS disagree on subcommands", c.name)
	}
	for _, sc := range c.subs {
		d := sv.get(sc.name)
		if d == nil {
			return fmt.Errorf("COMMAND DOCS has no %s", sc.name)
		}
		if err := addDocs(sc, d); err != nil {
			return err
		}
	}
	if sv != nil && len(sv.elems)/2 != len(c.subs) {
		return fmt.Errorf("%s: COMMAND DOCS lists other subcommands", c.name)
	}
	return nil
}

func buildArgs(v *value, what string) ([]*arg, error) {
	if v.kind != '*' {
		return nil, fmt.Errorf("%s arguments: %q", what, v.kind)
	}
	var out []*arg
	for _, e := range v.elems {
		if err := checkKeys(e, what+" argument", "name", "type", "key_spec_index", "token", "summary",
			"since", "deprecated_since", "flags", "arguments"); err != nil {
			return nil, err
		}
		str := func(k string) string {
			if x := e.get(k); x != nil {
				return x.str
			}
			return ""
		}
		for _, k := range []string{"name", "type", "summary", "since", "deprecated_since"} {
			if x := e.get(k); x != nil && x.str == "" {
				return nil, fmt.Errorf("%s argument: empty %s (the table cannot tell it from an absent one)", what, k)
			}
		}
		a := &arg{name: str("name"), typ: str("type"), token: str("token"), summary: str("summary"),
			since: str("since"), deprecatedSince: str("deprecated_since"), keySpecIndex: -1}
		if tok := e.get("token"); tok != nil && tok.str == "" {
			a.emptyToken = true // MIGRATE's "" for the key in the KEYS form
		}
		if ki := e.get("key_spec_index"); ki != nil {
			a.keySpecIndex = ki.n
		}
		if f := e.get("flags"); f != nil {
			var err error
			if a.flags, err = strs(f, '~', '+', what+" argument flags"); err != nil {
				return nil, err
			}
		}
		if sub := e.get("arguments"); sub != nil {
			var err error
			a.hasArgs = true
			if a.args, err = buildArgs(sub, what); err != nil {
				return nil, err
			}
		}
		out = append(out, a)
	}
	return out, nil
}

func emit(cmds []*cmd) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by cmd/gencommands from redis-server " + wantVersion + "; DO NOT EDIT.\n\n")
	b.WriteString("package cmdmeta\n\n")
	b.WriteString("// Redis is Redis " + wantVersion + "'s COMMAND INFO and COMMAND DOCS\n")
	b.WriteString("// metadata of every command, sorted by name.\n")
	b.WriteString("var Redis = []*Meta{\n")
	for _, c := range cmds {
		emitCmd(&b, c)
		b.WriteString(",\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func q(s string) string { return strconv.Quote(s) }

func qs(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = q(s)
	}
	return "[]string{" + strings.Join(parts, ", ") + "}"
}

func emitCmd(b *bytes.Buffer, c *cmd) {
	fmt.Fprintf(b, "{Name: %s, Arity: %d, Flags: %s, FirstKey: %d, LastKey: %d, Step: %d,\n",
		q(c.name), c.arity, qs(c.flags), c.firstKey, c.lastKey, c.step)
	fmt.Fprintf(b, "ACL: %s,\n", qs(c.acl))
	if len(c.tips) > 0 {
		fmt.Fprintf(b, "Tips: %s,\n", qs(c.tips))
	}
	if len(c.keySpecs) > 0 {
		b.WriteString("KeySpecs: []KeySpec{\n")
		for _, k := range c.keySpecs {
			b.WriteString("{")
			if k.notes != "" {
				fmt.Fprintf(b, "Notes: %s, ", q(k.notes))
			}
			fmt.Fprintf(b, "Flags: %s, BS: %s, ", qs(k.flags), q(k.bs))
			switch k.bs {
			case "index":
				fmt.Fprintf(b, "Index: %d, ", k.index)
			case "keyword":
				fmt.Fprintf(b, "Keyword: %s, StartFrom: %d, ", q(k.keyword), k.startfrom)
			}
			fmt.Fprintf(b, "FK: %s", q(k.fk))
			switch k.fk {
			case "range":
				fmt.Fprintf(b, ", LastKey: %d, KeyStep: %d, Limit: %d", k.lastkey, k.keystep, k.limit)
			case "keynum":
				fmt.Fprintf(b, ", KeyNumIdx: %d, FirstKey: %d, KeyStep: %d", k.keynumidx, k.firstkey, k.fkeystep)
			}
			b.WriteString("},\n")
		}
		b.WriteString("},\n")
	}
	fmt.Fprintf(b, "Summary: %s, Since: %s, Group: %s,\n", q(c.summary), q(c.since), q(c.group))
	if c.complexity != "" {
		fmt.Fprintf(b, "Complexity: %s,\n", q(c.complexity))
	}
	if len(c.docFlags) > 0 {
		fmt.Fprintf(b, "DocFlags: %s,\n", qs(c.docFlags))
	}
	if c.deprecatedSince != "" {
		fmt.Fprintf(b, "DeprecatedSince: %s,\n", q(c.deprecatedSince))
	}
	if c.replacedBy != "" {
		fmt.Fprintf(b, "ReplacedBy: %s,\n", q(c.replacedBy))
	}
	if c.hasHistory {
		b.WriteString("History: [][2]string{\n")
		for _, h := range c.history {
			fmt.Fprintf(b, "{%s, %s},\n", q(h[0]), q(h[1]))
		}
		b.WriteString("},\n")
	}
	if c.hasArgs {
		b.WriteString("Args: ")
		emitArgs(b, c.args)
		b.WriteString(",\n")
	}
	if c.hasSubs {
		b.WriteString("Subs: []*Meta{\n")
		for _, s := range c.subs {
			emitCmd(b, s)
			b.WriteString(",\n")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}")
}

func emitArgs(b *bytes.Buffer, args []*arg) {
	b.WriteString("[]Arg{\n")
	for _, a := range args {
		fmt.Fprintf(b, "{Name: %s, Type: %s", q(a.name), q(a.typ))
		if a.keySpecIndex >= 0 {
			fmt.Fprintf(b, ", KeySpecIndex: %d", a.keySpecIndex+1)
		}
		if a.token != "" {
			fmt.Fprintf(b, ", Token: %s", q(a.token))
		}
		if a.emptyToken {
			b.WriteString(", EmptyToken: true")
		}
		if a.summary != "" {
			fmt.Fprintf(b, ", Summary: %s", q(a.summary))
		}
		if a.since != "" {
			fmt.Fprintf(b, ", Since: %s", q(a.since))
		}
		if a.deprecatedSince != "" {
			fmt.Fprintf(b, ", DeprecatedSince: %s", q(a.deprecatedSince))
		}
		if len(a.flags) > 0 {
			fmt.Fprintf(b, ", Flags: %s", qs(a.flags))
		}
		if a.hasArgs {
			b.WriteString(", Args: ")
			emitArgs(b, a.args)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}")
}
