package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/rdb"
)

// Replication, replica side (Redis's replicaofCommand, syncWithMaster,
// readSyncBulkPayload, replicationCron): a goroutine per link connects,
// handshakes, receives the RDB to a temp file (disk or EOF form), loads it
// under the executor, then applies the stream as the master client. The
// stream is proxied byte for byte to our own backlog and replicas, and
// what it executes reaches our AOF as any command's effects.

// Link states, with ROLE's and INFO's names.
const (
	linkConnect    = iota // to connect
	linkConnecting        // TCP connect or handshake
	linkTransfer          // receiving the RDB
	linkConnected
)

type masterLink struct {
	host  string
	port  int
	state int
	stop  chan struct{}

	wmu  sync.Mutex // writes to conn (ACKs)
	conn net.Conn
	mc   *client // the master client, while connected

	lastIO         time.Time // last data from the master
	downSince      time.Time
	syncStart      time.Time
	transferSize   atomic.Int64 // -1: EOF form (written off the executor)
	transferRead   atomic.Int64
	readOff        int64 // slave_read_repl_offset
	psyncPossible  bool  // our replid/offset name a history the master may continue
	syncInProgress bool
}

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
	if l := s.repl.link; l != nil && strings.EqualFold(l.host, host) && l.port == int(port) {
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
		l.close()
	}
	// Our own history becomes what we ask the new master to continue
	// (replicationCacheMasterUsingMyself).
	l := &masterLink{host: host, port: port, state: linkConnect, stop: make(chan struct{}), downSince: time.Now(), psyncPossible: true}
	if !wasMaster {
		l.psyncPossible = s.repl.backlog != nil
	} else if !cacheMyself {
		l.psyncPossible = false
	}
	s.repl.link = l
	s.cfg.SetReplicaOf(host, port) // CONFIG GET replicaof, CONFIG REWRITE
	// Replicas of ours resync with the new history.
	for _, r := range s.repl.replicas {
		s.dropReplica(r, "master changed")
	}
	s.log.Info().Msgf("Connecting to MASTER %s:%d", host, port)
	s.replStartCron()
	s.wg.Add(1)
	go s.runLink(l)
}

// replUnsetMaster is replicationUnsetMaster: a new history starts here,
// continuing the master's (ID2).
func (s *Server) replUnsetMaster() {
	l := s.repl.link
	l.close()
	s.repl.link = nil
	s.cfg.SetReplicaOf("", 0)
	s.shiftReplicationID()
	if s.repl.backlog == nil {
		s.createBacklog()
	}
	for _, r := range s.repl.replicas {
		s.dropReplica(r, "master mode")
	}
	s.repl.selDB = -1
	s.refreshGoodReplicas()
}

func (l *masterLink) close() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wmu.Lock()
	if l.conn != nil {
		l.conn.Close()
	}
	l.wmu.Unlock()
}

func (l *masterLink) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// runLink connects, syncs and streams until the link is replaced; after a
// failure it tries again a second later (Redis's replicationCron), at once
// after a failed transfer or load of the master's RDB.
func (s *Server) runLink(l *masterLink) {
	defer s.wg.Done()
	for !l.stopped() {
		err := s.linkOnce(l)
		s.mu.Lock()
		if s.repl.link == l {
			if l.state == linkConnected {
				s.log.Warn().Msg("Connection with master lost.")
				s.log.Info().Msg("Caching the disconnected master state.")
				l.psyncPossible = true
			} else if err != nil && !l.stopped() {
				s.log.Warn().Msgf("%v", err)
			}
			l.detachMasterClient(s)
			l.state = linkConnect
			l.downSince = time.Now()
			l.syncInProgress = false
		}
		s.mu.Unlock()
		if pe := (*syncPayloadError)(nil); errors.As(err, &pe) && !l.stopped() {
			// readSyncBulkPayload's cancelReplicationHandshake(1)
			s.log.Info().Msgf("Reconnecting to MASTER %s:%d after failure", l.host, l.port)
			continue
		}
		select {
		case <-l.stop:
			return
		case <-s.closing:
			return
		case <-time.After(time.Second):
		}
		// replicationCron's next try
		s.log.Info().Msgf("Connecting to MASTER %s:%d", l.host, l.port)
	}
}

func (l *masterLink) detachMasterClient(s *Server) {
	if mc := l.mc; mc != nil {
		delete(s.clients, mc.id)
		s.freeClient(mc)
		l.mc = nil
	}
}

// linkOnce is one connection to the master: handshake, sync, stream.
func (s *Server) linkOnce(l *masterLink) error {
	s.mu.Lock()
	l.state = linkConnecting
	s.mu.Unlock()
	s.log.Info().Msg("MASTER <-> REPLICA sync started")
	nc, err := net.DialTimeout("tcp", net.JoinHostPort(l.host, strconv.Itoa(l.port)), 10*time.Second)
	if err != nil {
		return fmt.Errorf("Error condition on socket for SYNC: %s", errnoText(err))
	}
	nc = &replInConn{Conn: nc, n: &s.stats.netReplIn, reads: &s.stats.totalReads}
	l.wmu.Lock()
	l.conn = nc
	l.wmu.Unlock()
	defer nc.Close()
	if l.stopped() {
		return nil
	}
	s.log.Info().Msg("Non blocking connect for SYNC fired the event.")
	s.mu.Lock()
	timeout := s.replTimeout()
	auth, user := s.replCfg("masterauth"), s.replCfg("masteruser")
	myPort := s.listenPort()
	announcePort, announceIP := s.replCfgInt("replica-announce-port"), s.replCfg("replica-announce-ip")
	s.mu.Unlock()
	if announcePort != 0 {
		myPort = int(announcePort)
	}
	br := bufio.NewReaderSize(nc, 64<<10)
	ask := func(args ...string) (string, error) {
		nc.SetDeadline(time.Now().Add(timeout))
		if _, err := nc.Write(appendArgs(nil, args...)); err != nil {
			return "", err
		}
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return "", err
			}
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				return line, nil // empty lines are the master's keep-alives
			}
		}
	}
	r, err := ask("PING")
	if err != nil {
		return fmt.Errorf("Error reply to PING from master: '%v'", err)
	}
	if strings.HasPrefix(r, "-") && !strings.HasPrefix(r, "-NOAUTH") && !strings.HasPrefix(r, "-NOPERM") && !strings.HasPrefix(r, "-ERR operation not permitted") {
		return fmt.Errorf("Error reply to PING from master: '%s'", r[1:])
	}
	s.log.Info().Msg("Master replied to PING, replication can continue...")
	if auth != "" {
		args := []string{"AUTH", auth}
		if user != "" {
			args = []string{"AUTH", user, auth}
		}
		if r, err = ask(args...); err != nil || strings.HasPrefix(r, "-") {
			return fmt.Errorf("Unable to AUTH to MASTER: %s%v", strings.TrimPrefix(r, "-"), errOrEmpty(err))
		}
	}
	if r, err = ask("REPLCONF", "listening-port", strconv.Itoa(myPort)); err != nil {
		return err
	} else if strings.HasPrefix(r, "-") {
		s.log.Info().Msgf("(Non critical) Master does not understand REPLCONF listening-port: %s", r[1:])
	}
	if announceIP != "" {
		if r, err = ask("REPLCONF", "ip-address", announceIP); err != nil {
			return err
		}
	}
	if r, err = ask("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	} else if strings.HasPrefix(r, "-") {
		s.log.Info().Msgf("(Non critical) Master does not understand REPLCONF capa: %s", r[1:])
	}
	// PSYNC: continue our history, or ask for a full sync.
	s.mu.Lock()
	psyncID, psyncOff := "?", int64(-1)
	if l.psyncPossible && s.repl.replid != "" {
		psyncID, psyncOff = s.repl.replid, s.repl.offset+1
		s.log.Info().Msgf("Trying a partial resynchronization (request %s:%d).", psyncID, psyncOff)
	} else {
		s.log.Info().Msg("Partial resynchronization not possible (no cached master)")
	}
	psyncArgs := append([]string{"PSYNC", psyncID, strconv.FormatInt(psyncOff, 10)}, s.psyncFailoverArg()...)
	s.mu.Unlock()
	if r, err = ask(psyncArgs...); err != nil {
		return fmt.Errorf("Master did not reply to PSYNC: %v", err)
	}
	s.mu.Lock()
	goOn := s.failoverPsyncDone(r)
	s.mu.Unlock()
	if !goOn {
		return nil // the failover was aborted: master again
	}
	switch {
	case strings.HasPrefix(r, "+FULLRESYNC"):
		f := strings.Fields(r)
		if len(f) < 3 {
			return fmt.Errorf("Master replied with wrong +FULLRESYNC syntax.")
		}
		off, _ := strconv.ParseInt(f[2], 10, 64)
		s.log.Info().Msgf("Full resync from master: %s:%d", f[1], off)
		if err := s.fullSyncFromMaster(l, nc, br, f[1], off, timeout); err != nil {
			return &syncPayloadError{err}
		}
	case strings.HasPrefix(r, "+CONTINUE"):
		s.mu.Lock()
		if f := strings.Fields(r); len(f) > 1 && f[1] != s.repl.replid {
			// The master changed history: ours continues as ID2.
			s.repl.replid2 = s.repl.replid
			s.repl.secondOffset = s.repl.offset + 1
			s.repl.replid = f[1]
			s.log.Info().Msgf("Master replication ID changed to %s", f[1])
			for _, rr := range s.repl.replicas {
				s.dropReplica(rr, "master replication ID changed")
			}
		}
		if s.repl.backlog == nil {
			s.createBacklog()
		}
		s.log.Info().Msg("Successful partial resynchronization with master.")
		s.log.Info().Msg("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.")
		l.readOff = s.repl.offset
		s.mu.Unlock()
	case strings.HasPrefix(r, "-NOMASTERLINK"), strings.HasPrefix(r, "-LOADING"):
		return fmt.Errorf("Master is currently unable to PSYNC but should be in the future: %s", r[1:])
	default:
		return fmt.Errorf("Unexpected reply to PSYNC from master: %s", r)
	}
	return s.streamFromMaster(l, nc, br, timeout)
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func appendArgs(b []byte, args ...string) []byte {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	return aof.AppendCommand(b, argv)
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

// fullSyncFromMaster receives the RDB into a temp file, then loads it
// (Redis readSyncBulkPayload with repl-diskless-load disabled).
func (s *Server) fullSyncFromMaster(l *masterLink, nc net.Conn, br *bufio.Reader, replid string, off int64, timeout time.Duration) error {
	s.mu.Lock()
	l.state = linkTransfer
	l.syncInProgress = true
	l.syncStart = time.Now()
	l.transferRead.Store(0)
	s.mu.Unlock()
	var hdr string
	for {
		nc.SetReadDeadline(time.Now().Add(timeout))
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("I/O error reading bulk count from MASTER: %v", err)
		}
		if hdr = strings.TrimRight(line, "\r\n"); hdr != "" {
			break // empty lines: keep-alives while the master prepares the RDB
		}
	}
	if strings.HasPrefix(hdr, "-") {
		return fmt.Errorf("MASTER aborted replication with an error: %s", hdr[1:])
	}
	if !strings.HasPrefix(hdr, "$") {
		return fmt.Errorf("Bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", hdr)
	}
	tmp := filepath.Join(s.cfg.Dir, fmt.Sprintf("temp-%d.%d.rdb", time.Now().Unix(), os.Getpid()))
	fsys := s.fsys()
	w, err := fsys.Create(tmp)
	if err != nil {
		return fmt.Errorf("Opening the temp file needed for MASTER <-> REPLICA synchronization: %v", err)
	}
	// A transfer that fails leaves the temp file: its removal is cleanup,
	// not a durability step (once complete it is renamed to dump.rdb).
	defer fsys.Remove(tmp)
	wClosed := false
	defer func() {
		if !wClosed {
			w.Close()
		}
	}()
	if mark, ok := strings.CutPrefix(hdr, "$EOF:"); ok {
		if len(mark) != 40 {
			return fmt.Errorf("Bad EOF mark from MASTER: %q", mark)
		}
		l.transferSize.Store(-1)
		s.log.Info().Msg("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk")
		if err := copyUntilMark(w, br, nc, []byte(mark), timeout, &l.transferRead); err != nil {
			return syncReadError(err)
		}
	} else {
		size, err := strconv.ParseInt(hdr[1:], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("Bad bulk length from MASTER: %q", hdr)
		}
		l.transferSize.Store(size)
		s.log.Info().Msgf("MASTER <-> REPLICA sync: receiving %d bytes from master to disk", size)
		nc.SetReadDeadline(time.Time{})
		nc.SetReadDeadline(time.Now().Add(timeout))
		if _, err := io.CopyN(w, deadlineReader{br, nc, timeout}, size); err != nil {
			return syncReadError(err)
		}
		l.transferRead.Store(size)
	}
	if err := w.Sync(); err != nil {
		return fmt.Errorf("Failed trying to sync the temp DB to disk in MASTER <-> REPLICA synchronization: %v", err)
	}
	wClosed = true
	if err := w.Close(); err != nil {
		return fmt.Errorf("Failed trying to sync the temp DB to disk in MASTER <-> REPLICA synchronization: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repl.link != l {
		return nil
	}
	// As Redis's readSyncBulkPayload: a BGSAVE must not overwrite the
	// synced data, the old data goes, then the received file becomes
	// dump.rdb and is loaded. Nothing checks it first: a corrupt one
	// leaves the replica empty (or ends it, as below).
	if l.psyncPossible {
		// replicationAttachToNewMaster drops the cached master
		s.log.Info().Msg("Discarding previously cached master state.")
		l.psyncPossible = false
	}
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
	s.repl.replid, s.repl.replid2, s.repl.secondOffset = replid, zeroReplID, -1
	s.repl.offset = off
	s.createBacklog()
	l.readOff = off
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

// syncReadError is readSyncBulkPayload's report of a failed read of the
// payload: the master closing the link is "connection lost".
func syncReadError(err error) error {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("I/O error trying to sync with MASTER: connection lost")
	case isTimeout(err):
		return errors.New("Timeout receiving bulk data from MASTER... If the problem persists try to set the 'repl-timeout' parameter in redis.conf to a larger value.")
	}
	return fmt.Errorf("I/O error trying to sync with MASTER: %s", errnoText(err))
}

// replInConn counts what is read from the master:
// total_net_repl_input_bytes (Redis's stat_net_repl_input_bytes), and,
// once the stream flows, each read as a read event (the master client's
// readQueryFromClient counts in total_reads_processed; the sync does not).
type replInConn struct {
	net.Conn
	n, reads *atomic.Int64
	stream   atomic.Bool
}

func (c *replInConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	if c.stream.Load() {
		c.reads.Add(1)
	}
	return n, err
}

// deadlineReader renews the connection's read deadline before each read:
// a master silent for repl-timeout fails the transfer, a slow one does not.
type deadlineReader struct {
	r       io.Reader
	nc      net.Conn
	timeout time.Duration
}

func (d deadlineReader) Read(p []byte) (int, error) {
	d.nc.SetReadDeadline(time.Now().Add(d.timeout))
	return d.r.Read(p)
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

// copyUntilMark copies the EOF-form payload to w, without the mark that
// ends it.
func copyUntilMark(w io.Writer, br *bufio.Reader, nc net.Conn, mark []byte, timeout time.Duration, read *atomic.Int64) error {
	buf := make([]byte, 64<<10)
	var tail []byte // the last len(mark) bytes seen, held back
	for {
		nc.SetReadDeadline(time.Now().Add(timeout))
		n, err := br.Read(buf)
		if n > 0 {
			read.Add(int64(n))
			tail = append(tail, buf[:n]...)
			if len(tail) >= len(mark) && string(tail[len(tail)-len(mark):]) == string(mark) {
				_, werr := w.Write(tail[:len(tail)-len(mark)])
				return werr
			}
			if keep := len(tail) - len(mark); keep > 0 {
				if _, werr := w.Write(tail[:keep]); werr != nil {
					return werr
				}
				tail = append(tail[:0], tail[keep:]...)
			}
		}
		if err != nil {
			return err
		}
	}
}

// streamFromMaster applies the master's stream until the link breaks.
func (s *Server) streamFromMaster(l *masterLink, nc net.Conn, br *bufio.Reader, timeout time.Duration) error {
	s.mu.Lock()
	if s.repl.link != l {
		s.mu.Unlock()
		return nil
	}
	if rc, ok := nc.(*replInConn); ok {
		rc.stream.Store(true)
	}
	mc := newClient(s, nc, s.nextID.Add(1))
	mc.flags |= flagMaster
	mc.authed = true
	mc.db = s.dbs[0]
	s.clients[mc.id] = mc
	l.mc = mc
	l.state = linkConnected
	l.syncInProgress = false
	l.lastIO = time.Now()
	l.sendAck(s)
	s.mu.Unlock()
	type pending struct {
		argv [][]byte
		raw  []byte
	}
	var batch []pending
	for {
		nc.SetReadDeadline(time.Now().Add(timeout))
		argv, raw, err := readCommand(br)
		if err != nil {
			if isTimeout(err) {
				s.log.Warn().Msg("MASTER timeout: no data nor PING received...")
			}
			return err
		}
		batch = append(batch, pending{argv, raw})
		if br.Buffered() > 0 && len(batch) < 128 {
			continue
		}
		s.mu.Lock()
		if s.repl.link != l {
			s.mu.Unlock()
			return nil
		}
		l.lastIO = time.Now()
		for _, p := range batch {
			l.readOff += int64(len(p.raw))
			if len(p.argv) > 0 {
				mc.lastInter.Store(time.Now().UnixNano())
				s.processCommand(mc, p.argv)
				mc.out = mc.out[:0] // the master gets no replies
			}
			// The applied bytes go on to our backlog and replicas
			// (replicationFeedStreamFromMasterStream), and count in our
			// offset.
			s.replFeedBytes(p.raw)
		}
		s.mu.Unlock()
		batch = batch[:0]
	}
}

// readCommand reads one command of the stream (multibulk, or an inline
// line), returning it and its raw bytes.
func readCommand(br *bufio.Reader) ([][]byte, []byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, nil, err
	}
	raw := append([]byte(nil), line...)
	if len(line) == 0 || line[0] != '*' {
		return fieldsBytes(line), raw, nil
	}
	n, err := strconv.Atoi(strings.TrimRight(string(line[1:]), "\r\n"))
	if err != nil || n < 0 || n > 1<<20 {
		return nil, nil, fmt.Errorf("Protocol error: invalid multibulk length")
	}
	argv := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		hl, err := br.ReadSlice('\n')
		if err != nil {
			return nil, nil, err
		}
		raw = append(raw, hl...)
		if len(hl) == 0 || hl[0] != '$' {
			return nil, nil, fmt.Errorf("Protocol error: expected '$', got '%c'", hl[0])
		}
		sz, err := strconv.Atoi(strings.TrimRight(string(hl[1:]), "\r\n"))
		if err != nil || sz < 0 {
			return nil, nil, fmt.Errorf("Protocol error: invalid bulk length")
		}
		start := len(raw)
		raw = append(raw, make([]byte, sz+2)...)
		if _, err := io.ReadFull(br, raw[start:]); err != nil {
			return nil, nil, err
		}
		argv = append(argv, raw[start:start+sz:start+sz])
	}
	return argv, raw, nil
}

// fieldsBytes splits an inline command line.
func fieldsBytes(line []byte) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(string(line)) {
		out = append(out, []byte(f))
	}
	return out
}

// sendAck is replicationSendAck: REPLCONF ACK <offset> (under mu).
func (l *masterLink) sendAck(s *Server) {
	if l.state != linkConnected {
		return
	}
	b := appendArgs(nil, "REPLCONF", "ACK", strconv.FormatInt(s.repl.offset, 10))
	l.wmu.Lock()
	if l.conn != nil {
		l.conn.SetWriteDeadline(time.Now().Add(time.Second))
		l.conn.Write(b)
	}
	l.wmu.Unlock()
}

// cron is the replica's part of replicationCron (under mu): an ACK a
// second.
func (l *masterLink) cron(s *Server) {
	l.sendAck(s)
}

var linkStateNames = [...]string{"connect", "connecting", "sync", "connected"}

// role is ROLE on a replica.
func (l *masterLink) role(s *Server, c *client) {
	c.arrayLen(5)
	c.bulkString("slave")
	c.bulkString(l.host)
	c.integer(int64(l.port))
	c.bulkString(linkStateNames[l.state])
	if l.state == linkConnected {
		c.integer(s.repl.offset)
	} else {
		c.integer(-1)
	}
}

// info writes INFO replication's replica fields (after role:slave).
func (l *masterLink) info(s *Server, f func(k string, v any)) {
	f("master_host", l.host)
	f("master_port", l.port)
	up := l.state == linkConnected
	f("master_link_status", map[bool]string{true: "up", false: "down"}[up])
	if up {
		f("master_last_io_seconds_ago", int64(time.Since(l.lastIO).Seconds()))
	} else {
		f("master_last_io_seconds_ago", -1)
	}
	f("master_sync_in_progress", b2i(l.syncInProgress))
	f("slave_read_repl_offset", l.readOff)
	f("slave_repl_offset", s.repl.offset)
	if l.syncInProgress {
		size, read := l.transferSize.Load(), l.transferRead.Load()
		f("master_sync_total_bytes", size)
		f("master_sync_read_bytes", read)
		f("master_sync_left_bytes", size-read)
		f("master_sync_perc", fmt.Sprintf("%.2f", perc(read, size)))
		f("master_sync_last_io_seconds_ago", int64(time.Since(l.syncStart).Seconds()))
	}
	if !up {
		f("master_link_down_since_seconds", int64(time.Since(l.downSince).Seconds()))
	}
	f("slave_priority", s.replCfgInt("replica-priority"))
	f("slave_read_only", b2i(s.replCfgYes("replica-read-only")))
	f("replica_announced", b2i(s.replCfgYes("replica-announced")))
}

func perc(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) * 100 / float64(b)
}

// replicaRefusal is processCommand's replica checks: MASTERDOWN with a
// broken link under replica-serve-stale-data no, READONLY for writes
// under replica-read-only (the master's own commands pass).
func (s *Server) replicaRefusal(c *client, cmd *command, isWrite bool) string {
	l := s.repl.link
	if l == nil || c.flags&flagMaster != 0 {
		return ""
	}
	if l.state != linkConnected && cmd.flags&cmdStale == 0 && !s.replCfgYes("replica-serve-stale-data") {
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

// syncPayloadError is a full sync that failed once the master accepted it
// (Redis's readSyncBulkPayload errors): the replica reconnects at once.
type syncPayloadError struct{ err error }

func (e *syncPayloadError) Error() string { return e.err.Error() }
func (e *syncPayloadError) Unwrap() error { return e.err }
