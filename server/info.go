package server

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aofserver/aofserver/pubsub"
)

// INFO, with Redis 7.0's sections, field names and CRLF lines.

var defaultSections = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules", "errorstats", "cluster", "keyspace"}

func infoCommand(c *client, argv [][]byte) {
	s := c.srv
	want := map[string]bool{}
	all := false
	if len(argv) == 1 {
		for _, n := range defaultSections {
			want[n] = true
		}
	}
	for _, a := range argv[1:] {
		n := strings.ToLower(string(a))
		switch n {
		case "default":
			for _, d := range defaultSections {
				want[d] = true
			}
		case "all", "everything":
			for _, d := range defaultSections {
				want[d] = true
			}
			want["commandstats"] = true
			want["latencystats"] = true
			all = true
		default:
			want[n] = true
		}
	}
	_ = all
	c.verbatim("txt", []byte(s.genInfo(want)))
}

func (s *Server) genInfo(want map[string]bool) string {
	var b strings.Builder
	sep := func(name string) {
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + name + "\r\n")
	}
	f := func(k string, v any) {
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(fmt.Sprint(v))
		b.WriteString("\r\n")
	}
	now := time.Now()
	if want["server"] {
		sep("Server")
		f("redis_version", Version)
		f("redis_git_sha1", "00000000")
		f("redis_git_dirty", 0)
		f("redis_build_id", "aofserver")
		f("redis_mode", "standalone")
		f("os", runtime.GOOS+" "+runtime.GOARCH)
		f("arch_bits", 64)
		f("monotonic_clock", "POSIX clock_gettime")
		f("multiplexing_api", "epoll")
		f("atomicvar_api", "c11-builtin")
		f("gcc_version", "0.0.0")
		f("go_version", runtime.Version())
		f("process_id", os.Getpid())
		f("process_supervised", "no")
		f("run_id", s.runID())
		f("tcp_port", s.cfg.Port)
		f("server_time_usec", now.UnixMicro())
		f("uptime_in_seconds", int64(now.Sub(s.startAt).Seconds()))
		f("uptime_in_days", int64(now.Sub(s.startAt).Hours()/24))
		f("hz", s.cfg.Hz)
		f("configured_hz", s.cfg.Hz)
		f("lru_clock", s.lruClock)
		exe, _ := os.Executable()
		f("executable", exe)
		f("config_file", s.cfg.File())
		f("io_threads_active", 0)
	}
	if want["clients"] {
		sep("Clients")
		blocked := s.pausedClients()
		pubsub := 0
		for _, c := range s.clients {
			if c.flags&flagPubSub != 0 {
				pubsub++
			}
		}
		f("connected_clients", len(s.clients))
		f("cluster_connections", 0)
		f("maxclients", s.cfg.MaxClients)
		f("client_recent_max_input_buffer", s.stats.ibufPeak.recent())
		f("client_recent_max_output_buffer", s.recentMaxOutputBuffer())
		f("blocked_clients", blocked+s.blockedCount())
		f("tracking_clients", s.tracking.Clients())
		f("clients_in_timeout_table", 0)
		_ = pubsub
	}
	if want["memory"] {
		sep("Memory")
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		// used_memory is the estimate maxmemory is compared with
		// (evict.go); the allocator_* fields are the Go heap's own.
		used, dataset := s.usedMemoryEstimate(), s.datasetBytes()
		peak := s.usedMemoryPeak(used)
		rss := rssBytes()
		f("used_memory", used)
		f("used_memory_human", bytesHuman(used))
		f("used_memory_rss", rss)
		f("used_memory_rss_human", bytesHuman(rss))
		f("used_memory_peak", peak)
		f("used_memory_peak_human", bytesHuman(peak))
		f("used_memory_peak_perc", fmt.Sprintf("%.2f%%", float64(used)*100/float64(peak)))
		f("used_memory_overhead", used-dataset)
		f("used_memory_startup", memStartup)
		f("used_memory_dataset", dataset)
		f("used_memory_dataset_perc", fmt.Sprintf("%.2f%%", float64(dataset)*100/float64(max(used-memStartup, 1))))
		f("allocator_allocated", int64(ms.HeapAlloc))
		f("allocator_active", int64(ms.HeapInuse))
		f("allocator_resident", int64(ms.HeapSys))
		f("total_system_memory", totalSystemMemory())
		f("total_system_memory_human", bytesHuman(totalSystemMemory()))
		f("used_memory_lua", 31744)
		f("used_memory_vm_eval", 31744)
		f("used_memory_lua_human", "31.00K")
		f("used_memory_scripts_eval", 0)
		sc := s.scripts()
		f("number_of_cached_scripts", sc.NumScripts())
		f("number_of_functions", sc.NumFunctions())
		f("number_of_libraries", sc.NumLibraries())
		f("used_memory_vm_functions", 32768)
		f("used_memory_vm_total", 64512)
		f("used_memory_vm_total_human", "63.00K")
		f("used_memory_functions", 184)
		f("used_memory_scripts", 184)
		f("used_memory_scripts_human", "184B")
		f("maxmemory", s.cfg.MaxMemory)
		f("maxmemory_human", bytesHuman(s.cfg.MaxMemory))
		f("maxmemory_policy", s.cfg.MaxMemoryPolicy)
		f("allocator_frag_ratio", "1.00")
		f("allocator_frag_bytes", 0)
		f("allocator_rss_ratio", "1.00")
		f("allocator_rss_bytes", 0)
		f("rss_overhead_ratio", "1.00")
		f("rss_overhead_bytes", 0)
		ratio := 1.0
		if used > 0 {
			ratio = float64(rss) / float64(used)
		}
		f("mem_fragmentation_ratio", strconv.FormatFloat(ratio, 'f', 2, 64))
		f("mem_fragmentation_bytes", rss-used)
		f("mem_not_counted_for_evict", 0)
		f("mem_replication_backlog", 0)
		f("mem_total_replication_buffers", 0)
		f("mem_clients_slaves", 0)
		f("mem_clients_normal", s.normalClientsMemory())
		f("mem_cluster_links", 0)
		f("mem_aof_buffer", s.aofBufferLength())
		f("mem_allocator", "go-"+runtime.Version())
		f("active_defrag_running", 0)
		f("lazyfree_pending_objects", 0)
		f("lazyfreed_objects", s.stats.lazyfreedObjects)
	}
	if want["persistence"] {
		sep("Persistence")
		s.infoPersistence(f)
	}
	if want["stats"] {
		sep("Stats")
		st := &s.stats
		f("total_connections_received", st.totalConns)
		f("total_commands_processed", st.totalCommands)
		f("instantaneous_ops_per_sec", st.instOps.get())
		// Bytes read from our master and written to our replicas are
		// counted apart, and added to the totals, as Redis does.
		replIn, replOut := st.netReplIn.Load(), st.netReplOut.Load()
		f("total_net_input_bytes", st.netInput.Load()+replIn)
		f("total_net_output_bytes", st.netOutput.Load()+replOut)
		f("total_net_repl_input_bytes", replIn)
		f("total_net_repl_output_bytes", replOut)
		f("instantaneous_input_kbps", kbps(&st.instIn))
		f("instantaneous_output_kbps", kbps(&st.instOut))
		f("instantaneous_input_repl_kbps", kbps(&st.instReplIn))
		f("instantaneous_output_repl_kbps", kbps(&st.instReplOut))
		f("rejected_connections", st.rejectedConns)
		f("sync_full", st.syncFull)
		f("sync_partial_ok", st.syncPartialOK)
		f("sync_partial_err", st.syncPartialErr)
		f("expired_keys", st.expiredKeys)
		f("expired_stale_perc", "0.00")
		f("expired_time_cap_reached_count", 0)
		f("expire_cycle_cpu_milliseconds", st.expireCycleCPU)
		f("evicted_keys", st.evictedKeys)
		f("evicted_clients", 0)
		evTotal, evCur := s.evictExceededTimes()
		f("total_eviction_exceeded_time", evTotal)
		f("current_eviction_exceeded_time", evCur)
		f("keyspace_hits", st.keyspaceHits)
		f("keyspace_misses", st.keyspaceMisses)
		f("pubsub_channels", s.pubsub.Count(pubsub.Channel))
		f("pubsub_patterns", s.pubsub.Count(pubsub.Pattern))
		f("pubsubshard_channels", s.pubsub.Count(pubsub.Shard))
		f("latest_fork_usec", s.persist.Jobs.LatestForkUsec.Load())
		f("total_forks", s.persist.Jobs.TotalForks.Load())
		f("migrate_cached_sockets", len(s.migrate))
		f("slave_expires_tracked_keys", 0)
		f("active_defrag_hits", 0)
		f("active_defrag_misses", 0)
		f("active_defrag_key_hits", 0)
		f("active_defrag_key_misses", 0)
		f("total_active_defrag_time", 0)
		f("current_active_defrag_time", 0)
		f("tracking_total_keys", s.tracking.Keys())
		f("tracking_total_items", s.tracking.Items())
		f("tracking_total_prefixes", s.tracking.Prefixes())
		f("unexpected_error_replies", st.unexpectedErrs)
		f("total_error_replies", st.totalErrorReplies)
		f("dump_payload_sanitizations", 0)
		f("total_reads_processed", st.totalReads.Load())
		f("total_writes_processed", st.totalWrites.Load())
		f("io_threaded_reads_processed", 0)
		f("io_threaded_writes_processed", 0)
		f("reply_buffer_shrinks", st.replyBufShrinks)
		f("reply_buffer_expands", st.replyBufExpands)
	}
	if want["replication"] {
		sep("Replication")
		s.infoReplication(f) // replication.go
	}
	if want["cpu"] {
		sep("CPU")
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		tv := func(t syscall.Timeval) string {
			return fmt.Sprintf("%d.%06d", t.Sec, t.Usec)
		}
		f("used_cpu_sys", tv(ru.Stime))
		f("used_cpu_user", tv(ru.Utime))
		f("used_cpu_sys_children", "0.000000")
		f("used_cpu_user_children", "0.000000")
		f("used_cpu_sys_main_thread", tv(ru.Stime))
		f("used_cpu_user_main_thread", tv(ru.Utime))
	}
	if want["modules"] {
		sep("Modules")
	}
	if want["commandstats"] {
		sep("Commandstats")
		var lines []string
		add := func(cmd *command) {
			if cmd.calls == 0 && cmd.rejected == 0 && cmd.failed == 0 {
				return
			}
			per := 0.0
			if cmd.calls > 0 {
				per = float64(cmd.usec) / float64(cmd.calls)
			}
			lines = append(lines, fmt.Sprintf("cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d", cmd.fullName(), cmd.calls, cmd.usec, per, cmd.rejected, cmd.failed))
		}
		for _, n := range s.commands.sortedNames() {
			cmd := s.commands[n]
			add(cmd)
			for _, sub := range cmd.subs {
				add(sub)
			}
		}
		for _, l := range lines {
			b.WriteString(l + "\r\n")
		}
	}
	if want["errorstats"] {
		sep("Errorstats")
		codes := make([]string, 0, len(s.stats.errorCounts))
		for k := range s.stats.errorCounts {
			codes = append(codes, k)
		}
		sort.Strings(codes)
		for _, k := range codes {
			f("errorstat_"+k, "count="+strconv.FormatInt(s.stats.errorCounts[k], 10))
		}
	}
	if want["latencystats"] {
		sep("Latencystats")
		s.appendLatencyStats(&b)
	}
	if want["cluster"] {
		sep("Cluster")
		f("cluster_enabled", 0)
	}
	if want["keyspace"] {
		sep("Keyspace")
		for _, db := range s.dbs {
			if db.size() == 0 {
				continue
			}
			f("db"+strconv.Itoa(db.id), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=%d", db.size(), db.expires.Len(), s.avgTTL(db)))
		}
	}
	return b.String()
}

func (s *Server) avgTTL(db *DB) int64 {
	n := db.expires.Len()
	if n == 0 {
		return 0
	}
	// Sample like Redis's estimate rather than walking all keys.
	now := s.nowMs()
	var sum, cnt int64
	var cur uint64
	for i := 0; i < 20; i++ {
		cur = db.expires.Scan(cur, func(_ string, v *int64) {
			if t := *v - now; t > 0 {
				sum += t
				cnt++
			}
		})
		if cur == 0 {
			break
		}
	}
	if cnt == 0 {
		return 0
	}
	return sum / cnt
}

func bytesHuman(n int64) string {
	d := float64(n)
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1024*1024:
		return fmt.Sprintf("%.2fK", d/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.2fM", d/(1024*1024))
	case n < 1024*1024*1024*1024:
		return fmt.Sprintf("%.2fG", d/(1024*1024*1024))
	default:
		return fmt.Sprintf("%.2fT", d/(1024*1024*1024*1024))
	}
}

// rssBytes reads the resident set size from /proc.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(fields[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func totalSystemMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// usedMemory is what maxmemory is compared with: the estimate of
// evict.go, current after every command.
func (s *Server) usedMemory() int64 { return s.usedMemoryEstimate() }

// refreshUsedMemory is kept for callers that read usedMemory outside a
// command: the estimate needs no refreshing.
func (s *Server) refreshUsedMemory() {}
