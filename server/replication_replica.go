package server

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/replication"
)

// Replication, replica side: REPLICAOF, and the server's half of the link
// to our master (package replication's Link runs the connection, the
// handshake, the transfer and the stream). What stays here is the
// executor's: the master client the stream runs as, loading the received
// RDB into the keyspace, the history the stream continues, and the
// refusals processCommand applies on a replica.

// linkHost is the server as a replication.LinkHost. It is a distinct
// type so that the interface's methods do not join Server's API.
type linkHost struct{ s *Server }

func init() {
	for _, name := range []string{"replicaof", "slaveof"} {
		register(&command{name: name, arity: 3, flags: cmdAdmin | cmdNoScript | cmdStale, proc: replicaofReplCommand, group: "server",
			summary: "Make the server a replica of another instance, or promote it as master.", since: "5.0.0", acl: []string{"@admin", "@slow", "@dangerous"}})
	}
}

// replicaofReplCommand is Redis's replicaofCommand.
func replicaofReplCommand(c *client, argv [][]byte) {
	s := c.srv
	if s.failoverPaused() {
		c.err("ERR REPLICAOF not allowed while failing over.")
		return
	}
	if eqFold(argv[1], "no") && eqFold(argv[2], "one") {
		if s.repl.link != nil {
			s.replUnsetMaster()
			s.log.Info().Msgf("MASTER MODE enabled (user request from '%s')", c.infoLine())
		}
		c.ok()
		return
	}
	if c.flags&flagReplica != 0 {
		c.err("ERR Command is not valid when client is a replica.")
		return
	}
	port, ok := parseInt(argv[2])
	if !ok || port < 0 || port > 65535 {
		c.err("ERR Invalid master port")
		return
	}
	host := string(argv[1])
	if l := s.repl.link; l != nil && strings.EqualFold(l.Host(), host) && l.Port() == int(port) {
		s.log.Info().Msg("REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.")
		c.addReplyString("+OK Already connected to specified master\r\n")
		return
	}
	s.replSetMaster(host, int(port), true)
	s.log.Info().Msgf("REPLICAOF %s:%d enabled (user request from '%s')", host, port, c.infoLine())
	c.ok()
}

// ReplicaOfFromConfig applies the replicaof directive at start-up.
func (s *Server) ReplicaOfFromConfig() {
	v := strings.Fields(s.replCfg("replicaof"))
	if len(v) != 2 || strings.EqualFold(v[0], "no") {
		return
	}
	port, err := strconv.Atoi(v[1])
	if err != nil {
		return
	}
	s.mu.Lock()
	// At start-up there is no cached master (Redis sets masterhost from
	// the file, without replicationCacheMasterUsingMyself).
	s.replSetMaster(v[0], port, false)
	s.mu.Unlock()
}

// replSetMaster is replicationSetMaster (under mu); cacheMyself: a master
// turning replica offers its own history to the new master
// (replicationCacheMasterUsingMyself), REPLICAOF's case.
func (s *Server) replSetMaster(host string, port int, cacheMyself bool) {
	s.replInit()
	wasMaster := s.repl.link == nil
	if wasMaster && cacheMyself {
		s.log.Info().Msg("Before turning into a replica, using my own master parameters to synthesize a cached master: I may be able to synchronize with the new master with just a partial transfer.")
	}
	if l := s.repl.link; l != nil {
		l.Close()
	}
	// Our own history becomes what we ask the new master to continue
	// (replicationCacheMasterUsingMyself).
	psyncPossible := true
	if !wasMaster {
		psyncPossible = s.repl.Backlog != nil
	} else if !cacheMyself {
		psyncPossible = false
	}
	l := replication.NewLink(linkHost{s}, s.log, host, port, psyncPossible, &s.stats.netReplIn, &s.stats.totalReads)
	s.repl.link = l
	s.cfg.SetReplicaOf(host, port) // CONFIG GET replicaof, CONFIG REWRITE
	// Replicas of ours resync with the new history.
	for _, r := range s.repl.replicas {
		s.dropReplica(r, "master changed")
	}
	s.log.Info().Msgf("Connecting to MASTER %s:%d", host, port)
	s.replStartCron()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		l.Run(s.closing)
	}()
}

// replUnsetMaster is replicationUnsetMaster: a new history starts here,
// continuing the master's (ID2).
func (s *Server) replUnsetMaster() {
	s.repl.link.Close()
	s.repl.link = nil
	s.cfg.SetReplicaOf("", 0)
	s.shiftReplicationID()
	if s.repl.Backlog == nil {
		s.createBacklog()
	}
	for _, r := range s.repl.replicas {
		s.dropReplica(r, "master mode")
	}
	s.repl.SelDB = -1
	s.refreshGoodReplicas()
}

// listenPort is the port we listen on (what REPLCONF listening-port says).
func (s *Server) listenPort() int {
	if len(s.listeners) > 0 {
		if a, ok := s.listeners[0].Addr().(*net.TCPAddr); ok {
			return a.Port
		}
	}
	return s.cfg.Port
}

// syncLoadFailed reports the failed load of the RDB received from the
// master (dump.rdb by now) as Redis 7.0.15: corrupt content goes through
// rdbReportError as for any file being loaded (its lines, redis-check-rdb
// on the file, "Terminating server ..." and exit 1); a signature or a
// version rdbLoad refuses is logged, and the sync is tried again. Under mu.
func (s *Server) syncLoadFailed(path string, err error) error {
	if _, ok := rdb.LoadFailureLines(err); ok {
		if ferr := s.persist.LoadFailed(path, err); ferr == persist.ErrLoadTerminated {
			s.log.Warn().Msg(ferr.Error())
			s.exitFn(1)
		}
		return errors.New("MASTER <-> REPLICA sync: loading failed")
	}
	if !s.persist.LoadRefused(err) {
		return fmt.Errorf("Failed trying to load the MASTER synchronization DB from disk: %v", err)
	}
	return errors.New("Failed trying to load the MASTER synchronization DB from disk: Invalid argument")
}

func (h linkHost) Lock()                            { h.s.mu.Lock() }
func (h linkHost) Unlock()                          { h.s.mu.Unlock() }
func (h linkHost) Current(l *replication.Link) bool { return h.s.repl.link == l }

func (h linkHost) LinkConfig() replication.LinkConfig {
	s := h.s
	cfg := replication.LinkConfig{
		Timeout:    s.replTimeout(),
		Auth:       s.replCfg("masterauth"),
		User:       s.replCfg("masteruser"),
		Port:       s.listenPort(),
		AnnounceIP: s.replCfg("replica-announce-ip"),
		FS:         s.fsys(),
		Dir:        s.cfg.Dir,
	}
	if p := s.replCfgInt("replica-announce-port"); p != 0 {
		cfg.Port = int(p)
	}
	return cfg
}

func (h linkHost) History() (string, int64) { return h.s.repl.ID, h.s.repl.Offset }

func (h linkHost) PsyncFailover() bool { return h.s.repl.failover.PsyncFailover() }

func (h linkHost) PsyncReply(reply string) bool { return h.s.repl.failover.PsyncReply(reply) }

// Continue is the +CONTINUE side of syncWithMaster.
func (h linkHost) Continue(replid string) int64 {
	s := h.s
	if replid != "" && replid != s.repl.ID {
		// The master changed history: ours continues as ID2.
		s.repl.ID2 = s.repl.ID
		s.repl.SecondOffset = s.repl.Offset + 1
		s.repl.ID = replid
		s.log.Info().Msgf("Master replication ID changed to %s", replid)
		for _, rr := range s.repl.replicas {
			s.dropReplica(rr, "master replication ID changed")
		}
	}
	if s.repl.Backlog == nil {
		s.createBacklog()
	}
	s.log.Info().Msg("Successful partial resynchronization with master.")
	s.log.Info().Msg("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.")
	return s.repl.Offset
}

// LoadSynced is the end of readSyncBulkPayload: as Redis, a BGSAVE must
// not overwrite the synced data, the old data goes, then the received
// file becomes dump.rdb and is loaded. Nothing checks it first: a corrupt
// one leaves the replica empty (or ends it, as syncLoadFailed).
func (h linkHost) LoadSynced(tmp, replid string, off int64) error {
	s := h.s
	fsys := s.fsys()
	if j := s.rdbJob(); j != nil {
		s.log.Info().Msgf("Replica is about to load the RDB file received from the master, but there is a pending RDB child running. Killing process %d and removing its temp file to avoid any race", j.Pid())
		j.Kill() // reaped as Redis's killRDBChild
	}
	s.log.Info().Msg("MASTER <-> REPLICA sync: Flushing old data")
	for _, db := range s.dbs {
		s.emptyDB(db)
	}
	s.scripts().FlushFunctions()
	dump := s.dumpPath()
	if err := fsys.Rename(tmp, dump); err != nil {
		return fmt.Errorf("Failed trying to rename the temp DB into %s in MASTER <-> REPLICA synchronization: %s", s.cfg.DBFilename, errnoText(err))
	}
	if err := fsys.SyncDir(filepath.Dir(dump)); err != nil {
		return fmt.Errorf("Failed trying to sync DB directory %s in MASTER <-> REPLICA synchronization: %s", s.cfg.DBFilename, errnoText(err))
	}
	f, err := fsys.Open(dump)
	if err != nil {
		return fmt.Errorf("Failed trying to load the MASTER synchronization DB from disk: %s", errnoText(err))
	}
	defer f.Close()
	s.log.Info().Msg("MASTER <-> REPLICA sync: Loading DB in memory")
	s.setLoading(true)
	// A replica keeps the keys already expired: the master's DELs will
	// come (the loader's AOF-base mode loads them).
	_, lerr := s.decodeRDB(bufio.NewReaderSize(f, 1<<20), s.newRDBLoader(true))
	s.setLoading(false)
	if lerr != nil {
		for _, db := range s.dbs {
			s.emptyDB(db)
		}
		return s.syncLoadFailed(dump, lerr)
	}
	s.dirty++
	// Our history is now the master's.
	s.repl.ID, s.repl.ID2, s.repl.SecondOffset = replid, replication.ZeroID, -1
	s.repl.Offset = off
	s.createBacklog()
	for _, r := range s.repl.replicas {
		s.dropReplica(r, "full resync from our master")
	}
	s.log.Info().Msg("MASTER <-> REPLICA sync: Finished with success")
	if s.aof != nil {
		// The AOF must hold the new dataset (Redis restarts it after a
		// sync with a rewrite).
		if err := s.persist.RewriteBackground(); err != nil {
			s.persist.RewriteScheduled = true
		}
	}
	return nil
}

// StreamStart makes the master client: the stream runs as a client of
// ours (CLIENT_MASTER), authenticated, in DB 0.
func (h linkHost) StreamStart(l *replication.Link, nc net.Conn) {
	s := h.s
	mc := newClient(s, nc, s.nextID.Add(1))
	mc.flags |= flagMaster
	mc.authed = true
	mc.db = s.dbs[0]
	s.clients[mc.id] = mc
	s.repl.master = mc
}

// Apply runs one command of the stream as the master client. The applied
// bytes go on to our backlog and replicas
// (replicationFeedStreamFromMasterStream), and count in our offset.
func (h linkHost) Apply(argv [][]byte, raw []byte) {
	s := h.s
	if mc := s.repl.master; len(argv) > 0 && mc != nil {
		mc.lastInter.Store(time.Now().UnixNano())
		s.processCommand(mc, argv)
		mc.out = mc.out[:0] // the master gets no replies
	}
	s.replFeedBytes(raw)
}

func (h linkHost) LinkDown(*replication.Link) {
	s := h.s
	if mc := s.repl.master; mc != nil {
		delete(s.clients, mc.id)
		s.freeClient(mc)
		s.repl.master = nil
	}
}

// replicaRefusal is processCommand's replica checks: MASTERDOWN with a
// broken link under replica-serve-stale-data no, READONLY for writes
// under replica-read-only (the master's own commands pass).
func (s *Server) replicaRefusal(c *client, cmd *command, isWrite bool) string {
	l := s.repl.link
	if l == nil || c.flags&flagMaster != 0 {
		return ""
	}
	if !l.Connected() && cmd.flags&cmdStale == 0 && !s.replCfgYes("replica-serve-stale-data") {
		return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	}
	if isWrite && s.replCfgYes("replica-read-only") {
		return "READONLY You can't write against a read only replica."
	}
	return ""
}

// replicaKeepsExpired is expireIfNeeded's replica rule: a replica does
// not delete expired keys (the master's DEL will come); they read as
// missing except to the master's own commands.
func (s *Server) replicaKeepsExpired() (isReplica, expired bool) {
	if s.repl.link == nil {
		return false, false
	}
	return true, s.curClient == nil || s.curClient.flags&flagMaster == 0
}
