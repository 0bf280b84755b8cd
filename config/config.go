package config

import (
	"maps"
	"slices"
)

// SavePoint is one "save <seconds> <changes>" rule.
type SavePoint struct {
	Seconds int64
	Changes int64
}

// OutputBufferLimit is one class of client-output-buffer-limit.
type OutputBufferLimit struct {
	Hard, Soft  int64
	SoftSeconds int64
}

// Output buffer classes, the index into Config.ClientOutputBufferLimit.
const (
	ClassNormal  = 0
	ClassReplica = 1
	ClassPubSub  = 2
)

// Config is the whole server configuration. The exported fields hold every
// directive aofserver implements, already parsed; Get, Set and Rewrite read
// and write these fields, so the server may also change them directly.
// Directives the server does not implement are kept as raw strings so that
// CONFIG GET lists every Redis 7.0 directive.
//
// A Config is not safe for concurrent use: the server owns one and guards it.
type Config struct {
	Port          int
	Bind          []string
	ProtectedMode bool
	Requirepass   string
	Databases     int
	// Dir is the working directory as configured (CONFIG GET prints it
	// absolute). Unlike Redis, parsing does not chdir; the server creates
	// it if missing.
	Dir        string
	DBFilename string

	AppendOnly                 bool
	AppendFsync                string // "always" | "everysec" | "no"
	AppendFilename             string
	AppendDirname              string
	AOFUseRDBPreamble          bool
	AOFLoadTruncated           bool
	AOFTimestampEnabled        bool
	AOFDisableAutoGC           bool
	NoAppendfsyncOnRewrite     bool
	AOFRewriteIncrementalFsync bool
	AutoAOFRewritePercentage   int
	AutoAOFRewriteMinSize      int64
	// aofserver's own directives (hidden from CONFIG GET patterns):
	// aof-group-commit-delay-usec and aof-group-commit-max-batch (0 = unlimited).
	AOFGroupCommitDelayUsec int
	AOFGroupCommitMaxBatch  int
	// aof-group-commit-inflight: fsyncs the network loop may have in flight
	// at once under appendfsync always (1: one after the other; 0, the
	// default: chosen by the self-tuning group commit, aof/tune.go).
	AOFGroupCommitInflight int
	// aof-prealloc-size: under appendfsync always the incr file is extended
	// ahead of the data by this many bytes of '#' padding (0 = off).
	AOFPreallocSize int64

	Save                    []SavePoint
	RDBCompression          bool
	RDBChecksum             bool
	StopWritesOnBGSaveError bool
	RDBKeySaveDelay         int

	MaxClients              int
	Timeout                 int
	TCPKeepalive            int
	ProtoMaxBulkLen         int64
	ClientQueryBufferLimit  int64
	ClientOutputBufferLimit [3]OutputBufferLimit // ClassNormal, ClassReplica, ClassPubSub

	MaxMemory       int64
	MaxMemoryPolicy string
	Hz              int
	// MinReplicasToWrite and MinReplicasMaxLag: with both non-zero a
	// master without good replicas refuses writes (NOREPLICAS).
	MinReplicasToWrite int
	MinReplicasMaxLag  int
	LogLevel           string
	LogFile            string
	Pidfile            string
	// UnixSocket is the path of a Unix socket to accept clients on too
	// ("": none), created with UnixSocketPerm's mode when non-zero.
	UnixSocket         string
	UnixSocketPerm     int
	Daemonize          bool
	EnableDebugCommand string // "no" | "yes" | "local"
	// SanitizeDumpPayload is "no" | "yes" | "clients": when RESTORE (and
	// loading) runs Redis's deep payload checks.
	SanitizeDumpPayload string
	// LogFormat is aofserver's own log-format directive: "redis" | "json".
	LogFormat string
	// NetLoop is aofserver's own netloop directive: serve connections from
	// the epoll network loop (Linux); no serves each on a goroutine of its
	// own, for comparison.
	NetLoop bool
	// CPUProfile is aofserver's own cpu-profile directive: a file the
	// server writes a Go CPU profile to until it exits ("" = none).
	CPUProfile string

	HashMaxListpackEntries int
	HashMaxListpackValue   int
	ZSetMaxListpackEntries int
	ZSetMaxListpackValue   int
	HLLSparseMaxBytes      int64
	SetMaxIntsetEntries    int
	ListMaxListpackSize    int
	ListCompressDepth      int
	StreamNodeMaxEntries   int64
	StreamNodeMaxBytes     int64

	// Eviction (maxmemory-policy other than noeviction): keys sampled per
	// pool refill, time budget of one eviction cycle (0-100), and the LFU
	// counter's logarithm factor and decay period in minutes.
	MaxMemorySamples          int
	MaxMemoryEvictionTenacity int
	LFULogFactor              int
	LFUDecayTime              int

	LazyfreeLazyUserDel     bool
	LazyfreeLazyExpire      bool
	LazyfreeLazyServerDel   bool
	LazyfreeLazyUserFlush   bool
	LazyfreeLazyEviction    bool
	SlowlogLogSlowerThan    int64
	SlowlogMaxLen           int
	LatencyMonitorThreshold int64
	LatencyTracking         bool // per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats)
	BusyReplyThreshold      int64
	NotifyKeyspaceEvents    string // canonical flags, as CONFIG GET prints them ("" = off)
	notifyBits              int    // the flags themselves (NotifyFlags)
	EnableProtectedConfigs  string // "no" | "yes" | "local"

	// ActiveExpireEnabled is not a directive (DEBUG SET-ACTIVE-EXPIRE).
	ActiveExpireEnabled bool

	// Users are the file's "user" lines (name, then rules), in order: the
	// server's ACL creates them at start (Redis ACLLoadConfiguredUsers).
	Users [][]string
	// UserLines, set by the server, renders its ACL users for CONFIG
	// REWRITE ("user <name> <rules>" each); nil writes the default user.
	UserLines func() []string

	// Implemented is the set of canonical directive names the server acts
	// on; NoEffect reports every other directive set in the file or flags.
	// Default fills it with the directives that have a typed field; the
	// server may add names.
	Implemented map[string]bool

	raw  map[string]string // canonical name -> value as CONFIG GET prints it, for directives without a field
	file string            // absolute path of the config file, "" if none
	yaml bool              // file is YAML
	seen []string          // canonical names set by file/flags, in first-seen order

	readingSide bool // parsing the side file (SidePath): only our directives
	readingFile bool // Redis's reading_config_file (affects "save")
	saveLoaded  bool // Redis's static save_loaded
}

// UserValidator, set by the server, checks a "user" line (name, then
// rules) as it is read: msg is the error of the rule at index bad of the
// merged rules, "" when the line is valid.
var UserValidator func(line []string) (bad int, msg string)

// replicationDirectives are implemented by the server's replication
// (server/replication*.go), which reads them by name: they have no typed
// field, and are not reported by NoEffect.
var replicationDirectives = map[string]bool{
	"replicaof": true, "masterauth": true, "masteruser": true,
	"repl-diskless-sync": true, "repl-diskless-sync-delay": true, "repl-diskless-sync-max-replicas": true,
	"repl-backlog-size": true, "repl-backlog-ttl": true, "repl-timeout": true, "repl-ping-replica-period": true,
	"replica-read-only": true, "replica-serve-stale-data": true, "replica-priority": true, "replica-announced": true,
	"replica-announce-ip": true, "replica-announce-port": true,
}

// Default returns Redis 7.0.15's built-in defaults (what redis-server uses
// with no config file), plus aofserver's own directives.
func Default() *Config {
	c := &Config{raw: make(map[string]string), Implemented: make(map[string]bool), ActiveExpireEnabled: true}
	for i := range directives {
		d := &directives[i]
		if d.field != nil || d.typed || replicationDirectives[d.name] {
			c.Implemented[d.name] = true
		}
	}
	// the server's ACL (server/acl.go) reads these by name
	for _, n := range []string{"user", "aclfile", "acllog-max-len", "acl-pubsub-default"} {
		c.Implemented[n] = true
	}
	for i := range directives {
		d := &directives[i]
		if err := d.setArgs(c, d.defaultArgs()); err != "" {
			panic("config: bad default for " + d.name + ": " + err) // table bug, caught by tests
		}
	}
	c.readingFile, c.saveLoaded = false, false
	return c
}

// File is the absolute path of the file the config was loaded from, or "".
func (c *Config) File() string { return c.file }

// Clone returns a deep copy.
func (c *Config) Clone() *Config {
	n := *c
	n.Bind = slices.Clone(c.Bind)
	n.Save = slices.Clone(c.Save)
	n.Implemented = maps.Clone(c.Implemented)
	n.raw = maps.Clone(c.raw)
	n.seen = slices.Clone(c.seen)
	n.Users = slices.Clone(c.Users)
	return &n
}

// NoEffect lists, in the order first set, the canonical names of directives
// set in the file or flags that are not in c.Implemented and whose value is
// not Redis's default: a stock redis.conf spells out many defaults (Debian's
// sets tcp-backlog 511, supervised no, ...), and aofserver behaves as Redis
// does at those defaults, so warning about them would only be noise. Lines
// outside the table (rename-command, user, loadmodule, module configs)
// always count.
func (c *Config) NoEffect() []string {
	var out []string
	var def *Config
	for _, n := range c.seen {
		if c.Implemented[n] {
			continue
		}
		if d, _ := lookup(n); d != nil {
			if def == nil {
				def = Default()
			}
			if d.value(c) == d.value(def) {
				continue
			}
		}
		out = append(out, n)
	}
	return out
}

// markSeen records that the file or flags set name.
func (c *Config) markSeen(name string) {
	if !slices.Contains(c.seen, name) {
		c.seen = append(c.seen, name)
	}
}
