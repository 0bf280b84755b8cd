package server

import (
	"strings"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/config"
)

func init() {
	p := func(name string, arity int, flags uint64, proc cmdProc, summary, since string) *command {
		return &command{name: name, arity: arity, flags: flags, proc: proc, group: "server", summary: summary, since: since, acl: []string{"@admin", "@slow", "@dangerous"}}
	}
	adm := cmdAdmin | cmdNoScript
	register(
		p("save", 1, adm|cmdNoMulti|cmdNoAsyncLoading, saveCommand, "Synchronously save the dataset to disk", "1.0.0"),
		p("bgsave", -1, adm, bgsaveCommand, "Asynchronously save the dataset to disk", "1.0.0"),
		p("bgrewriteaof", 1, adm, bgrewriteaofCommand, "Asynchronously rewrite the append-only file", "1.0.0"),
		&command{name: "lastsave", arity: 1, flags: cmdLoading | cmdStale | cmdFast, proc: lastsaveCommand, group: "server", summary: "Get the UNIX time stamp of the last successful save to disk", since: "1.0.0", acl: []string{"@admin", "@fast", "@dangerous"}},
		&command{name: "config", arity: -2, group: "server", summary: "A container for server configuration commands", since: "2.0.0", acl: []string{"@slow"}},
		p("config|get", -3, adm|cmdLoading|cmdStale, configGetCommand, "Get the values of configuration parameters", "2.0.0"),
		p("config|set", -4, adm|cmdLoading|cmdStale, configSetCommand, "Set configuration parameters to the given values", "2.0.0"),
		p("config|resetstat", 2, adm|cmdLoading|cmdStale, configResetstatCommand, "Reset the stats returned by INFO", "2.0.0"),
		p("config|rewrite", 2, adm|cmdLoading|cmdStale, configRewriteCommand, "Rewrite the configuration file with the in memory configuration", "2.8.0"),
		&command{name: "config|help", arity: 2, flags: cmdLoading | cmdStale, proc: configHelpCommand, group: "server", summary: "Show helpful text about the different subcommands", since: "5.0.0", acl: []string{"@slow"}},
	)
}

const cmdNoAsyncLoading = 0

func saveCommand(c *client, argv [][]byte) {
	if err := c.srv.persist.SaveCommand(); err != nil {
		c.err(err.Error())
		return
	}
	c.ok()
}

// inExec reports a command run inside MULTI/EXEC or a script, where
// BGSAVE and BGREWRITEAOF only schedule their job.
func (c *client) inExec() bool { return c.flags&flagMulti != 0 || c.srv.execDepth > 1 }

func bgsaveCommand(c *client, argv [][]byte) {
	schedule := false
	if len(argv) > 1 {
		if len(argv) == 2 && eqFold(argv[1], "schedule") {
			schedule = true
		} else {
			c.errSyntax()
			return
		}
	}
	reply, err := c.srv.persist.BGSAVECommand(schedule, c.inExec())
	if err != nil {
		c.err(err.Error())
		return
	}
	c.status(reply)
}

func bgrewriteaofCommand(c *client, argv [][]byte) {
	reply, err := c.srv.persist.BGREWRITEAOFCommand(c.inExec())
	if err != nil {
		c.err(err.Error())
		return
	}
	c.status(reply)
}

func lastsaveCommand(c *client, argv [][]byte) { c.integer(c.srv.persist.LastSave.Unix()) }

func configGetCommand(c *client, argv [][]byte) {
	pats := make([]string, 0, len(argv)-2)
	for _, a := range argv[2:] {
		pats = append(pats, string(a))
	}
	pairs := c.srv.cfg.Get(pats...)
	c.mapLen(len(pairs))
	for _, p := range pairs {
		c.bulkString(p[0])
		c.bulkString(p[1])
	}
}

func configSetCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv)%2 != 0 {
		c.err(arityError(s.commands["config"].subs["set"]))
		return
	}
	var pairs [][2]string
	for i := 2; i+1 < len(argv); i += 2 {
		if sensitiveConfig(argv[i]) {
			c.redactArg(argv, i+1) // even when the call fails
		}
		pairs = append(pairs, [2]string{string(argv[i]), string(argv[i+1])})
	}
	// enable-protected-configs local lets a local client set dir & co.;
	// some directives wait for the dataset to load (DENY_LOADING_CONFIG).
	opts := config.SetOptions{Local: c.isLocal(), Loading: s.loading}
	prevPass := s.cfg.Requirepass
	err := s.cfg.SetWith(pairs, opts, func(changed []string) error {
		err := s.applyConfig(changed)
		if err != nil {
			name := changed[0]
			if ae, ok := err.(*config.ApplyError); ok {
				name = ae.Name
			}
			s.log.Warn().Msgf("Failed applying new configuration. Possibly related to new %s setting. Restoring previous settings.", name)
		}
		return err
	})
	if s.cfg.Requirepass != prevPass { // also after a rollback
		s.aclSetDefaultPassword(s.cfg.Requirepass)
	}
	s.inflight.Store(int32(s.cfg.AOFGroupCommitInflight))
	if err != nil {
		s.reloadNotifyFlags() // a failed apply restores every value
		msg := err.Error()
		if !strings.HasPrefix(msg, "ERR") && err != config.ErrLoading {
			msg = "ERR " + msg
		}
		c.err(msg)
		return
	}
	c.ok()
}

// applyConfig reacts to CONFIG SET of directives with side effects.
func (s *Server) applyConfig(changed []string) error {
	rebound := false
	for _, name := range changed {
		switch name {
		case "port", "bind":
			if !rebound {
				rebound = true
				if err := s.rebind(changed); err != nil {
					return err
				}
			}
		case "appendonly":
			if s.cfg.AppendOnly && s.aof == nil {
				if err := s.persist.StartAppendOnly(s.execDepth > 1); err != nil {
					return err
				}
			} else if !s.cfg.AppendOnly && s.aof != nil {
				s.persist.StopAppendOnly()
			}
		case "appendfsync", "aof-timestamp-enabled", "aof-disable-auto-gc", "no-appendfsync-on-rewrite",
			"aof-group-commit-delay-usec", "aof-group-commit-max-batch", "aof-use-rdb-preamble", "aof-load-truncated",
			"aof-prealloc-size":
			if s.aof != nil {
				o := s.aofOptions()
				s.aof.SetOptions(func(opt *aof.Options) {
					opt.Policy = o.Policy
					opt.TimestampEnabled = o.TimestampEnabled
					opt.DisableAutoGC = o.DisableAutoGC
					opt.NoFsyncOnRewrite = o.NoFsyncOnRewrite
					opt.GroupCommitDelay = o.GroupCommitDelay
					opt.GroupCommitMaxBatch = o.GroupCommitMaxBatch
					opt.PreallocSize = o.PreallocSize
					opt.UseRDBPreamble = o.UseRDBPreamble
					opt.LoadTruncated = o.LoadTruncated
				})
			}
		case "maxmemory":
			// Redis's updateMaxmemory: warn, then evict as soon as this
			// command (or its EXEC) is over (startEvictionTimeProc).
			if m := s.cfg.MaxMemory; m > 0 {
				if used := s.usedMemory(); m < used {
					s.log.Warn().Msgf("WARNING: the new maxmemory value set via CONFIG SET (%d) is smaller than the current memory usage (%d). This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.", m, used)
				}
				s.startEvictionProc()
			}
		case "notify-keyspace-events":
			s.reloadNotifyFlags()
		case "maxclients":
			if err := s.updateMaxclients(); err != nil {
				return &config.ApplyError{Name: name, Err: err}
			}
		}
	}
	return nil
}

func configResetstatCommand(c *client, argv [][]byte) {
	s := c.srv
	s.resetStats()
	c.ok()
}

func (s *Server) resetStats() {
	st := &s.stats
	st.totalConns, st.totalCommands, st.rejectedConns = 0, 0, 0
	st.syncFull, st.syncPartialOK, st.syncPartialErr = 0, 0, 0
	st.expiredKeys, st.evictedKeys, st.keyspaceHits, st.keyspaceMisses = 0, 0, 0, 0
	st.totalErrorReplies, st.unexpectedErrs, st.lazyfreedObjects = 0, 0, 0
	st.netInput.Store(0)
	st.netOutput.Store(0)
	st.netReplIn.Store(0)
	st.netReplOut.Store(0)
	st.totalReads.Store(0)
	st.totalWrites.Store(0)
	st.replyBufShrinks, st.replyBufExpands = 0, 0
	now := time.Now().UnixMilli()
	st.instOps.reset(now)
	st.instIn.reset(now)
	st.instOut.reset(now)
	st.instReplIn.reset(now)
	st.instReplOut.reset(now)
	st.errorCounts = map[string]int64{}
	for _, cmd := range s.commands {
		cmd.calls, cmd.usec, cmd.rejected, cmd.failed = 0, 0, 0, 0
		for _, sub := range cmd.subs {
			sub.calls, sub.usec, sub.rejected, sub.failed = 0, 0, 0, 0
		}
	}
	s.persist.Jobs.LatestForkUsec.Store(0)
	s.resetLatencyHistograms()
}

func configRewriteCommand(c *client, argv [][]byte) {
	s := c.srv
	if err := s.cfg.RewriteFS(s.fsys(), false, s.configRewriteLog); err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "ERR") {
			msg = "ERR Rewriting config file: " + msg
		}
		if text, ok := strings.CutPrefix(msg, "ERR Rewriting config file: "); ok {
			s.log.Warn().Msgf("CONFIG REWRITE failed: %s", text)
		}
		c.err(msg)
		return
	}
	c.srv.log.Info().Msg("CONFIG REWRITE executed with success.")
	c.ok()
}

// configRewriteLog logs the line config.RewriteFS gives for a failed step
// of a file's replacement (Redis's rewriteConfigOverwriteFile lines).
func (s *Server) configRewriteLog(level, line string) {
	if level == "notice" {
		s.log.Info().Msg(line)
		return
	}
	s.log.Warn().Msg(line)
}

func configHelpCommand(c *client, argv [][]byte) {
	helpLines(c, []string{
		"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET <pattern>",
		"    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>",
		"    Set the configuration <directive> to <value>.",
		"RESETSTAT",
		"    Reset statistics reported by the INFO command.",
		"REWRITE",
		"    Rewrite the configuration file.",
		"HELP",
		"    Prints this help.",
	})
}
