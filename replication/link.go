package replication

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

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/rstring"
	"github.com/rs/zerolog"
)

// The replica side of replication (Redis's syncWithMaster,
// readSyncBulkPayload, replicationCron): a Link's goroutine connects to
// the master, handshakes, receives the RDB to a temp file (disk or EOF
// form), has the server load it, then hands the server the stream command
// by command. What touches the dataset, the master client and the
// replication history is the server's (LinkHost); the link owns the
// connection, its state and what INFO and ROLE say of it.

// Link states, with ROLE's and INFO's names.
const (
	linkConnect    = iota // to connect
	linkConnecting        // TCP connect or handshake
	linkTransfer          // receiving the RDB
	linkConnected
)

var linkStateNames = [...]string{"connect", "connecting", "sync", "connected"}

// LinkHost is what a Link asks of the server. The methods said to run
// under the lock are called with the Locker held; the Locker is the
// server's executor lock, so that the link's state changes and the
// server's happen in one turn of the executor.
type LinkHost interface {
	sync.Locker
	// Current reports whether l is still the server's link (under the
	// lock): a replaced link stops touching anything.
	Current(l *Link) bool
	// LinkConfig is what the handshake needs of the configuration
	// (under the lock).
	LinkConfig() LinkConfig
	// History is our replication ID and offset (under the lock).
	History() (replid string, offset int64)
	// PsyncFailover reports whether PSYNC carries FAILOVER (this master
	// hands over to the replica it now follows), under the lock.
	PsyncFailover() bool
	// PsyncReply sees the master's reply to PSYNC first (a failover in
	// progress ends or aborts on it); false stops the link (under the lock).
	PsyncReply(reply string) bool
	// Continue takes the master's +CONTINUE (its ID, "" when it gave
	// none) and returns our offset, from which the stream continues
	// (under the lock).
	Continue(replid string) (offset int64)
	// LoadSynced makes the received RDB at path the dataset, whose
	// history is replid up to offset (under the lock).
	LoadSynced(path, replid string, offset int64) error
	// StreamStart attaches the master client on nc, once the stream
	// flows (under the lock).
	StreamStart(l *Link, nc net.Conn)
	// Apply runs one command of the stream (argv empty for a
	// keep-alive) and passes its raw bytes on to our backlog and
	// replicas (under the lock).
	Apply(argv [][]byte, raw []byte)
	// LinkDown detaches the master client of a link that broke (under
	// the lock).
	LinkDown(l *Link)
}

// LinkConfig is the configuration a handshake reads.
type LinkConfig struct {
	Timeout    time.Duration // repl-timeout
	Auth, User string        // masterauth, masteruser
	Port       int           // what REPLCONF listening-port says
	AnnounceIP string        // replica-announce-ip
	FS         fsx.FS        // where the RDB is received
	Dir        string
}

// Link is our link to our master (the replica side), from REPLICAOF or
// the replicaof directive until REPLICAOF NO ONE or another master.
type Link struct {
	h     LinkHost
	log   zerolog.Logger
	in    *atomic.Int64 // total_net_repl_input_bytes
	reads *atomic.Int64 // total_reads_processed
	host  string
	port  int
	state int // under the lock
	stop  chan struct{}

	wmu  sync.Mutex // writes to conn (ACKs)
	conn net.Conn

	// Under the lock:
	lastIO         time.Time // last data from the master
	downSince      time.Time
	syncStart      time.Time
	readOff        int64 // slave_read_repl_offset
	psyncPossible  bool  // our replid/offset name a history the master may continue
	syncInProgress bool

	transferSize atomic.Int64 // -1: EOF form (written off the executor)
	transferRead atomic.Int64
}

// NewLink is a link to host:port, to be run with Run. psyncPossible: our
// history is one the master may continue (Redis's cached master).
// in and reads count what is read from the master.
func NewLink(h LinkHost, log zerolog.Logger, host string, port int, psyncPossible bool, in, reads *atomic.Int64) *Link {
	return &Link{h: h, log: log, in: in, reads: reads, host: host, port: port, state: linkConnect,
		stop: make(chan struct{}), downSince: time.Now(), psyncPossible: psyncPossible}
}

// Host and Port are the master's address as configured.
func (l *Link) Host() string { return l.host }
func (l *Link) Port() int    { return l.port }

// Connected reports whether the stream flows (under the lock).
func (l *Link) Connected() bool { return l.state == linkConnected }

// StateName is ROLE's name of the link's state (under the lock).
func (l *Link) StateName() string { return linkStateNames[l.state] }

// Close stops the link and closes its connection.
func (l *Link) Close() {
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

func (l *Link) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// Run connects, syncs and streams until the link is closed or closing is;
// after a failure it tries again a second later (Redis's replicationCron),
// at once after a failed transfer or load of the master's RDB.
func (l *Link) Run(closing <-chan struct{}) {
	h := l.h
	for !l.stopped() {
		err := l.once()
		h.Lock()
		if h.Current(l) {
			if l.state == linkConnected {
				l.log.Warn().Msg("Connection with master lost.")
				l.log.Info().Msg("Caching the disconnected master state.")
				l.psyncPossible = true
			} else if err != nil && !l.stopped() {
				l.log.Warn().Msgf("%v", err)
			}
			h.LinkDown(l)
			l.state = linkConnect
			l.downSince = time.Now()
			l.syncInProgress = false
		}
		h.Unlock()
		if pe := (*syncPayloadError)(nil); errors.As(err, &pe) && !l.stopped() {
			// readSyncBulkPayload's cancelReplicationHandshake(1)
			l.log.Info().Msgf("Reconnecting to MASTER %s:%d after failure", l.host, l.port)
			continue
		}
		select {
		case <-l.stop:
			return
		case <-closing:
			return
		case <-time.After(time.Second):
		}
		// replicationCron's next try
		l.log.Info().Msgf("Connecting to MASTER %s:%d", l.host, l.port)
	}
}

// once is one connection to the master: handshake, sync, stream.
func (l *Link) once() error {
	h := l.h
	h.Lock()
	l.state = linkConnecting
	h.Unlock()
	l.log.Info().Msg("MASTER <-> REPLICA sync started")
	nc, err := net.DialTimeout("tcp", net.JoinHostPort(l.host, strconv.Itoa(l.port)), 10*time.Second)
	if err != nil {
		return fmt.Errorf("Error condition on socket for SYNC: %s", rstring.Strerror(err))
	}
	ic := &inConn{Conn: nc, n: l.in, reads: l.reads}
	nc = ic
	l.wmu.Lock()
	l.conn = nc
	l.wmu.Unlock()
	defer nc.Close()
	if l.stopped() {
		return nil
	}
	l.log.Info().Msg("Non blocking connect for SYNC fired the event.")
	h.Lock()
	cfg := h.LinkConfig()
	h.Unlock()
	timeout := cfg.Timeout
	br := bufio.NewReaderSize(nc, 64<<10)
	ask := func(args ...string) (string, error) {
		nc.SetDeadline(time.Now().Add(timeout))
		if _, err := nc.Write(AppendArgs(nil, args...)); err != nil {
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
	l.log.Info().Msg("Master replied to PING, replication can continue...")
	if cfg.Auth != "" {
		args := []string{"AUTH", cfg.Auth}
		if cfg.User != "" {
			args = []string{"AUTH", cfg.User, cfg.Auth}
		}
		if r, err = ask(args...); err != nil || strings.HasPrefix(r, "-") {
			return fmt.Errorf("Unable to AUTH to MASTER: %s%v", strings.TrimPrefix(r, "-"), errOrEmpty(err))
		}
	}
	if r, err = ask("REPLCONF", "listening-port", strconv.Itoa(cfg.Port)); err != nil {
		return err
	} else if strings.HasPrefix(r, "-") {
		l.log.Info().Msgf("(Non critical) Master does not understand REPLCONF listening-port: %s", r[1:])
	}
	if cfg.AnnounceIP != "" {
		if r, err = ask("REPLCONF", "ip-address", cfg.AnnounceIP); err != nil {
			return err
		}
	}
	if r, err = ask("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	} else if strings.HasPrefix(r, "-") {
		l.log.Info().Msgf("(Non critical) Master does not understand REPLCONF capa: %s", r[1:])
	}
	// PSYNC: continue our history, or ask for a full sync.
	h.Lock()
	psyncID, psyncOff := "?", int64(-1)
	if id, off := h.History(); l.psyncPossible && id != "" {
		psyncID, psyncOff = id, off+1
		l.log.Info().Msgf("Trying a partial resynchronization (request %s:%d).", psyncID, psyncOff)
	} else {
		l.log.Info().Msg("Partial resynchronization not possible (no cached master)")
	}
	psyncArgs := []string{"PSYNC", psyncID, strconv.FormatInt(psyncOff, 10)}
	if h.PsyncFailover() {
		psyncArgs = append(psyncArgs, "FAILOVER")
	}
	h.Unlock()
	if r, err = ask(psyncArgs...); err != nil {
		return fmt.Errorf("Master did not reply to PSYNC: %v", err)
	}
	h.Lock()
	goOn := h.PsyncReply(r)
	h.Unlock()
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
		l.log.Info().Msgf("Full resync from master: %s:%d", f[1], off)
		if err := l.fullSync(nc, br, f[1], off, cfg); err != nil {
			return &syncPayloadError{err}
		}
	case strings.HasPrefix(r, "+CONTINUE"):
		id := ""
		if f := strings.Fields(r); len(f) > 1 {
			id = f[1]
		}
		h.Lock()
		l.readOff = h.Continue(id)
		h.Unlock()
	case strings.HasPrefix(r, "-NOMASTERLINK"), strings.HasPrefix(r, "-LOADING"):
		return fmt.Errorf("Master is currently unable to PSYNC but should be in the future: %s", r[1:])
	default:
		return fmt.Errorf("Unexpected reply to PSYNC from master: %s", r)
	}
	return l.stream(ic, br, timeout)
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// fullSync receives the RDB into a temp file, then has the server load it
// (Redis readSyncBulkPayload with repl-diskless-load disabled).
func (l *Link) fullSync(nc net.Conn, br *bufio.Reader, replid string, off int64, cfg LinkConfig) error {
	h, timeout := l.h, cfg.Timeout
	h.Lock()
	l.state = linkTransfer
	l.syncInProgress = true
	l.syncStart = time.Now()
	l.transferRead.Store(0)
	h.Unlock()
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
	tmp := filepath.Join(cfg.Dir, fmt.Sprintf("temp-%d.%d.rdb", time.Now().Unix(), os.Getpid()))
	fsys := cfg.FS
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
		l.log.Info().Msg("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk")
		if err := copyUntilMark(w, br, nc, []byte(mark), timeout, &l.transferRead); err != nil {
			return syncReadError(err)
		}
	} else {
		size, err := strconv.ParseInt(hdr[1:], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("Bad bulk length from MASTER: %q", hdr)
		}
		l.transferSize.Store(size)
		l.log.Info().Msgf("MASTER <-> REPLICA sync: receiving %d bytes from master to disk", size)
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
	h.Lock()
	defer h.Unlock()
	if !h.Current(l) {
		return nil
	}
	if l.psyncPossible {
		// replicationAttachToNewMaster drops the cached master
		l.log.Info().Msg("Discarding previously cached master state.")
		l.psyncPossible = false
	}
	if err := h.LoadSynced(tmp, replid, off); err != nil {
		return err
	}
	l.readOff = off
	return nil
}

// stream applies the master's stream until the link breaks.
func (l *Link) stream(ic *inConn, br *bufio.Reader, timeout time.Duration) error {
	h := l.h
	h.Lock()
	if !h.Current(l) {
		h.Unlock()
		return nil
	}
	ic.stream.Store(true)
	h.StreamStart(l, ic)
	l.state = linkConnected
	l.syncInProgress = false
	l.lastIO = time.Now()
	_, off := h.History()
	l.SendAck(off)
	h.Unlock()
	type pending struct {
		argv [][]byte
		raw  []byte
	}
	var batch []pending
	for {
		ic.SetReadDeadline(time.Now().Add(timeout))
		argv, raw, err := ReadCommand(br)
		if err != nil {
			if IsTimeout(err) {
				l.log.Warn().Msg("MASTER timeout: no data nor PING received...")
			}
			return err
		}
		batch = append(batch, pending{argv, raw})
		if br.Buffered() > 0 && len(batch) < 128 {
			continue
		}
		h.Lock()
		if !h.Current(l) {
			h.Unlock()
			return nil
		}
		l.lastIO = time.Now()
		for _, p := range batch {
			l.readOff += int64(len(p.raw))
			h.Apply(p.argv, p.raw)
		}
		h.Unlock()
		batch = batch[:0]
	}
}

// SendAck is replicationSendAck: REPLCONF ACK <offset> (under the lock).
func (l *Link) SendAck(offset int64) {
	if l.state != linkConnected {
		return
	}
	b := AppendArgs(nil, "REPLCONF", "ACK", strconv.FormatInt(offset, 10))
	l.wmu.Lock()
	if l.conn != nil {
		l.conn.SetWriteDeadline(time.Now().Add(time.Second))
		l.conn.Write(b)
	}
	l.wmu.Unlock()
}

// Info writes INFO replication's fields of the link (after role:slave),
// offset being our own (slave_repl_offset); under the lock.
func (l *Link) Info(offset int64, f func(k string, v any)) {
	f("master_host", l.host)
	f("master_port", l.port)
	up := l.state == linkConnected
	if up {
		f("master_link_status", "up")
		f("master_last_io_seconds_ago", int64(time.Since(l.lastIO).Seconds()))
	} else {
		f("master_link_status", "down")
		f("master_last_io_seconds_ago", -1)
	}
	f("master_sync_in_progress", b2i(l.syncInProgress))
	f("slave_read_repl_offset", l.readOff)
	f("slave_repl_offset", offset)
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
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func perc(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) * 100 / float64(b)
}

// syncPayloadError is a full sync that failed once the master accepted it
// (Redis's readSyncBulkPayload errors): the replica reconnects at once.
type syncPayloadError struct{ err error }

func (e *syncPayloadError) Error() string { return e.err.Error() }
func (e *syncPayloadError) Unwrap() error { return e.err }

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

// syncReadError is readSyncBulkPayload's report of a failed read of the
// payload: the master closing the link is "connection lost".
func syncReadError(err error) error {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("I/O error trying to sync with MASTER: connection lost")
	case IsTimeout(err):
		return errors.New("Timeout receiving bulk data from MASTER... If the problem persists try to set the 'repl-timeout' parameter in redis.conf to a larger value.")
	}
	return fmt.Errorf("I/O error trying to sync with MASTER: %s", rstring.Strerror(err))
}

// inConn counts what is read from the master:
// total_net_repl_input_bytes (Redis's stat_net_repl_input_bytes), and,
// once the stream flows, each read as a read event (the master client's
// readQueryFromClient counts in total_reads_processed; the sync does not).
type inConn struct {
	net.Conn
	n, reads *atomic.Int64
	stream   atomic.Bool
}

func (c *inConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	if c.stream.Load() {
		c.reads.Add(1)
	}
	return n, err
}
