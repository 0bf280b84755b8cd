package server

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/replication"
	"golang.org/x/sys/unix"
)

// Replication, master side, as Redis 7.0's replication.c: replicas attach
// with SYNC or PSYNC, get an RDB of one instant (disk-backed: the BGSAVE
// job writes dump.rdb and it is sent as "$<len>\r\n<rdb>"; diskless: a
// snapshot of our own is streamed as "$EOF:<mark>\r\n<rdb><mark>"), then
// the propagated command stream from that instant: the same ops the AOF
// gets (SELECT, effects, MULTI/EXEC), without the AOF's #TS annotations,
// plus the master's PINGs and REPLCONF GETACKs. The stream also goes to
// the backlog, from which a replica that lost its link continues
// (+CONTINUE). Everything here runs under Server.mu unless said otherwise.

// Client flags of replication links (above client.go's iota flags).
const (
	flagReplica uint32 = 1 << 28 // a replica attached to us (CLIENT_SLAVE)
	flagMaster  uint32 = 1 << 29 // our master's link (CLIENT_MASTER)
)

// Replica states (SLAVE_STATE_*), with INFO's names.
const (
	replWaitBgsaveStart = iota // waiting for a snapshot to begin
	replWaitBgsaveEnd          // a snapshot for it is being produced
	replSendBulk               // the RDB is being sent
	replOnline                 // streaming
)

var replStateNames = [...]string{"wait_bgsave", "wait_bgsave", "send_bulk", "online"}

type replState struct {
	// History is our IDs, offset, backlog and the stream's selected DB.
	replication.History
	replicas        []*replica
	noReplicasSince time.Time // for repl-backlog-ttl
	goodReplicas    int       // repl_good_slaves_count
	cronStarted     bool
	cronLoops       int64
	waiters         []replWaiter // clients blocked in WAIT
	getack          bool         // a REPLCONF GETACK is due (WAIT asked)
	// failover: FAILOVER in progress (failover.go)
	failover replication.Failover
	// rdbFor is the replicas' snapshot in progress: the BGSAVE job (disk)
	// or our own socket transfer (diskless).
	diskJob  *persist.Job
	diskless *disklessXfer

	link *replication.Link // replica side (replication_replica.go), nil on a master
	// master is the client the link's stream runs as, while it flows.
	master *client

	// wake defers the replica writers' wake-ups to the end of the network
	// loop's batch (replWakeLater).
	wake replWake
}

// replWake gathers the replicas fed while the network loop serves one
// epoll batch, so that each writer is woken once per batch and writes what
// the batch produced in one go, as Redis writes a replica's buffer once
// per event-loop iteration (beforeSleep). Woken per command instead, a
// master at 50 clients spent a fifth of its CPU in futex wake-ups and the
// scheduler, and its replica read the stream one command at a time.
type replWake struct {
	batching atomic.Bool // the loop is inside a batch
	queued   atomic.Bool // pending may be non-empty
	mu       sync.Mutex
	pending  []*replica // fed during the batch, to wake at its end (under mu)
}

// replica is one attached replica (Redis's client with CLIENT_SLAVE).
type replica struct {
	c              *client
	state          int
	listeningPort  int
	announcedIP    string
	capaEOF        bool
	capaPsync2     bool
	ackOff         int64
	ackTime        time.Time
	waitSince      time.Time // when it started waiting for a snapshot
	putOnlineOnAck bool      // diskless: online at its first ACK
	psyncInitial   int64     // the offset its full sync starts from
	oldProto       bool      // SYNC (no +FULLRESYNC line)
	excludeData    bool      // rdb-filter-only functions: the RDB without keys
	// start hands the writer what to send first (under mu, once).
	start chan replStart
	// writerDone is closed when the writer goroutine ends.
	writerDone chan struct{}
	// nudge asks the writer for a keep-alive newline while the replica
	// waits for its snapshot.
	nudge   chan struct{}
	started bool // start was handed its RDB source
	// online is closed when it goes online: after a socket transfer
	// nothing follows the RDB before its first ACK, or the replica could
	// not find the EOF mark at the end of a read.
	online    chan struct{}
	streaming bool   // online was closed
	hdrLine   []byte // the +FULLRESYNC line, until start takes it
	softSince time.Time
	// wakeQueued: it is in repl.wake.pending (under repl.wake.mu).
	wakeQueued bool
	// writerIdle: the writer waits for stream bytes, so the loop may write
	// them itself (replWriteNow); under c.pushMu, as are the raw* fields
	// the loop's write uses.
	writerIdle bool
	raw        syscall.RawConn
	rawWrite   func(fd uintptr) bool
	rawN       int
	rawErr     error
}

// replWaiter is a client blocked in WAIT.
type replWaiter struct {
	c   *client
	bs  *blockState
	num int64
	off int64
}

// replStart is what a replica's writer sends before the stream: the
// +FULLRESYNC line, then an RDB file (disk) or the shared socket
// transfer (diskless), or nothing more (+CONTINUE, whose backlog bytes
// are already queued).
type replStart struct {
	hdr  []byte
	file fsx.ReadFile
	size int64
	xfer *disklessXfer
	// timeout is repl-timeout, read under mu for the writer.
	timeout time.Duration
}

// ------------------------------------------------------------- settings

// replCfg reads a replication directive the typed configuration does not
// carry (they are stored as given and shown by CONFIG GET).
func (s *Server) replCfg(name string) string {
	if kv := s.cfg.Get(name); len(kv) > 0 {
		return kv[0][1]
	}
	return ""
}

func (s *Server) replCfgInt(name string) int64 {
	n, _ := strconv.ParseInt(s.replCfg(name), 10, 64)
	return n
}

func (s *Server) replCfgYes(name string) bool { return s.replCfg(name) == "yes" }

// replInit gives the server its replication ID (Redis sets one at start).
func (s *Server) replInit() { s.repl.Init() }

// shiftReplicationID is Redis's shiftReplicationId: the current history
// becomes ID2 (valid up to offset+1), and a new ID starts.
func (s *Server) shiftReplicationID() {
	s.repl.Shift()
	s.log.Info().Msgf("Setting secondary replication ID to %s, valid up to offset: %d. New replication ID is %s",
		s.repl.ID2, s.repl.SecondOffset, s.repl.ID)
}

func (s *Server) createBacklog() { s.repl.CreateBacklog(s.replCfgInt("repl-backlog-size")) }

// propagating reports whether propagated ops are collected: for the AOF,
// the backlog, or the tests.
func (s *Server) propagating() bool {
	return s.aof != nil || s.collectProp || s.repl.Backlog != nil
}

// ----------------------------------------------------------- the stream

// replFeedOps appends ops to the stream (Redis replicationFeedSlaves):
// a SELECT where the DB changes, the ops, MULTI/EXEC around them when
// wrap.
func (s *Server) replFeedOps(ops []aof.Op, wrap bool) {
	// A replica proxies its master's stream instead (Redis
	// replicationFeedSlaves returns when masterhost is set).
	if s.repl.Backlog == nil || s.repl.link != nil {
		return
	}
	s.replFeedBytes(s.repl.AppendOps(nil, ops, wrap))
	if s.curClient != nil {
		s.curClient.replWOff = s.repl.Offset
	}
}

// replFeedBytes adds encoded stream bytes to the backlog and to every
// replica past the snapshot instant.
func (s *Server) replFeedBytes(buf []byte) {
	if len(buf) == 0 || s.repl.Backlog == nil {
		return
	}
	s.repl.Append(buf)
	for _, r := range s.repl.replicas {
		if r.state != replWaitBgsaveStart {
			s.replPush(r, buf)
		}
	}
}

// replFeedCommand feeds one command of the master's own (PING, REPLCONF
// GETACK) in the currently selected DB.
func (s *Server) replFeedCommand(argv ...string) {
	args := make([][]byte, len(argv))
	for i, a := range argv {
		args[i] = []byte(a)
	}
	s.replFeedBytes(aof.AppendCommand(nil, args))
}

// replPush queues bytes for a replica, enforcing client-output-buffer-limit
// replica (Redis also counts what accumulates during the sync).
func (s *Server) replPush(r *replica, b []byte) {
	c := r.c
	c.pushMu.Lock()
	defer c.pushMu.Unlock()
	if c.closed {
		return
	}
	c.pushBuf = append(c.pushBuf, b...)
	lim := s.outputLimit(config.ClassReplica)
	n := int64(len(c.pushBuf))
	over := lim.Hard > 0 && n >= lim.Hard
	if lim.Soft > 0 && n >= lim.Soft {
		if r.softSince.IsZero() {
			r.softSince = time.Now()
		} else if time.Since(r.softSince) >= time.Duration(lim.SoftSeconds)*time.Second {
			over = true
		}
	} else {
		r.softSince = time.Time{}
	}
	if over {
		c.closed = true
		c.closeReason = "output buffer limit"
		c.pushBuf = nil
		s.log.Warn().Msgf("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", c.infoLineOmem(nil, n)) // infoLine takes pushMu
		c.conn.Close()
	}
	if over || !s.replWakeLater(r) {
		c.pushCond.Broadcast()
	}
}

// replWakeLater queues r's wake-up for the end of the loop's batch; false
// when no batch is running and the caller must wake the writer itself.
// batching is read again after queueing: a batch that ended meanwhile may
// have taken the queue before r joined it (r then stays queued for the
// next batch's end, which finds nothing new to write, or something).
func (s *Server) replWakeLater(r *replica) bool {
	w := &s.repl.wake
	if !w.batching.Load() {
		return false
	}
	w.mu.Lock()
	if !r.wakeQueued {
		r.wakeQueued = true
		w.pending = append(w.pending, r)
		w.queued.Store(true)
	}
	w.mu.Unlock()
	return w.batching.Load()
}

// replBatch marks the start (true) or the end (false) of a network-loop
// batch; its end wakes every replica writer fed during the batch.
func (s *Server) replBatch(on bool) {
	w := &s.repl.wake
	w.batching.Store(on)
	if on {
		return
	}
	if !w.queued.Load() {
		return
	}
	var buf [8]*replica
	w.mu.Lock()
	w.queued.Store(false)
	pending := append(buf[:0], w.pending...)
	for _, r := range w.pending {
		r.wakeQueued = false
	}
	clear(w.pending)
	w.pending = w.pending[:0]
	w.mu.Unlock()
	for _, r := range pending {
		s.replWriteNow(r)
	}
}

// replWriteNow sends r's queued stream from the network loop when its
// writer sits idle, with one non-blocking write (Redis's
// writeToClient from beforeSleep), and wakes the writer only for what the
// socket did not take: a goroutine hand-off per batch cost the master
// more CPU than the write itself.
func (s *Server) replWriteNow(r *replica) {
	c := r.c
	c.pushMu.Lock()
	defer c.pushMu.Unlock()
	if r.writerIdle && r.raw != nil && !c.closed && len(c.pushBuf) > 0 {
		r.rawN, r.rawErr = 0, nil
		if err := r.raw.Write(r.rawWrite); err == nil && r.rawErr == nil && r.rawN > 0 {
			s.stats.netReplOut.Add(int64(r.rawN))
			s.stats.totalWrites.Add(1)
			c.pushBuf = c.pushBuf[:copy(c.pushBuf, c.pushBuf[r.rawN:])]
			r.softSince = time.Time{}
		}
	}
	if len(c.pushBuf) > 0 || c.closed {
		c.pushCond.Broadcast()
	}
}

// ------------------------------------------------------------- commands

func init() {
	adm := cmdAdmin | cmdNoScript
	register(
		&command{name: "replconf", arity: -1, flags: adm | cmdLoading | cmdStale | cmdAllowBusy, proc: replconfCommand, group: "server", summary: "An internal command for configuring the replication stream", since: "3.0.0", acl: []string{"@admin", "@slow", "@dangerous"}},
		&command{name: "sync", arity: 1, flags: adm | cmdNoMulti, proc: syncCommand, group: "server", summary: "Internal command used for replication", since: "1.0.0", acl: []string{"@admin", "@slow", "@dangerous"}},
		&command{name: "psync", arity: -3, flags: adm | cmdNoMulti, proc: syncCommand, group: "server", summary: "Internal command used for replication", since: "2.8.0", acl: []string{"@admin", "@slow", "@dangerous"}},
	)
}

func (s *Server) replicaOf(c *client) *replica {
	if c.flags&flagReplica == 0 {
		return nil
	}
	return c.repl
}

// replconfCommand is Redis's replconfCommand.
func replconfCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv)%2 == 0 {
		c.errSyntax()
		return
	}
	// What this call sets, applied once every option is valid.
	var pend struct {
		listeningPort       int
		announcedIP         string
		capaEOF, capaPsync2 bool
		excludeData         bool
	}
	if r := c.repl; r != nil {
		pend.listeningPort, pend.announcedIP, pend.capaEOF, pend.capaPsync2 = r.listeningPort, r.announcedIP, r.capaEOF, r.capaPsync2
		pend.excludeData = r.excludeData
	}
	for i := 1; i < len(argv); i += 2 {
		opt, val := strings.ToLower(string(argv[i])), argv[i+1]
		switch opt {
		case "listening-port":
			n, ok := parseInt(val)
			if !ok {
				c.errNotInt()
				return
			}
			pend.listeningPort = int(n)
		case "ip-address":
			if len(val) >= 46 {
				c.err(fmt.Sprintf("ERR REPLCONF ip-address provided by replica instance is too long: %d bytes", len(val)))
				return
			}
			pend.announcedIP = string(val)
		case "capa":
			if eqFold(val, "eof") {
				pend.capaEOF = true
			} else if eqFold(val, "psync2") {
				pend.capaPsync2 = true
			}
		case "ack":
			// An ACK gets no reply, and only a replica sends it.
			r := s.replicaOf(c)
			if r == nil {
				return
			}
			if off, ok := parseInt(val); ok && off > r.ackOff {
				r.ackOff = off
			}
			r.ackTime = time.Now()
			if r.putOnlineOnAck {
				s.replPutOnline(r)
			}
			s.repl.failover.Update()
			s.replServeWaiters()
			return
		case "getack":
			if l := s.repl.link; l != nil && c.flags&flagMaster != 0 {
				l.SendAck(s.repl.Offset)
			}
			return
		case "rdb-only":
			if _, ok := parseInt(val); !ok {
				c.errNotInt()
				return
			}
		case "rdb-filter-only":
			// Redis 7.0: space-separated filters; "functions" leaves
			// the keys out (redis-cli --functions-rdb).
			pend.excludeData = false
			for _, f := range strings.Fields(string(val)) {
				if !strings.EqualFold(f, "functions") {
					c.err("ERR Unsupported rdb-filter-only option: " + f)
					return
				}
				pend.excludeData = true
			}
		default:
			c.err("ERR Unrecognized REPLCONF option: " + string(argv[i]))
			return
		}
	}
	if c.repl == nil {
		c.repl = &replica{c: c}
	}
	r := c.repl
	r.listeningPort, r.announcedIP, r.capaEOF, r.capaPsync2 = pend.listeningPort, pend.announcedIP, pend.capaEOF, pend.capaPsync2
	r.excludeData = pend.excludeData
	c.ok()
}

// replicaName is replicationGetSlaveName: ip:port with the listening port.
func (r *replica) name() string {
	ip := r.announcedIP
	if ip == "" {
		if h, _, err := net.SplitHostPort(r.c.addr); err == nil {
			ip = h
		}
	}
	if r.listeningPort != 0 {
		return net.JoinHostPort(ip, strconv.Itoa(r.listeningPort))
	}
	return fmt.Sprintf("%s:<unknown-replica-port>", ip)
}

// syncCommand is SYNC and PSYNC (Redis syncCommand).
func syncCommand(c *client, argv [][]byte) {
	s := c.srv
	if c.flags&flagReplica != 0 {
		return // already a replica: ignored
	}
	// A failover request to a replica with the same history: it becomes
	// a master, and the PSYNC continues that history (ID2).
	if len(argv) > 3 && eqFold(argv[0], "psync") && eqFold(argv[3], "failover") {
		if string(argv[1]) != s.repl.ID {
			c.err("ERR PSYNC FAILOVER replid must match my replid.")
			return
		}
		if s.repl.link != nil {
			s.replUnsetMaster()
		}
		s.log.Info().Msgf("MASTER MODE enabled (failover request from '%s')", c.infoLine())
	}
	if s.failoverPaused() {
		c.err("NOMASTERLINK Can't SYNC while failing over")
		return
	}
	if l := s.repl.link; l != nil && !l.Connected() {
		c.err("NOMASTERLINK Can't SYNC while not connected with my master")
		return
	}
	if len(c.out) > 0 {
		c.err("ERR SYNC and PSYNC are invalid with pending output")
		return
	}
	if !s.canBlock(c) {
		c.err("ERR Command not allowed inside a transaction")
		return
	}
	s.replInit()
	r := &replica{c: c}
	if c.repl != nil {
		r = c.repl // what REPLCONF said
	}
	r.start, r.writerDone, r.nudge, r.online = make(chan replStart, 1), make(chan struct{}), make(chan struct{}, 1), make(chan struct{})
	s.log.Info().Msgf("Replica %s asks for synchronization", r.name())
	psync := eqFold(argv[0], "psync")
	if psync {
		if s.tryPartialResync(c, r, argv) {
			s.stats.syncPartialOK++
			return
		}
		if len(argv[1]) == 0 || argv[1][0] != '?' {
			s.stats.syncPartialErr++
		}
	}
	if !psync {
		r.oldProto = true
	}
	s.attachReplica(r)
	if s.repl.Backlog == nil {
		// A new history: a new ID, no ID2 (Redis syncCommand).
		s.repl.NewID()
		s.createBacklog()
		s.log.Info().Msgf("Replication backlog created, my new replication IDs are '%s' and '%s'", s.repl.ID, s.repl.ID2)
	}
	s.stats.syncFull++
	s.replStartFullSync(r)
}

// attachReplica makes c a replica: it leaves the network loop for a
// goroutine of its own, whose writer sends what start hands it and then
// the stream.
func (s *Server) attachReplica(r *replica) {
	c := r.c
	c.flags |= flagReplica
	c.repl = r
	r.waitSince = time.Now()
	r.ackTime = time.Now()
	c.detachLocked()
	c.pushMu.Lock()
	c.pushWriter = true // replies (if any) queue behind the stream
	c.pushMu.Unlock()
	s.repl.replicas = append(s.repl.replicas, r)
	s.repl.noReplicasSince = time.Time{}
	s.replStartCron()
	go s.replicaWriter(r)
}

// tryPartialResync is masterTryPartialResynchronization.
func (s *Server) tryPartialResync(c *client, r *replica, argv [][]byte) bool {
	id := string(argv[1])
	off, ok := parseInt(argv[2])
	if !ok {
		return false
	}
	switch s.repl.CanContinue(id, off) {
	case replication.AskedFull:
		s.log.Info().Msgf("Full resync requested by replica %s", r.name())
		return false
	case replication.IDMismatch:
		s.log.Info().Msgf("Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '%s', my replication IDs are '%s' and '%s')", id, s.repl.ID, s.repl.ID2)
		return false
	case replication.SecondIDTooFar:
		s.log.Info().Msgf("Partial resynchronization not accepted: Requested offset for second ID was %d, but I can reply up to %d", off, s.repl.SecondOffset)
		return false
	case replication.NoBacklog:
		s.log.Info().Msgf("Unable to partial resync with replica %s for lack of backlog (Replica request was: %d).", r.name(), off)
		if s.repl.Backlog != nil && off > s.repl.Offset {
			s.log.Warn().Msgf("Warning: replica %s tried to PSYNC with an offset that is greater than the master replication offset.", r.name())
		}
		return false
	}
	b := s.repl.Backlog
	s.attachReplica(r)
	r.state = replOnline
	r.ackTime = time.Now()
	hdr := "+CONTINUE\r\n"
	if r.capaPsync2 {
		hdr = "+CONTINUE " + s.repl.ID + "\r\n"
	}
	data := b.From(off)
	c.pushMu.Lock()
	c.pushBuf = append(c.pushBuf, data...)
	c.pushMu.Unlock()
	r.started = true
	r.start <- replStart{hdr: []byte(hdr)}
	s.log.Info().Msgf("Partial resynchronization request from %s accepted. Sending %d bytes of backlog starting from offset %d.", r.name(), len(data), off)
	s.refreshGoodReplicas()
	return true
}

// replStartFullSync is the rest of syncCommand for a full sync: attach to
// a snapshot for replicas in progress, start one, or wait for the cron.
func (s *Server) replStartFullSync(r *replica) {
	r.state = replWaitBgsaveStart
	if s.repl.diskJob != nil && !s.repl.diskJob.Ended() {
		// A disk snapshot for replicas runs: share it, with the stream
		// the first of them accumulated since (Redis copies its buffer).
		for _, o := range s.repl.replicas {
			if o != r && o.state == replWaitBgsaveEnd && !o.started && o.capaEOF == r.capaEOF {
				o.c.pushMu.Lock()
				buf := append([]byte(nil), o.c.pushBuf...)
				o.c.pushMu.Unlock()
				r.c.pushMu.Lock()
				r.c.pushBuf = append(r.c.pushBuf, buf...)
				r.c.pushMu.Unlock()
				r.state = replWaitBgsaveEnd
				r.psyncInitial = o.psyncInitial
				r.pendingHdr(s)
				s.log.Info().Msg("Waiting for end of BGSAVE for SYNC")
				return
			}
		}
		s.log.Info().Msg("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC")
		return
	}
	if s.repl.diskless != nil {
		s.log.Info().Msg("Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC")
		return
	}
	if s.replCfgYes("repl-diskless-sync") && r.capaEOF && s.replCfgInt("repl-diskless-sync-delay") > 0 {
		s.log.Info().Msg("Delay next BGSAVE for diskless SYNC")
		return
	}
	if s.childActive() {
		s.log.Info().Msg("No BGSAVE in progress, but another BG operation is active. BGSAVE for replication delayed")
		return
	}
	s.startBgsaveForReplication()
}

// pendingHdr remembers the +FULLRESYNC line the writer sends first.
func (r *replica) pendingHdr(s *Server) {
	if r.oldProto {
		r.hdrLine = nil
		return
	}
	r.hdrLine = []byte(fmt.Sprintf("+FULLRESYNC %s %d\r\n", s.repl.ID, r.psyncInitial))
}

// startBgsaveForReplication snapshots the dataset for every replica
// waiting for one: to the replicas' sockets when they all take the EOF
// form and repl-diskless-sync is on, else through BGSAVE's dump.rdb.
func (s *Server) startBgsaveForReplication() {
	var waiting []*replica
	allEOF := true
	for _, r := range s.repl.replicas {
		if r.state == replWaitBgsaveStart {
			waiting = append(waiting, r)
			allEOF = allEOF && r.capaEOF
		}
	}
	if len(waiting) == 0 {
		return
	}
	socket := s.replCfgYes("repl-diskless-sync") && allEOF
	target := "disk"
	if socket {
		target = "replicas sockets"
	}
	s.log.Info().Msgf("Starting BGSAVE for SYNC with target: %s", target)
	// The snapshot's instant: the stream from here on follows the RDB,
	// and begins with a SELECT (Redis replicationSetupSlaveForFullResync).
	for _, r := range waiting {
		r.psyncInitial = s.repl.Offset
		r.state = replWaitBgsaveEnd
		r.pendingHdr(s)
	}
	s.repl.SelDB = -1
	if socket {
		s.startDisklessXfer(waiting)
		return
	}
	j, err := s.persist.BGSAVE()
	if err != nil {
		s.log.Warn().Msg("BGSAVE for replication failed")
		for _, r := range waiting {
			s.dropReplica(r, "BGSAVE for replication failed")
		}
		return
	}
	s.repl.diskJob = j
	done := j.Done
	j.Done = func(o persist.Outcome) {
		done(o)
		if s.repl.diskJob == j {
			s.repl.diskJob = nil
		}
		s.replDiskSnapshotDone(o.OK())
	}
}

// replDiskSnapshotDone is updateSlavesWaitingBgsave for a disk target:
// dump.rdb (just installed) goes to every replica waiting for it.
func (s *Server) replDiskSnapshotDone(ok bool) {
	for _, r := range append([]*replica(nil), s.repl.replicas...) {
		if r.state != replWaitBgsaveEnd || r.started {
			continue
		}
		if !ok {
			s.log.Warn().Msg("SYNC failed. BGSAVE child returned an error")
			s.dropReplica(r, "SYNC failed. BGSAVE child returned an error")
			continue
		}
		f, err := s.fsys().Open(s.dumpPath())
		var size int64
		if err == nil {
			size, err = f.Size()
		}
		if err != nil {
			s.log.Warn().Msgf("SYNC failed. Can't open/stat DB after BGSAVE: %s", errnoText(err))
			if f != nil {
				f.Close()
			}
			s.dropReplica(r, "can't open the RDB")
			continue
		}
		r.state = replSendBulk
		r.started = true
		r.start <- replStart{hdr: r.hdrLine, file: f, size: size, timeout: s.replTimeout()}
		r.hdrLine = nil
	}
	s.replStartPending()
}

// disklessXfer is one RDB streamed to replicas' sockets.
type disklessXfer struct {
	sn       *snapshot
	mark     string
	replicas []*replica
	ready    sync.WaitGroup // each writer sent its +FULLRESYNC
	done     chan struct{}
	mu       sync.Mutex
	failed   map[*replica]bool // replicas whose socket failed (under mu)
	timeout  time.Duration     // repl-timeout: the longest a write may block
}

func (x *disklessXfer) fail(r *replica) {
	x.mu.Lock()
	x.failed[r] = true
	x.mu.Unlock()
}

func (x *disklessXfer) isFailed(r *replica) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.failed[r]
}

// startDisklessXfer is rdbSaveToSlavesSockets, without a child: our
// snapshot's feeder writes the RDB to the sockets.
func (s *Server) startDisklessXfer(rs []*replica) {
	var sn *snapshot
	if functionsOnly(rs) {
		sn = s.functionsOnlySnapshot()
	} else {
		sn = s.startSnapshot(false)
	}
	x := &disklessXfer{sn: sn, mark: replication.RandomID(), replicas: rs, done: make(chan struct{}), failed: map[*replica]bool{}, timeout: s.replTimeout()}
	s.repl.diskless = x
	x.ready.Add(len(rs))
	for _, r := range rs {
		r.started = true
		r.start <- replStart{hdr: r.hdrLine, xfer: x}
		r.hdrLine = nil
	}
	if !sn.walkDone {
		go s.runWalker(sn)
	}
	go s.feedDiskless(x)
}

func functionsOnly(rs []*replica) bool {
	for _, r := range rs {
		if !r.excludeData {
			return false
		}
	}
	return len(rs) > 0
}

// functionsOnlySnapshot is the RDB replicas that asked for
// rdb-filter-only functions get (SLAVE_REQ_RDB_EXCLUDE_DATA): the function
// libraries and no keys, built at once (it is small), with no walk and
// no mark bits touched.
func (s *Server) functionsOnlySnapshot() *snapshot {
	sn := &snapshot{s: s, out: persist.NewPipe(), curDB: -1, walkDone: true}
	enc := rdb.NewEncoder(&sn.stage, rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Checksum: s.cfg.RDBChecksum, Limits: s.rdbLimits()})
	enc.Header(rdb.StandardAux(time.Now().Unix(), s.usedMemory(), false))
	s.scripts().WriteFunctions(enc)
	if err := enc.Close(); err != nil {
		sn.err = err
	}
	sn.out.Put(sn.stage.Take(persist.Batch{}))
	sn.out.Close()
	return sn
}

// feedDiskless streams the snapshot to the replicas, then lets each
// writer go on with the stream.
func (s *Server) feedDiskless(x *disklessXfer) {
	x.ready.Wait()
	w := &teeWriter{s: s, x: x}
	w.Write([]byte("$EOF:" + x.mark + "\r\n"))
	err := x.sn.out.Feed(w)
	if err == nil {
		err = x.sn.out.Err()
	}
	if err == nil {
		w.Write([]byte(x.mark))
	}
	if err != nil {
		x.sn.out.Fail(err)
	}
	s.mu.Lock()
	if err == nil {
		err = x.sn.err // the walk's own (an encoding limit)
	}
	if s.repl.diskless == x {
		s.repl.diskless = nil
	}
	if err != nil {
		s.log.Warn().Msgf("Diskless rdb transfer failed: %v", err)
	}
	for _, r := range x.replicas {
		if err != nil || x.isFailed(r) {
			s.dropReplica(r, "diskless transfer failed")
			continue
		}
		// Online at once (INFO, WAIT), streaming from its first ACK.
		s.log.Info().Msgf("Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK from slave to enable streaming", r.name())
		r.putOnlineOnAck = true
		r.state = replOnline
		r.ackTime = time.Now()
		s.log.Info().Msgf("Synchronization with replica %s succeeded", r.name())
		s.refreshGoodReplicas()
	}
	close(x.done)
	s.replStartPending()
	s.mu.Unlock()
}

// teeWriter writes the RDB to every replica of a transfer whose socket
// still works; it fails only when none does.
type teeWriter struct {
	s *Server
	x *disklessXfer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	alive := 0
	for _, r := range w.x.replicas {
		if w.x.isFailed(r) {
			continue
		}
		// A replica that stops reading holds the others' transfer for
		// repl-timeout at most (Redis's "Disconnecting timedout replica
		// (full sync)").
		r.c.conn.SetWriteDeadline(time.Now().Add(w.x.timeout))
		_, err := r.c.conn.Write(p)
		r.c.conn.SetWriteDeadline(time.Time{})
		if err != nil {
			if isTimeout(err) {
				w.s.log.Warn().Msgf("Disconnecting timedout replica (full sync): %s", r.name())
			}
			w.x.fail(r)
			r.c.conn.Close()
			continue
		}
		alive++
	}
	w.s.stats.netReplOut.Add(int64(len(p) * alive))
	if alive == 0 {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

// replicaWriter owns writes to a replica's socket: what start hands it,
// then the stream (pushBuf). When the connection ends it detaches the
// replica.
func (s *Server) replicaWriter(r *replica) {
	c := r.c
	defer close(r.writerDone)
	defer s.replicaGone(r)
	var st replStart
	closed := s.replClosed(c)
wait:
	for {
		select {
		case st = <-r.start:
			break wait
		case <-r.nudge:
			c.conn.Write([]byte("\n"))
		case <-closed:
			// Whatever start was handed must still be released.
			select {
			case st = <-r.start:
				if st.xfer != nil {
					st.xfer.fail(r)
					st.xfer.ready.Done()
				}
				closeFile(st.file)
			default:
			}
			return
		}
	}
	if len(st.hdr) > 0 {
		if _, err := c.conn.Write(st.hdr); err != nil {
			if st.xfer != nil {
				st.xfer.fail(r)
				st.xfer.ready.Done()
			}
			closeFile(st.file)
			return
		}
	}
	switch {
	case st.file != nil:
		err := s.sendRDBFile(r, st.file, st.size, st.timeout)
		st.file.Close()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.replPutOnline(r)
		s.log.Info().Msgf("Synchronization with replica %s succeeded", r.name())
		s.mu.Unlock()
	case st.xfer != nil:
		st.xfer.ready.Done()
		<-st.xfer.done
		if st.xfer.isFailed(r) {
			return
		}
		select {
		case <-r.online:
		case <-closed:
			return
		}
	}
	var buf []byte
	if sc, ok := c.conn.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			r.raw = rc
			r.rawWrite = func(fd uintptr) bool {
				r.rawN, r.rawErr = unix.Write(int(fd), c.pushBuf)
				return true // one attempt, never parked
			}
		}
	}
	for {
		c.pushMu.Lock()
		for len(c.pushBuf) == 0 && !c.closed {
			r.writerIdle = true
			c.pushCond.Wait()
			r.writerIdle = false
		}
		if c.closed {
			c.pushMu.Unlock()
			return
		}
		buf, c.pushBuf = c.pushBuf, buf[:0]
		r.softSince = time.Time{}
		c.pushMu.Unlock()
		if _, err := c.conn.Write(buf); err != nil {
			return
		}
		s.stats.netReplOut.Add(int64(len(buf)))
		s.stats.totalWrites.Add(1) // writeToClient counts a replica's writes
		if cap(buf) > 1<<20 {
			buf = nil
		}
	}
}

func closeFile(f fsx.ReadFile) {
	if f != nil {
		f.Close()
	}
}

// replClosed is closed once c's connection is done (its push side closed).
func (s *Server) replClosed(c *client) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		c.pushMu.Lock()
		for !c.closed {
			c.pushCond.Wait()
		}
		c.pushMu.Unlock()
		close(ch)
	}()
	return ch
}

// sendRDBFile sends dump.rdb as a bulk; a replica that reads nothing for
// repl-timeout is dropped (sendBulkToSlave's write would wait no longer).
func (s *Server) sendRDBFile(r *replica, f io.Reader, size int64, timeout time.Duration) error {
	c := r.c
	defer c.conn.SetWriteDeadline(time.Time{})
	w := replication.DeadlineWriter{Conn: c.conn, Timeout: timeout}
	if _, err := w.Write([]byte("$" + strconv.FormatInt(size, 10) + "\r\n")); err != nil {
		return err
	}
	n, err := io.Copy(w, f)
	if isTimeout(err) {
		s.log.Warn().Msgf("Disconnecting timedout replica (full sync): %s", r.name())
	}
	s.stats.netReplOut.Add(n)
	if err == nil && n != size {
		err = fmt.Errorf("RDB changed while sent: %d of %d bytes", n, size)
	}
	return err
}

// replTimeout is repl-timeout as a duration (under mu).
func (s *Server) replTimeout() time.Duration {
	if t := s.replCfgInt("repl-timeout"); t > 0 {
		return time.Duration(t) * time.Second
	}
	return 60 * time.Second
}

// replPutOnline is putSlaveOnline.
func (s *Server) replPutOnline(r *replica) {
	if !r.streaming {
		r.streaming = true
		close(r.online)
	}
	r.state = replOnline
	r.putOnlineOnAck = false
	r.ackTime = time.Now()
	s.refreshGoodReplicas()
}

// dropReplica closes a replica's connection (its writer then detaches it).
func (s *Server) dropReplica(r *replica, why string) {
	c := r.c
	c.pushMu.Lock()
	if !c.closed {
		c.closed = true
		c.closeReason = why
		c.pushCond.Broadcast()
	}
	c.pushMu.Unlock()
	c.conn.Close()
}

// replicaGone removes a replica whose connection ended.
func (s *Server) replicaGone(r *replica) {
	r.c.conn.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.repl.replicas {
		if o == r {
			s.repl.replicas = append(s.repl.replicas[:i], s.repl.replicas[i+1:]...)
			break
		}
	}
	// Redis's freeClient logs it for a replica in any state.
	s.log.Warn().Msgf("Connection with replica %s lost.", r.name())
	if len(s.repl.replicas) == 0 {
		s.repl.noReplicasSince = time.Now()
	}
	s.refreshGoodReplicas()
	// A diskless transfer with no replica left stops.
	if x := s.repl.diskless; x != nil {
		left := 0
		for _, o := range x.replicas {
			if o != r && !x.isFailed(o) && s.replicaOf(o.c) != nil {
				left++
			}
		}
		if left == 0 {
			x.sn.out.Fail(persist.ErrSnapshotAborted)
		}
	}
}

// replStartPending is replicationStartPendingFork: replicas waiting for a
// snapshot get one when no job runs and the diskless delay passed (or
// enough replicas wait).
func (s *Server) replStartPending() {
	if s.childActive() || s.repl.diskless != nil || s.repl.diskJob != nil {
		return
	}
	n := 0
	var maxIdle time.Duration
	for _, r := range s.repl.replicas {
		if r.state == replWaitBgsaveStart {
			n++
			if d := time.Since(r.waitSince); d > maxIdle {
				maxIdle = d
			}
		}
	}
	if n == 0 {
		return
	}
	delay := time.Duration(s.replCfgInt("repl-diskless-sync-delay")) * time.Second
	maxReplicas := s.replCfgInt("repl-diskless-sync-max-replicas")
	if maxIdle >= delay || (maxReplicas > 0 && int64(n) >= maxReplicas) {
		s.startBgsaveForReplication()
	}
}

// refreshGoodReplicas is refreshGoodSlavesCount.
func (s *Server) refreshGoodReplicas() {
	lagMax := time.Duration(s.cfg.MinReplicasMaxLag) * time.Second
	n := 0
	for _, r := range s.repl.replicas {
		if r.state == replOnline && time.Since(r.ackTime) <= lagMax {
			n++
		}
	}
	s.repl.goodReplicas = n
}

// replWriteRefusal is checkGoodReplicasStatus: NOREPLICAS when
// min-replicas-to-write asks for more good replicas than there are.
func (s *Server) replWriteRefusal() bool {
	return s.repl.link == nil && s.cfg.MinReplicasToWrite > 0 && s.cfg.MinReplicasMaxLag > 0 &&
		s.repl.goodReplicas < s.cfg.MinReplicasToWrite
}

// --------------------------------------------------------------- cron

// replStartCron starts replicationCron once.
func (s *Server) replStartCron() {
	if s.repl.cronStarted {
		return
	}
	s.repl.cronStarted = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		ticks := 0
		for {
			select {
			case <-s.closing:
				return
			case <-t.C:
			}
			ticks++
			s.mu.Lock()
			s.replStartPending()
			if ticks%10 == 0 {
				s.replicationCron()
			}
			s.mu.Unlock()
		}
	}()
}

// replicationCron runs once a second.
func (s *Server) replicationCron() {
	s.repl.cronLoops++
	if l := s.repl.link; l != nil {
		l.SendAck(s.repl.Offset) // the replica's part: an ACK a second
	}
	period := s.replCfgInt("repl-ping-replica-period")
	if period <= 0 {
		period = 10
	}
	if len(s.repl.replicas) > 0 && s.repl.cronLoops%period == 0 && s.repl.link == nil && !s.failoverPaused() {
		s.replFeedCommand("PING")
	}
	// Replicas waiting for their snapshot get a newline every second so
	// that their read timeout does not fire (not during a socket
	// transfer, whose bytes are the RDB's).
	for _, r := range s.repl.replicas {
		if !r.started && (r.state == replWaitBgsaveStart || r.state == replWaitBgsaveEnd) {
			select {
			case r.nudge <- struct{}{}:
			default:
			}
		}
	}
	timeout := time.Duration(s.replCfgInt("repl-timeout")) * time.Second
	for _, r := range append([]*replica(nil), s.repl.replicas...) {
		if r.state == replOnline && timeout > 0 && time.Since(r.ackTime) > timeout {
			s.log.Warn().Msgf("Disconnecting timedout replica (streaming sync): %s", r.name())
			s.dropReplica(r, "timeout")
		}
	}
	if len(s.repl.replicas) == 0 && s.repl.Backlog != nil && s.repl.link == nil && !s.repl.noReplicasSince.IsZero() {
		ttl := s.replCfgInt("repl-backlog-ttl")
		if ttl > 0 && time.Since(s.repl.noReplicasSince) > time.Duration(ttl)*time.Second {
			// A new ID: a replica of the old history cannot continue.
			s.repl.NewID()
			s.repl.Backlog = nil
			s.log.Info().Msgf("Replication backlog freed after %d seconds without connected replicas.", ttl)
		}
	}
	if b := s.repl.Backlog; b != nil {
		if size := int(s.replCfgInt("repl-backlog-size")); size > 0 {
			b.Resize(size)
		}
	}
	s.refreshGoodReplicas()
}

// ------------------------------------------------------------------ WAIT

// replCountAcks is replicationCountAcksByOffset.
func (s *Server) replCountAcks(off int64) int {
	n := 0
	for _, r := range s.repl.replicas {
		if r.state == replOnline && r.ackOff >= off {
			n++
		}
	}
	return n
}

// replServeWaiters answers WAITs that have their acks (Redis
// processClientsWaitingReplicas), and keeps the others' timeout reply at
// the current count.
func (s *Server) replServeWaiters() {
	keep := s.repl.waiters[:0]
	for _, w := range s.repl.waiters {
		c := w.c
		if c.block != w.bs {
			continue // timed out or gone
		}
		n := s.replCountAcks(w.off)
		if int64(n) >= w.num {
			c.integer(int64(n))
			s.unblockReplied(c, false, 0)
			continue
		}
		w.bs.timeoutReply = ":" + strconv.Itoa(n) + "\r\n"
		keep = append(keep, w)
	}
	s.repl.waiters = keep
}

// replRequestAcks sends REPLCONF GETACK to the replicas once the current
// executor turn ends (Redis does it in beforeSleep).
func (s *Server) replRequestAcks() {
	if s.repl.getack {
		return
	}
	s.repl.getack = true
	go func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.repl.getack {
			s.repl.getack = false
			if len(s.repl.replicas) > 0 {
				s.replFeedCommand("REPLCONF", "GETACK", "*")
			}
		}
	}()
}

// ------------------------------------------------------------------ INFO

// infoReplication writes INFO's replication section (Redis 7.0 genRedisInfoString).
func (s *Server) infoReplication(f func(k string, v any)) {
	s.replInit()
	if l := s.repl.link; l != nil {
		f("role", "slave")
		l.Info(s.repl.Offset, f)
		f("slave_priority", s.replCfgInt("replica-priority"))
		f("slave_read_only", b2i(s.replCfgYes("replica-read-only")))
		f("replica_announced", b2i(s.replCfgYes("replica-announced")))
	} else {
		f("role", "master")
	}
	f("connected_slaves", len(s.repl.replicas))
	if s.repl.link == nil && s.cfg.MinReplicasToWrite > 0 && s.cfg.MinReplicasMaxLag > 0 {
		f("min_slaves_good_slaves", s.repl.goodReplicas)
	}
	for i, r := range s.repl.replicas {
		ip := r.announcedIP
		if ip == "" {
			ip, _, _ = net.SplitHostPort(r.c.addr)
		}
		lag := int64(time.Since(r.ackTime).Seconds())
		f("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d", ip, r.listeningPort, replStateNames[r.state], r.ackOff, lag))
	}
	f("master_failover_state", s.repl.failover.StateName())
	f("master_replid", s.repl.ID)
	f("master_replid2", s.repl.ID2)
	f("master_repl_offset", s.repl.Offset)
	f("second_repl_offset", s.repl.SecondOffset)
	b := s.repl.Backlog
	if b == nil {
		f("repl_backlog_active", 0)
		f("repl_backlog_size", s.replCfgInt("repl-backlog-size"))
		f("repl_backlog_first_byte_offset", 0)
		f("repl_backlog_histlen", 0)
		return
	}
	f("repl_backlog_active", 1)
	f("repl_backlog_size", b.Size())
	f("repl_backlog_first_byte_offset", b.FirstOffset())
	f("repl_backlog_histlen", b.HistLen())
}

// hasType is CLIENT LIST/KILL TYPE's test (Redis getClientType).
func (c *client) hasType(typ string) bool {
	switch {
	case c.flags&flagMaster != 0:
		return typ == "master"
	case c.flags&flagReplica != 0:
		return typ == "replica" || typ == "slave"
	case c.flags&flagPubSub != 0:
		return typ == "pubsub"
	}
	return typ == "normal"
}

// roleReply is ROLE.
func (s *Server) roleReply(c *client) {
	s.replInit()
	if l := s.repl.link; l != nil {
		c.arrayLen(5)
		c.bulkString("slave")
		c.bulkString(l.Host())
		c.integer(int64(l.Port()))
		c.bulkString(l.StateName())
		if l.Connected() {
			c.integer(s.repl.Offset)
		} else {
			c.integer(-1)
		}
		return
	}
	c.arrayLen(3)
	c.bulkString("master")
	c.integer(s.repl.Offset)
	var online []*replica
	for _, r := range s.repl.replicas {
		if r.state == replOnline {
			online = append(online, r)
		}
	}
	c.arrayLen(len(online))
	for _, r := range online {
		ip := r.announcedIP
		if ip == "" {
			ip, _, _ = net.SplitHostPort(r.c.addr)
		}
		c.arrayLen(3)
		c.bulkString(ip)
		c.bulkString(strconv.Itoa(r.listeningPort))
		c.bulkString(strconv.FormatInt(r.ackOff, 10))
	}
}
