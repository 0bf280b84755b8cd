package config

import (
	"strconv"
	"strings"
)

// The directive table: every directive Redis 7.0.15 knows (the
// standardConfig table of src/config.c, as built with TLS), plus
// aofserver's own (flag fOurs, hidden from CONFIG GET patterns so that
// CONFIG GET * lists exactly Redis's names). Order here is the order
// CONFIG GET * and CONFIG REWRITE use (Redis uses hash order).

func boolD(name, alias string, fl flag, def bool, field func(*Config) any) directive {
	return directive{name: name, alias: alias, kind: kindBool, flags: fl, def: yesNo(def), field: field}
}

func strD(name, alias string, fl flag, def string, valid func(string) string, field func(*Config) any) directive {
	return directive{name: name, alias: alias, kind: kindString, flags: fl, def: def, valid: valid, field: field}
}

func enumD(name, alias string, fl flag, enum []enumVal, def string, field func(*Config) any) directive {
	return directive{name: name, alias: alias, kind: kindEnum, flags: fl, enum: enum, def: def, field: field}
}

func numD(name, alias string, fl flag, lo int64, hi uint64, def int64, field func(*Config) any) directive {
	return directive{name: name, alias: alias, kind: kindNum, flags: fl, lo: lo, hi: hi, def: strconv.FormatInt(def, 10), field: field}
}

func specialD(name, alias string, fl flag, def string, set func(*directive, *Config, []string) string,
	get func(*directive, *Config) string, rw func(*directive, *Config, *rewriteState)) directive {
	return directive{name: name, alias: alias, kind: kindSpecial, flags: fl, def: def, set: set, get: get, rewrite: rw}
}

// typedD marks a special directive stored in a typed Config field.
func typedD(d directive) directive {
	d.typed = true
	return d
}

func names(n ...string) []enumVal {
	out := make([]enumVal, len(n))
	for i, s := range n {
		out[i] = enumVal{s, i}
	}
	return out
}

var (
	enumMaxmemoryPolicy = names("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
		"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction")
	enumSyslogFacility = names("user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7")
	enumLoglevel       = names("debug", "verbose", "notice", "warning")
	enumSupervised     = names("upstart", "systemd", "auto", "no")
	enumFsync          = names("everysec", "always", "no")
	enumDisklessLoad   = names("disabled", "on-empty-db", "swapdb")
	enumTLSAuth        = names("no", "yes", "optional")
	enumOOM            = []enumVal{{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}}
	enumPubsubDefault  = names("allchannels", "resetchannels")
	enumSanitize       = names("no", "yes", "clients")
	enumProtected      = names("no", "yes", "local")
	enumEndpoint       = names("ip", "hostname", "unknown-endpoint")
	enumPropagationErr = names("ignore", "panic", "panic-on-replicas")
	enumShutdown       = []enumVal{{"default", 0}, {"save", 1}, {"nosave", 2}, {"now", 4}, {"force", 8}}
	enumLogFormat      = names("redis", "json")
)

const (
	mod  flag = 0 // MODIFIABLE_CONFIG
	immu      = fImmutable
)

// directives is read-only after package initialisation.
var directives = []directive{
	// Bool configs
	boolD("rdbchecksum", "", immu, true, func(c *Config) any { return &c.RDBChecksum }),
	boolD("daemonize", "", immu, false, func(c *Config) any { return &c.Daemonize }),
	boolD("io-threads-do-reads", "", immu, false, nil),
	boolD("always-show-logo", "", immu, false, nil),
	boolD("protected-mode", "", mod, true, func(c *Config) any { return &c.ProtectedMode }),
	boolD("rdbcompression", "", mod, true, func(c *Config) any { return &c.RDBCompression }),
	boolD("rdb-del-sync-files", "", mod, false, nil),
	boolD("activerehashing", "", mod, true, nil),
	boolD("stop-writes-on-bgsave-error", "", mod, true, func(c *Config) any { return &c.StopWritesOnBGSaveError }),
	boolD("set-proc-title", "", immu, true, nil),
	boolD("dynamic-hz", "", mod, true, nil),
	boolD("lazyfree-lazy-eviction", "", mod, false, func(c *Config) any { return &c.LazyfreeLazyEviction }),
	boolD("lazyfree-lazy-expire", "", mod, false, func(c *Config) any { return &c.LazyfreeLazyExpire }),
	boolD("lazyfree-lazy-server-del", "", mod, false, func(c *Config) any { return &c.LazyfreeLazyServerDel }),
	boolD("lazyfree-lazy-user-del", "", mod, false, func(c *Config) any { return &c.LazyfreeLazyUserDel }),
	boolD("lazyfree-lazy-user-flush", "", mod, false, func(c *Config) any { return &c.LazyfreeLazyUserFlush }),
	boolD("repl-disable-tcp-nodelay", "", mod, false, nil),
	boolD("repl-diskless-sync", "", mod, true, nil),
	boolD("aof-rewrite-incremental-fsync", "", mod, true, func(c *Config) any { return &c.AOFRewriteIncrementalFsync }),
	boolD("no-appendfsync-on-rewrite", "", mod, false, func(c *Config) any { return &c.NoAppendfsyncOnRewrite }),
	boolD("cluster-require-full-coverage", "", mod, true, nil),
	boolD("rdb-save-incremental-fsync", "", mod, true, nil),
	boolD("aof-load-truncated", "", mod, true, func(c *Config) any { return &c.AOFLoadTruncated }),
	boolD("aof-use-rdb-preamble", "", mod, true, func(c *Config) any { return &c.AOFUseRDBPreamble }),
	boolD("aof-timestamp-enabled", "", mod, false, func(c *Config) any { return &c.AOFTimestampEnabled }),
	boolD("cluster-replica-no-failover", "cluster-slave-no-failover", mod, false, nil),
	boolD("replica-lazy-flush", "slave-lazy-flush", mod, false, nil),
	boolD("replica-serve-stale-data", "slave-serve-stale-data", mod, true, nil),
	boolD("replica-read-only", "slave-read-only", mod, true, nil),
	boolD("replica-ignore-maxmemory", "slave-ignore-maxmemory", mod, true, nil),
	boolD("jemalloc-bg-thread", "", mod, true, nil),
	boolD("activedefrag", "", mod, false, nil),
	boolD("syslog-enabled", "", immu, false, nil),
	boolD("cluster-enabled", "", immu, false, nil),
	boolD("appendonly", "", mod|fDenyLoading, false, func(c *Config) any { return &c.AppendOnly }),
	boolD("cluster-allow-reads-when-down", "", mod, false, nil),
	boolD("cluster-allow-pubsubshard-when-down", "", mod, true, nil),
	boolD("crash-log-enabled", "", mod, true, nil),
	boolD("crash-memcheck-enabled", "", mod, true, nil),
	boolD("use-exit-on-panic", "", mod|fHidden, false, nil),
	boolD("disable-thp", "", immu, true, nil),
	boolD("cluster-allow-replica-migration", "", mod, true, nil),
	boolD("replica-announced", "", mod, true, nil),
	boolD("latency-tracking", "", mod, true, func(c *Config) any { return &c.LatencyTracking }),
	boolD("aof-disable-auto-gc", "", mod, false, func(c *Config) any { return &c.AOFDisableAutoGC }),
	boolD("replica-ignore-disk-write-errors", "", mod, false, nil),

	// String configs
	strD("aclfile", "", immu, "", nil, nil),
	strD("unixsocket", "", immu|fEmptyIsNull, "", nil, func(c *Config) any { return &c.UnixSocket }),
	strD("pidfile", "", immu|fEmptyIsNull, "", nil, func(c *Config) any { return &c.Pidfile }),
	strD("replica-announce-ip", "slave-announce-ip", mod|fEmptyIsNull, "", nil, nil),
	strD("masteruser", "", mod|fSensitive|fEmptyIsNull, "", nil, nil),
	strD("cluster-announce-ip", "", mod|fEmptyIsNull, "", nil, nil),
	strD("cluster-config-file", "", immu, "nodes.conf", nil, nil),
	strD("cluster-announce-hostname", "", mod|fEmptyIsNull, "", validHostname, nil),
	strD("syslog-ident", "", immu, "redis", nil, nil),
	strD("dbfilename", "", mod|fProtected, "dump.rdb", validDBFilename, func(c *Config) any { return &c.DBFilename }),
	strD("appendfilename", "", immu, "appendonly.aof", validAOFFilename, func(c *Config) any { return &c.AppendFilename }),
	strD("appenddirname", "", immu, "appendonlydir", validAOFDirname, func(c *Config) any { return &c.AppendDirname }),
	strD("server_cpulist", "", immu|fEmptyIsNull, "", nil, nil),
	strD("bio_cpulist", "", immu|fEmptyIsNull, "", nil, nil),
	strD("aof_rewrite_cpulist", "", immu|fEmptyIsNull, "", nil, nil),
	strD("bgsave_cpulist", "", immu|fEmptyIsNull, "", nil, nil),
	strD("ignore-warnings", "", mod, "", nil, nil),
	strD("proc-title-template", "", mod, "{title} {listen-addr} {server-mode}", validProcTitle, nil),
	strD("bind-source-addr", "", mod|fEmptyIsNull, "", nil, nil),
	strD("logfile", "", immu, "", nil, func(c *Config) any { return &c.LogFile }),
	// SDS configs
	strD("masterauth", "", mod|fSensitive|fEmptyIsNull, "", nil, nil),
	strD("requirepass", "", mod|fSensitive|fEmptyIsNull, "", nil, func(c *Config) any { return &c.Requirepass }),

	// Enum configs
	enumD("supervised", "", immu, enumSupervised, "no", nil),
	enumD("syslog-facility", "", immu, enumSyslogFacility, "local0", nil),
	enumD("repl-diskless-load", "", mod|fDenyLoading, enumDisklessLoad, "disabled", nil),
	enumD("loglevel", "", mod, enumLoglevel, "notice", func(c *Config) any { return &c.LogLevel }),
	enumD("maxmemory-policy", "", mod, enumMaxmemoryPolicy, "noeviction", func(c *Config) any { return &c.MaxMemoryPolicy }),
	enumD("appendfsync", "", mod, enumFsync, "everysec", func(c *Config) any { return &c.AppendFsync }),
	enumD("oom-score-adj", "", mod, enumOOM, "no", nil),
	enumD("acl-pubsub-default", "", mod, enumPubsubDefault, "resetchannels", nil),
	enumD("sanitize-dump-payload", "", mod, enumSanitize, "no", func(c *Config) any { return &c.SanitizeDumpPayload }),
	enumD("enable-protected-configs", "", immu, enumProtected, "no", func(c *Config) any { return &c.EnableProtectedConfigs }),
	enumD("enable-debug-command", "", immu, enumProtected, "no", func(c *Config) any { return &c.EnableDebugCommand }),
	enumD("enable-module-command", "", immu, enumProtected, "no", nil),
	enumD("cluster-preferred-endpoint-type", "", mod, enumEndpoint, "ip", nil),
	enumD("propagation-error-behavior", "", mod, enumPropagationErr, "ignore", nil),
	enumD("shutdown-on-sigint", "", mod|fMultiArg|fEnumFlags, enumShutdown, "default", nil),
	enumD("shutdown-on-sigterm", "", mod|fMultiArg|fEnumFlags, enumShutdown, "default", nil),

	// Integer configs
	numD("databases", "", immu, 1, intMax, 16, func(c *Config) any { return &c.Databases }),
	numD("port", "", mod, 0, 65535, 6379, func(c *Config) any { return &c.Port }),
	numD("io-threads", "", immu, 1, 128, 1, nil),
	numD("auto-aof-rewrite-percentage", "", mod, 0, intMax, 100, func(c *Config) any { return &c.AutoAOFRewritePercentage }),
	numD("cluster-replica-validity-factor", "cluster-slave-validity-factor", mod, 0, intMax, 10, nil),
	numD("list-max-listpack-size", "list-max-ziplist-size", mod, intMin, intMax, -2, func(c *Config) any { return &c.ListMaxListpackSize }),
	numD("tcp-keepalive", "", mod, 0, intMax, 300, func(c *Config) any { return &c.TCPKeepalive }),
	numD("cluster-migration-barrier", "", mod, 0, intMax, 1, nil),
	numD("active-defrag-cycle-min", "", mod, 1, 99, 1, nil),
	numD("active-defrag-cycle-max", "", mod, 1, 99, 25, nil),
	numD("active-defrag-threshold-lower", "", mod, 0, 1000, 10, nil),
	numD("active-defrag-threshold-upper", "", mod, 0, 1000, 100, nil),
	numD("lfu-log-factor", "", mod, 0, intMax, 10, func(c *Config) any { return &c.LFULogFactor }),
	numD("lfu-decay-time", "", mod, 0, intMax, 1, func(c *Config) any { return &c.LFUDecayTime }),
	numD("replica-priority", "slave-priority", mod, 0, intMax, 100, nil),
	numD("repl-diskless-sync-delay", "", mod, 0, intMax, 5, nil),
	numD("maxmemory-samples", "", mod, 1, intMax, 5, func(c *Config) any { return &c.MaxMemorySamples }),
	numD("maxmemory-eviction-tenacity", "", mod, 0, 100, 10, func(c *Config) any { return &c.MaxMemoryEvictionTenacity }),
	numD("timeout", "", mod, 0, intMax, 0, func(c *Config) any { return &c.Timeout }),
	numD("replica-announce-port", "slave-announce-port", mod, 0, 65535, 0, nil),
	numD("tcp-backlog", "", immu, 0, intMax, 511, nil),
	numD("cluster-port", "", immu, 0, 65535, 0, nil),
	numD("cluster-announce-bus-port", "", mod, 0, 65535, 0, nil),
	numD("cluster-announce-port", "", mod, 0, 65535, 0, nil),
	numD("cluster-announce-tls-port", "", mod, 0, 65535, 0, nil),
	numD("repl-timeout", "", mod, 1, intMax, 60, nil),
	numD("repl-ping-replica-period", "repl-ping-slave-period", mod, 1, intMax, 10, nil),
	numD("list-compress-depth", "", mod, 0, intMax, 0, func(c *Config) any { return &c.ListCompressDepth }),
	numD("rdb-key-save-delay", "", mod|fHidden, intMin, intMax, 0, func(c *Config) any { return &c.RDBKeySaveDelay }),
	numD("key-load-delay", "", mod|fHidden, intMin, intMax, 0, nil),
	numD("active-expire-effort", "", mod, 1, 10, 1, nil),
	withAfter(numD("hz", "", mod, 0, intMax, 10, func(c *Config) any { return &c.Hz }), clampHz),
	numD("min-replicas-to-write", "min-slaves-to-write", mod, 0, intMax, 0, func(c *Config) any { return &c.MinReplicasToWrite }),
	numD("min-replicas-max-lag", "min-slaves-max-lag", mod, 0, intMax, 10, func(c *Config) any { return &c.MinReplicasMaxLag }),
	numD("watchdog-period", "", mod|fHidden, 0, intMax, 0, nil),
	numD("shutdown-timeout", "", mod, 0, intMax, 10, nil),
	numD("repl-diskless-sync-max-replicas", "", mod, 0, intMax, 0, nil),
	// Unsigned int configs
	numD("maxclients", "", mod|fUnsigned, 1, uintMax, 10000, func(c *Config) any { return &c.MaxClients }),
	numD("unixsocketperm", "", immu|fUnsigned|fOctal, 0, 0o777, 0, func(c *Config) any { return &c.UnixSocketPerm }),
	numD("socket-mark-id", "", immu|fUnsigned, 0, uintMax, 0, nil),
	// Unsigned long configs
	numD("active-defrag-max-scan-fields", "", mod, 1, longMax, 1000, nil),
	numD("slowlog-max-len", "", mod, 0, longMax, 128, func(c *Config) any { return &c.SlowlogMaxLen }),
	numD("acllog-max-len", "", mod, 0, longMax, 128, nil),
	// Long long configs
	numD("busy-reply-threshold", "lua-time-limit", mod, 0, longMax, 5000, func(c *Config) any { return &c.BusyReplyThreshold }),
	numD("cluster-node-timeout", "", mod, 0, llongMax, 15000, nil),
	numD("slowlog-log-slower-than", "", mod, -1, llongMax, 10000, func(c *Config) any { return &c.SlowlogLogSlowerThan }),
	numD("latency-monitor-threshold", "", mod, 0, llongMax, 0, func(c *Config) any { return &c.LatencyMonitorThreshold }),
	numD("proto-max-bulk-len", "", mod|fMemory, 1024*1024, longMax, 512<<20, func(c *Config) any { return &c.ProtoMaxBulkLen }),
	numD("stream-node-max-entries", "", mod, 0, llongMax, 100, func(c *Config) any { return &c.StreamNodeMaxEntries }),
	numD("repl-backlog-size", "", mod|fMemory, 1, llongMax, 1<<20, nil),
	// Unsigned long long configs
	numD("maxmemory", "", mod|fMemory|fUnsigned, 0, ullMax, 0, func(c *Config) any { return &c.MaxMemory }),
	numD("cluster-link-sendbuf-limit", "", mod|fMemory|fUnsigned, 0, ullMax, 0, nil),
	// size_t configs
	numD("hash-max-listpack-entries", "hash-max-ziplist-entries", mod|fUnsigned, 0, longMax, 512, func(c *Config) any { return &c.HashMaxListpackEntries }),
	numD("set-max-intset-entries", "", mod|fUnsigned, 0, longMax, 512, func(c *Config) any { return &c.SetMaxIntsetEntries }),
	numD("zset-max-listpack-entries", "zset-max-ziplist-entries", mod|fUnsigned, 0, longMax, 128, func(c *Config) any { return &c.ZSetMaxListpackEntries }),
	numD("active-defrag-ignore-bytes", "", mod|fMemory|fUnsigned, 1, llongMax, 100<<20, nil),
	numD("hash-max-listpack-value", "hash-max-ziplist-value", mod|fMemory|fUnsigned, 0, longMax, 64, func(c *Config) any { return &c.HashMaxListpackValue }),
	numD("stream-node-max-bytes", "", mod|fMemory|fUnsigned, 0, longMax, 4096, func(c *Config) any { return &c.StreamNodeMaxBytes }),
	numD("zset-max-listpack-value", "zset-max-ziplist-value", mod|fMemory|fUnsigned, 0, longMax, 64, func(c *Config) any { return &c.ZSetMaxListpackValue }),
	numD("hll-sparse-max-bytes", "", mod|fMemory|fUnsigned, 0, longMax, 3000, func(c *Config) any { return &c.HLLSparseMaxBytes }),
	numD("tracking-table-max-keys", "", mod|fUnsigned, 0, longMax, 1000000, nil),
	numD("client-query-buffer-limit", "", mod|fMemory|fUnsigned, 1024*1024, longMax, 1<<30, func(c *Config) any { return &c.ClientQueryBufferLimit }),
	numD("maxmemory-clients", "", mod|fMemory|fPercent, -100, longMax, 0, nil),
	// Other
	numD("repl-backlog-ttl", "", mod, 0, longMax, 3600, nil),
	numD("auto-aof-rewrite-min-size", "", mod|fMemory, 0, llongMax, 64<<20, func(c *Config) any { return &c.AutoAOFRewriteMinSize }),
	numD("loading-process-events-interval-bytes", "", mod|fHidden, 1024, intMax, 2<<20, nil),

	// TLS (the Debian 7.0.15 build has TLS)
	numD("tls-port", "", mod, 0, 65535, 0, nil),
	numD("tls-session-cache-size", "", mod, 0, intMax, 20*1024, nil),
	numD("tls-session-cache-timeout", "", mod, 0, intMax, 300, nil),
	boolD("tls-cluster", "", mod, false, nil),
	boolD("tls-replication", "", mod, false, nil),
	enumD("tls-auth-clients", "", mod, enumTLSAuth, "yes", nil),
	boolD("tls-prefer-server-ciphers", "", mod, false, nil),
	boolD("tls-session-caching", "", mod, true, nil),
	strD("tls-cert-file", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-key-file", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-key-file-pass", "", mod|fEmptyIsNull|fSensitive, "", nil, nil),
	strD("tls-client-cert-file", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-client-key-file", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-client-key-file-pass", "", mod|fEmptyIsNull|fSensitive, "", nil, nil),
	strD("tls-dh-params-file", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-ca-cert-file", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-ca-cert-dir", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-protocols", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-ciphers", "", mod|fEmptyIsNull, "", nil, nil),
	strD("tls-ciphersuites", "", mod|fEmptyIsNull, "", nil, nil),

	// Special configs
	typedD(specialD("dir", "", mod|fProtected|fDenyLoading, ".", setDir, getDir, rewriteDir)),
	typedD(specialD("save", "", mod|fMultiArg, "3600 1 300 100 60 10000", setSave, getSave, rewriteSave)),
	typedD(specialD("client-output-buffer-limit", "", mod|fMultiArg, "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		setOBufLimit, getOBufLimit, rewriteOBufLimit)),
	specialD("oom-score-adj-values", "", mod|fMultiArg, "0 200 800", setOOMValues, getRaw, rewriteOOMValues),
	typedD(specialD("notify-keyspace-events", "", mod, "", setNotify, getNotify, rewriteNotify)),
	typedD(specialD("bind", "", mod|fMultiArg, "* -::*", setBind, getBind, rewriteBind)),
	specialD("replicaof", "slaveof", immu|fMultiArg, "no one", setReplicaOf, getRaw, rewriteReplicaOf),
	specialD("latency-tracking-info-percentiles", "", mod|fMultiArg, "50 99 99.9", setPercentiles, getRaw, rewritePercentiles),

	// aofserver's own directives.
	numD("aof-group-commit-delay-usec", "", mod|fHidden|fOurs, 0, 1000000, 0, func(c *Config) any { return &c.AOFGroupCommitDelayUsec }),
	numD("aof-group-commit-max-batch", "", mod|fHidden|fOurs, 0, intMax, 0, func(c *Config) any { return &c.AOFGroupCommitMaxBatch }),
	numD("aof-group-commit-inflight", "", mod|fHidden|fOurs, 0, 16, 0, func(c *Config) any { return &c.AOFGroupCommitInflight }),
	numD("aof-prealloc-size", "", mod|fHidden|fOurs|fMemory|fUnsigned, 0, 1<<30, 0, func(c *Config) any { return &c.AOFPreallocSize }),
	enumD("log-format", "", immu|fHidden|fOurs, enumLogFormat, "redis", func(c *Config) any { return &c.LogFormat }),
	boolD("netloop", "", immu|fHidden|fOurs, true, func(c *Config) any { return &c.NetLoop }),
	strD("cpu-profile", "", immu|fHidden|fOurs, "", nil, func(c *Config) any { return &c.CPUProfile }),
}

func withAfter(d directive, f func(*Config)) directive {
	d.after = f
	return d
}

// clampHz: hz is a hint; out-of-range values are capped (1..500) as Redis
// does after loading and in updateHZ.
func clampHz(c *Config) {
	c.Hz = min(max(c.Hz, 1), 500)
}

// lookup finds a directive by name or alias, case-insensitively. alias
// reports whether name was the alias.
func lookup(name string) (d *directive, alias bool) {
	n := strings.ToLower(name)
	if i, ok := directiveIndex[n]; ok {
		d := &directives[i]
		return d, d.name != n
	}
	return nil, false
}

// directiveIndex maps names and aliases to directives; read-only after init.
var directiveIndex = func() map[string]int {
	m := make(map[string]int, 2*len(directives))
	for i, d := range directives {
		m[d.name] = i
		if d.alias != "" {
			m[d.alias] = i
		}
	}
	return m
}()

func isBaseName(s string) bool { return !strings.ContainsAny(s, `/\`) }

func validDBFilename(s string) string {
	if !isBaseName(s) {
		return "dbfilename can't be a path, just a filename"
	}
	return ""
}

func validAOFFilename(s string) string {
	if s == "" {
		return "appendfilename can't be empty"
	}
	if !isBaseName(s) {
		return "appendfilename can't be a path, just a filename"
	}
	return ""
}

func validAOFDirname(s string) string {
	if s == "" {
		return "appenddirname can't be empty"
	}
	if !isBaseName(s) {
		return "appenddirname can't be a path, just a dirname"
	}
	return ""
}

func validHostname(s string) string {
	if len(s) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

// validProcTitle accepts templates whose {variables} are known and whose
// braces balance (validateProcTitleTemplate).
func validProcTitle(s string) string {
	const bad = "template format is invalid or contains unknown variables"
	known := map[string]bool{"title": true, "listen-addr": true, "server-mode": true, "port": true,
		"tls-port": true, "unixsocket": true, "config-file": true}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if i+1 < len(s) && s[i+1] == '{' {
				i++
				continue
			}
			j := strings.IndexByte(s[i:], '}')
			if j < 0 || !known[s[i+1:i+j]] {
				return bad
			}
			i += j
		case '}':
			if i+1 < len(s) && s[i+1] == '}' {
				i++
				continue
			}
			return bad
		}
	}
	if strings.TrimSpace(s) == "" {
		return bad
	}
	return ""
}
