package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/rstring"
)

func mustParse(t *testing.T, text string) *Config {
	t.Helper()
	c := Default()
	if err := ParseRedisConf(c, text, "test.conf"); err != nil {
		t.Fatalf("ParseRedisConf(%q): %v", text, err)
	}
	return c
}

func get1(t *testing.T, c *Config, name string) string {
	t.Helper()
	r := c.Get(name)
	if len(r) != 1 {
		t.Fatalf("Get(%q) = %v", name, r)
	}
	return r[0][1]
}

func TestDefaults(t *testing.T) {
	c := Default()
	if c.Port != 6379 || !reflect.DeepEqual(c.Bind, []string{"*", "-::*"}) || !c.ProtectedMode ||
		c.Databases != 16 || c.AppendFsync != "everysec" || c.AppendFilename != "appendonly.aof" ||
		c.AppendDirname != "appendonlydir" || !c.AOFUseRDBPreamble || !c.AOFLoadTruncated ||
		c.AutoAOFRewritePercentage != 100 || c.AutoAOFRewriteMinSize != 64<<20 || c.DBFilename != "dump.rdb" ||
		c.MaxClients != 10000 || c.Hz != 10 || c.LogLevel != "notice" || c.EnableDebugCommand != "no" ||
		c.LogFormat != "redis" || c.ListMaxListpackSize != -2 || c.ProtoMaxBulkLen != 512<<20 ||
		c.ClientQueryBufferLimit != 1<<30 || !c.ActiveExpireEnabled || c.AOFGroupCommitDelayUsec != 0 {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	want := []SavePoint{{3600, 1}, {300, 100}, {60, 10000}}
	if !reflect.DeepEqual(c.Save, want) {
		t.Fatalf("save = %v", c.Save)
	}
	if c.ClientOutputBufferLimit[ClassReplica] != (OutputBufferLimit{256 << 20, 64 << 20, 60}) {
		t.Fatalf("obuf = %v", c.ClientOutputBufferLimit)
	}
	if got := get1(t, c, "client-output-buffer-limit"); got != "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60" {
		t.Fatalf("obuf get = %q", got)
	}
	if got := get1(t, c, "save"); got != "3600 1 300 100 60 10000" {
		t.Fatalf("save get = %q", got)
	}
}

func TestSyntax(t *testing.T) {
	tests := []struct {
		name, text string
		check      func(c *Config) bool
	}{
		{"double quotes and escapes", `requirepass "a b\x41\n\"q\""`, func(c *Config) bool { return c.Requirepass == "a bA\n\"q\"" }},
		{"single quotes", `requirepass 'it\'s'`, func(c *Config) bool { return c.Requirepass == "it's" }},
		{"tabs and CRLF", "port\t7000\r\n", func(c *Config) bool { return c.Port == 7000 }},
		{"case-insensitive names and yes/no", "APPENDONLY YES", func(c *Config) bool { return c.AppendOnly }},
		{"units k", "maxmemory 1k", func(c *Config) bool { return c.MaxMemory == 1000 }},
		{"units kb", "maxmemory 1kb", func(c *Config) bool { return c.MaxMemory == 1024 }},
		{"units mb gb", "maxmemory 2GB\nauto-aof-rewrite-min-size 3mb", func(c *Config) bool {
			return c.MaxMemory == 2<<30 && c.AutoAOFRewriteMinSize == 3<<20
		}},
		{"alias ziplist", "hash-max-ziplist-entries 7\nzset-max-ziplist-value 9", func(c *Config) bool {
			return c.HashMaxListpackEntries == 7 && c.ZSetMaxListpackValue == 9
		}},
		{"alias slave", "slave-read-only no\nslaveof 10.0.0.1 6380", func(c *Config) bool {
			return c.raw["replica-read-only"] == "no" && c.raw["replicaof"] == "10.0.0.1 6380"
		}},
		{"lua-time-limit alias", "lua-time-limit 77", func(c *Config) bool { return c.BusyReplyThreshold == 77 }},
		{"save replaces defaults then appends", "save 10 1\nsave 20 2", func(c *Config) bool {
			return reflect.DeepEqual(c.Save, []SavePoint{{10, 1}, {20, 2}})
		}},
		{"save empty resets", "save 1 1\nsave \"\"\nsave 2 2", func(c *Config) bool { return reflect.DeepEqual(c.Save, []SavePoint{{2, 2}}) }},
		{"save empty", `save ""`, func(c *Config) bool { return len(c.Save) == 0 }},
		{"bind list", "bind 127.0.0.1 -::1", func(c *Config) bool { return reflect.DeepEqual(c.Bind, []string{"127.0.0.1", "-::1"}) }},
		{"obuf replica alias and units", "client-output-buffer-limit replica 1gb 2mb 30 pubsub 0 0 0", func(c *Config) bool {
			return c.ClientOutputBufferLimit[ClassReplica] == OutputBufferLimit{1 << 30, 2 << 20, 30} &&
				c.ClientOutputBufferLimit[ClassPubSub] == OutputBufferLimit{}
		}},
		{"comments and blanks", "# c\n\n   # indented\nport 1", func(c *Config) bool { return c.Port == 1 }},
		{"rename-command, user, loadmodule accepted", "rename-command FLUSHALL \"\"\nuser bob on\nloadmodule /x.so a", func(c *Config) bool {
			return reflect.DeepEqual(c.NoEffect(), []string{"rename-command", "loadmodule"})
		}},
		{"user lines kept for the ACL", "user bob on >x\nuser default off\nuser alice +get", func(c *Config) bool {
			return reflect.DeepEqual(c.Users, [][]string{{"bob", "on", ">x"}, {"default", "off"}, {"alice", "+get"}})
		}},
		{"deprecated ignored", "list-max-ziplist-entries 5\nlua-replicate-commands yes", func(c *Config) bool { return len(c.NoEffect()) == 0 }},
		{"hz clamped", "hz 1000", func(c *Config) bool { return c.Hz == 500 }},
		{"notify canonical", "notify-keyspace-events Exn", func(c *Config) bool { return c.NotifyKeyspaceEvents == "xnE" }},
		{"our directives", "aof-group-commit-delay-usec 250\naof-group-commit-max-batch 64\nlog-format json", func(c *Config) bool {
			return c.AOFGroupCommitDelayUsec == 250 && c.AOFGroupCommitMaxBatch == 64 && c.LogFormat == "json"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.text)
			if !tt.check(c) {
				t.Fatalf("check failed for %q: %+v", tt.text, c)
			}
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		text, line, reason string
		n                  int
	}{
		{"port 1\nfoo bar", "foo bar", "Bad directive or wrong number of arguments", 2},
		{"daemonize maybe", "daemonize maybe", "argument must be 'yes' or 'no'", 1},
		{"\n\n  port 1 2  ", "port 1 2", "wrong number of arguments", 3},
		{`port "abc`, `port "abc`, "Unbalanced quotes in configuration line", 1},
		{`port "1"2`, `port "1"2`, "Unbalanced quotes in configuration line", 1},
		{"port 99999", "port 99999", "argument must be between 0 and 65535 inclusive", 1},
		{"port 1k", "port 1k", "argument couldn't be parsed into an integer", 1},
		{"maxmemory 5x", "maxmemory 5x", "argument must be a memory value", 1},
		{"appendfsync sometimes", "appendfsync sometimes", "argument(s) must be one of the following: everysec, always, no", 1},
		{"save 1", "save 1", "Invalid save parameters", 1},
		{"appendfilename a/b", "appendfilename a/b", "appendfilename can't be a path, just a filename", 1},
		{"maxclients 0", "maxclients 0", "argument must be between 1 and 4294967295 inclusive", 1},
	}
	for _, tt := range tests {
		c := Default()
		err := ParseRedisConf(c, tt.text, "x.conf")
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrBadConfig) {
			t.Fatalf("%q: err = %v", tt.text, err)
		}
		want := "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line " +
			itoa(tt.n) + "\n>>> '" + tt.line + "'\n" + tt.reason
		if err.Error() != want {
			t.Errorf("%q:\n got %q\nwant %q", tt.text, err.Error(), want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestInclude(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "inc.conf")
	os.WriteFile(inc, []byte("maxmemory 1mb\nport 7001\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "conf.d", "a.conf"), []byte("hz 20\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "conf.d", "b.conf"), []byte("hz 30\n"), 0o644)
	main := filepath.Join(dir, "main.conf")
	text := "port 7000\ninclude " + inc + "\ninclude " + filepath.Join(dir, "conf.d", "*.conf") +
		"\ninclude " + filepath.Join(dir, "none", "*.conf") + "\nsave 10 1\nsave 20 2\n"
	os.WriteFile(main, []byte(text), 0o644)
	c, err := Load(main, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 7001 || c.MaxMemory != 1<<20 || c.Hz != 30 {
		t.Fatalf("port=%d maxmemory=%d hz=%d", c.Port, c.MaxMemory, c.Hz)
	}
	// Redis quirk: after an include, each save line starts the list afresh.
	if !reflect.DeepEqual(c.Save, []SavePoint{{20, 2}}) {
		t.Fatalf("save = %v", c.Save)
	}
	// An error inside an included file names that file and its line.
	os.WriteFile(inc, []byte("\nbogus 1\n"), 0o644)
	_, err = Load(main, nil, nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != inc || pe.Line != 2 {
		t.Fatalf("err = %#v", err)
	}
	// A missing non-glob include is fatal.
	os.WriteFile(main, []byte("include "+filepath.Join(dir, "missing.conf")+"\n"), 0o644)
	if _, err := Load(main, nil, nil); err == nil || !strings.Contains(err.Error(), "can't open config file") {
		t.Fatalf("err = %v", err)
	}
	// Include loops end with an error, not a crash.
	os.WriteFile(main, []byte("include "+main+"\n"), 0o644)
	if _, err := Load(main, nil, nil); err == nil {
		t.Fatal("include loop accepted")
	}
}

func TestFlagsOverrideFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.conf")
	os.WriteFile(path, []byte("port 7000\nappendonly no\nsave 100 1\n"), 0o644)
	c, err := Load(path, []string{"--port", "7001", "--appendonly", "yes", "--save", "--bind", "127.0.0.1", "::1",
		"--requirepass", "p w\"d", "--maxmemory 10mb"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 7001 || !c.AppendOnly || len(c.Save) != 0 || !reflect.DeepEqual(c.Bind, []string{"127.0.0.1", "::1"}) ||
		c.Requirepass != "p w\"d" || c.MaxMemory != 10<<20 {
		t.Fatalf("%+v", c)
	}
	if c.File() != path {
		t.Fatalf("File() = %q", c.File())
	}
	// Line numbers of flag errors count after the file, like Redis.
	_, err = Load(path, []string{"--port", "abc"}, nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 5 || pe.Text != `port "abc"` {
		t.Fatalf("err = %#v", err)
	}
	// stdin: "-" as the last argument, read after the file and before flags.
	c, err = Load(path, []string{"--hz", "20", "-"}, strings.NewReader("hz 15\ndatabases 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Hz != 20 || c.Databases != 4 || c.Port != 7000 {
		t.Fatalf("hz=%d databases=%d port=%d", c.Hz, c.Databases, c.Port)
	}
	c, err = Load("-", nil, strings.NewReader("port 7002\n"))
	if err != nil || c.Port != 7002 || c.File() != "" {
		t.Fatalf("stdin only: %v %+v", err, c)
	}
}

func TestYAMLMatchesConf(t *testing.T) {
	conf := `port 7000
bind 127.0.0.1 -::1
appendonly yes
appendfsync always
save 900 1
save 300 10
maxmemory 100mb
requirepass "s3cret"
client-output-buffer-limit normal 1mb 512kb 10
client-output-buffer-limit pubsub 0 0 0
notify-keyspace-events KEA
slave-read-only no
aof-group-commit-delay-usec 100
`
	yml := `# same thing in YAML
port: 7000
bind: [127.0.0.1, "-::1"]
appendonly: true
appendfsync: always
save: [[900, 1], [300, 10]]
maxmemory: 100mb
requirepass: s3cret
client-output-buffer-limit:
  - [normal, 1mb, 512kb, 10]
  - [pubsub, 0, 0, 0]
notify-keyspace-events: KEA
slave-read-only: "no"
aof-group-commit-delay-usec: 100
`
	dir := t.TempDir()
	cp, yp := filepath.Join(dir, "a.conf"), filepath.Join(dir, "a.yaml")
	os.WriteFile(cp, []byte(conf), 0o644)
	os.WriteFile(yp, []byte(yml), 0o644)
	a, err := Load(cp, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(yp, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Get("*"), b.Get("*")) || a.AOFGroupCommitDelayUsec != b.AOFGroupCommitDelayUsec {
		t.Fatalf("conf and yaml differ:\n%v\n%v", a.Get("*"), b.Get("*"))
	}
	if !reflect.DeepEqual(a.NoEffect(), b.NoEffect()) {
		t.Fatalf("NoEffect differs: %v vs %v", a.NoEffect(), b.NoEffect())
	}
	// Scalar form of a multi-argument directive.
	c := Default()
	if err := ParseYAML(c, strings.NewReader("save: \"60 5 30 7\"\nbind: \"\"\n"), "x.yaml"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Save, []SavePoint{{60, 5}, {30, 7}}) || len(c.Bind) != 0 {
		t.Fatalf("save=%v bind=%v", c.Save, c.Bind)
	}
	// Unknown key: Redis's message with the YAML line.
	err = ParseYAML(Default(), strings.NewReader("port: 1\n\nnosuchthing: 3\n"), "x.yaml")
	want := "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n>>> 'nosuchthing: 3'\nBad directive or wrong number of arguments"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %q", err)
	}
	err = ParseYAML(Default(), strings.NewReader("port: [1, 2]\n"), "x.yaml")
	if err == nil || !strings.HasSuffix(err.Error(), "wrong number of arguments") {
		t.Fatalf("err = %v", err)
	}
	if err := ParseYAML(Default(), strings.NewReader("port: {a: 1}\n"), "x.yaml"); err == nil {
		t.Fatal("mapping value accepted")
	}
	if err := ParseYAML(Default(), strings.NewReader("- port\n"), "x.yaml"); err == nil {
		t.Fatal("non-mapping document accepted")
	}
}

func TestGet(t *testing.T) {
	c := Default()
	c.MaxMemory = 3 << 30
	c.Bind = []string{"127.0.0.1", "-::1"}
	tests := []struct {
		patterns []string
		want     [][2]string
	}{
		{[]string{"maxmemory"}, [][2]string{{"maxmemory", "3221225472"}}},
		{[]string{"MAXMEMORY"}, [][2]string{{"MAXMEMORY", "3221225472"}}},
		{[]string{"bind"}, [][2]string{{"bind", "127.0.0.1 -::1"}}},
		{[]string{"appendf*"}, [][2]string{{"appendfilename", "appendonly.aof"}, {"appendfsync", "everysec"}}},
		{[]string{"APPENDF*"}, [][2]string{{"appendfilename", "appendonly.aof"}, {"appendfsync", "everysec"}}},
		{[]string{"hash-max-*-entries"}, [][2]string{{"hash-max-listpack-entries", "512"}, {"hash-max-ziplist-entries", "512"}}},
		{[]string{"tim?out", "timeout", "port"}, [][2]string{{"timeout", "0"}, {"port", "6379"}}},
		{[]string{"[pq]ort"}, [][2]string{{"port", "6379"}}},
		{[]string{"[^a-o]ort"}, [][2]string{{"port", "6379"}}},
		{[]string{"nosuch", "nosuch*"}, nil},
		{[]string{"rdb-key-*"}, nil}, // hidden: only exact names
		{[]string{"rdb-key-save-delay"}, [][2]string{{"rdb-key-save-delay", "0"}}},
		{[]string{"aof-group-commit-delay-usec"}, [][2]string{{"aof-group-commit-delay-usec", "0"}}},
	}
	for _, tt := range tests {
		if got := c.Get(tt.patterns...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Get(%q) = %q, want %q", tt.patterns, got, tt.want)
		}
	}
	if n := len(c.Get("*")); n != 192 {
		t.Errorf("Get(*) returned %d names, Redis 7.0.15 has 192", n)
	}
}

func TestSetAllOrNothing(t *testing.T) {
	c := Default()
	before := c.Get("*")
	err := c.Set([][2]string{{"maxmemory", "10mb"}, {"hz", "20"}, {"appendfsync", "sometimes"}}, func([]string) error {
		t.Fatal("apply called on invalid set")
		return nil
	})
	want := "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: everysec, always, no"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v", err)
	}
	if !reflect.DeepEqual(before, c.Get("*")) || c.MaxMemory != 0 || c.Hz != 10 {
		t.Fatal("failed CONFIG SET changed values")
	}
	var got []string
	err = c.Set([][2]string{{"maxmemory", "10mb"}, {"HZ", "10"}, {"save", "100 1"}, {"slave-read-only", "no"}}, func(ch []string) error {
		got = ch
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// hz did not change, aliases report the canonical name.
	if !reflect.DeepEqual(got, []string{"maxmemory", "save", "replica-read-only"}) {
		t.Fatalf("changed = %v", got)
	}
	if c.MaxMemory != 10<<20 || !reflect.DeepEqual(c.Save, []SavePoint{{100, 1}}) {
		t.Fatalf("%+v", c)
	}
	// apply failure restores everything and names the failing directive.
	err = c.Set([][2]string{{"port", "7000"}, {"timeout", "5"}}, func(ch []string) error {
		return &ApplyError{Name: "port", Err: errors.New("Unable to listen on this port. Check server logs.")}
	})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs." {
		t.Fatalf("err = %v", err)
	}
	if c.Port != 6379 || c.Timeout != 0 {
		t.Fatalf("not restored: port=%d timeout=%d", c.Port, c.Timeout)
	}
	errTests := []struct {
		pairs [][2]string
		want  string
	}{
		{[][2]string{{"nosuch", "1"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"},
		{[][2]string{{"daemonize", "yes"}}, "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config"},
		{[][2]string{{"dir", "/tmp"}}, "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"},
		{[][2]string{{"port", "1"}, {"PORT", "2"}}, "ERR CONFIG SET failed (possibly related to argument 'PORT') - duplicate parameter"},
		{[][2]string{{"hash-max-ziplist-entries", "x"}}, "ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-entries') - argument couldn't be parsed into an integer"},
		{[][2]string{{"HZ", "x"}}, "ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer"},
	}
	for _, tt := range errTests {
		if err := c.Set(tt.pairs, nil); err == nil || err.Error() != tt.want {
			t.Errorf("Set(%q) = %v, want %q", tt.pairs, err, tt.want)
		}
	}
	// A name and its alias are two directives to Redis 7.0: both are set,
	// the last one wins.
	if err := c.Set([][2]string{{"hash-max-listpack-entries", "1"}, {"hash-max-ziplist-entries", "2"}}, nil); err != nil || c.HashMaxListpackEntries != 2 {
		t.Fatalf("name and alias: %v, value %d", err, c.HashMaxListpackEntries)
	}
	if err := c.SetWith([][2]string{{"appendonly", "yes"}}, SetOptions{Loading: true}, nil); err != ErrLoading {
		t.Fatalf("loading: %v", err)
	}
	c.EnableProtectedConfigs = "local"
	if err := c.SetWith([][2]string{{"dbfilename", "x.rdb"}}, SetOptions{Local: true}, nil); err != nil || c.DBFilename != "x.rdb" {
		t.Fatalf("local protected set: %v", err)
	}
}

func TestRewriteKeepsComments(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.conf")
	orig := `# top comment
port 7000
include /dev/null
rename-command FLUSHALL ""
save 900 1
save 300 10
hash-max-ziplist-entries 100
slave-read-only no
maxmemory 1mb
bind 127.0.0.1


# tail comment
`
	os.WriteFile(path, []byte(orig), 0o644)
	c, err := Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set([][2]string{{"save", "60 1"}, {"maxmemory", "2gb"}, {"appendfsync", "always"}, {"notify-keyspace-events", "KEA"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rewrite(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	absDir, _ := filepath.Abs(".")
	want := `# top comment
port 7000
include /dev/null
rename-command FLUSHALL ""
save 60 1

hash-max-listpack-entries 100
replica-read-only no
maxmemory 2gb
bind 127.0.0.1

# tail comment

# Generated by CONFIG REWRITE
appendfsync always
dir "` + absDir + `"
notify-keyspace-events "AKE"
latency-tracking-info-percentiles 50 99 99.9
user default on nopass ~* &* +@all
`
	if string(got) != want {
		t.Fatalf("rewrite:\n%s\nwant:\n%s", got, want)
	}
	// The rewritten file loads back to the same values.
	c2, err := Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Get("*"), c2.Get("*")) {
		t.Fatal("reloaded config differs")
	}
	// Like Redis, the file's final newline becomes one kept empty line on
	// the next rewrite; after that the rewrite is stable.
	if err := c2.Rewrite(); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if string(again) != string(got)+"\n" {
		t.Fatalf("second rewrite:\n%q", again)
	}
	if err := c2.Rewrite(); err != nil {
		t.Fatal(err)
	}
	third, _ := os.ReadFile(path)
	if string(third) != string(again) {
		t.Fatalf("third rewrite changed the file:\n%q", third)
	}
	if err := Default().Rewrite(); err != ErrNoConfigFile {
		t.Fatalf("no file: %v", err)
	}
	// Unknown lines are commented out, as Redis does.
	st := Default().rewriteContent("port 1\nbogus x\n", false)
	if !strings.Contains(st, "# ??? bogus x\n") {
		t.Fatalf("unknown line: %q", st)
	}
}

func TestExampleConf(t *testing.T) {
	c, err := Load(filepath.Join("..", "redis.conf.example"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 6379 || !reflect.DeepEqual(c.Bind, []string{"127.0.0.1"}) || !c.AppendOnly ||
		c.AppendFsync != "everysec" || c.Dir != "./data" {
		t.Fatalf("example: port=%d bind=%v appendonly=%v fsync=%s dir=%s", c.Port, c.Bind, c.AppendOnly, c.AppendFsync, c.Dir)
	}
	// It documents only directives the server implements.
	if ne := c.NoEffect(); len(ne) != 0 {
		t.Fatalf("example sets unimplemented directives: %v", ne)
	}
	// And it mentions every implemented directive: Redis's in the file,
	// ours in its side file.
	data, _ := os.ReadFile(filepath.Join("..", "redis.conf.example"))
	side, err := os.ReadFile(filepath.Join("..", "redis.conf.example"+SideSuffix))
	if err != nil {
		t.Fatal(err)
	}
	for name := range c.Implemented {
		doc := data
		if d, _ := lookup(name); d != nil && d.has(fOurs) {
			doc = side
		}
		if !strings.Contains(string(doc), name+" ") {
			t.Errorf("redis.conf.example (or its side file, for ours) does not document %s", name)
		}
	}
}

func TestClone(t *testing.T) {
	a := Default()
	b := a.Clone()
	b.Bind[0] = "x"
	b.Save[0].Seconds = 1
	b.Implemented["foo"] = true
	b.raw["activerehashing"] = "no"
	if a.Bind[0] == "x" || a.Save[0].Seconds == 1 || a.Implemented["foo"] || a.raw["activerehashing"] == "no" {
		t.Fatal("Clone shares state")
	}
}

func TestNoEffect(t *testing.T) {
	// activerehashing ends non-default; tcp-backlog is set to its default
	// (as Debian's redis.conf does) and so has no effect to report.
	c := mustParse(t, "activerehashing yes\nport 1\nio-threads 4\ntcp-backlog 511\nactiverehashing no\n")
	if got := c.NoEffect(); !reflect.DeepEqual(got, []string{"activerehashing", "io-threads"}) {
		t.Fatalf("NoEffect = %v", got)
	}
	c.Implemented["io-threads"] = true
	if got := c.NoEffect(); !reflect.DeepEqual(got, []string{"activerehashing"}) {
		t.Fatalf("NoEffect = %v", got)
	}
}

func TestSplitArgsAndRepr(t *testing.T) {
	for _, s := range []string{"", "a b", "\x00\xff\"\\\n\r\t\a\b", "it's", "ünïcode"} {
		args, ok := rstring.SplitArgs("x " + rstring.Repr(s))
		if !ok || len(args) != 2 || args[1] != s {
			t.Errorf("repr round trip of %q: %q %v", s, args, ok)
		}
	}
}
