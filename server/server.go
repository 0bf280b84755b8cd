package server

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/pubsub"
	"github.com/aofserver/aofserver/scripting"
	"github.com/aofserver/aofserver/tracking"
)

// Version is the Redis version we answer as (INFO redis_version, HELLO).
const Version = "7.0.15"

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("server: closed")

// Server owns the data, the commands and the clients.
//
// mu is "the executor": every command runs with mu held, one at a time, in
// the order the AOF records them. Parsing requests and writing replies stay
// on connection goroutines, outside mu; waiting for the AOF (write or
// fsync) happens after mu is released, so the executor never waits on a
// disk.
type Server struct {
	mu sync.Mutex
	// muWanted counts command batches waiting for mu, so that background
	// work under it (the snapshot walker) lets them in first.
	muWanted atomic.Int32

	cfg      *config.Config
	log      zerolog.Logger
	dbs      []*DB
	commands commandTable

	// listeners and what they were opened for (rebind.go), under lnMu;
	// serving is set once Serve accepts on them.
	lnMu      sync.Mutex
	listeners []net.Listener
	unixLn    net.Listener // the unixsocket's (unixsock.go); CONFIG SET port/bind leaves it
	lnBinds   []string
	lnPort    int
	serving   bool
	acceptWG  sync.WaitGroup
	clients   map[int64]*client
	nextID    atomic.Int64
	nclients  atomic.Int64
	// passwordSet mirrors "the default user needs a password" (Redis's
	// authRequired without the client) for the request parser, which
	// runs outside the executor.
	passwordSet atomic.Bool
	// acl is the ACL users and log (acl.go), under mu.
	acl aclState
	// inflight mirrors aof-group-commit-inflight for the network loop.
	inflight atomic.Int32

	aof  *aof.AOF // nil while appendonly is off
	snap *snapshot
	// snapParity is the mark bit every entry carries while no snapshot
	// runs (see snapshot.go).
	snapParity bool
	loading    bool
	loadingA   atomic.Bool

	// propagation of the current execution unit
	execDepth int
	// forceProp: the running command is propagated even if it changed
	// nothing (Redis's forceCommandPropagation; FLUSHALL).
	forceProp  bool
	curClient  *client  // client whose command is executing (for fedOff)
	curArgv    [][]byte // its arguments (MONITOR shows an aborted EXEC)
	pendingOps []aof.Op
	// replOnlyOps: indexes of pendingOps for the replicas only (Redis's
	// PROPAGATE_REPL: PUBLISH and SPUBLISH never reach the AOF).
	replOnlyOps []int
	// forceReplProp: the running command goes to the replicas even if it
	// changed nothing (forceCommandPropagation(c, PROPAGATE_REPL)).
	forceReplProp bool
	dirty         int64 // rdb_changes_since_last_save
	curCmdFailed  bool
	// errMark is Redis's prev_err_count (incrCommandStatsOnError): the
	// error replies counted when the last call started or ended; a call
	// fails if more were counted since, so an EXEC or a script is not
	// charged with the errors of the commands it ran.
	errMark int64

	lruClock uint32
	rnd      *rand.Rand
	startAt  time.Time
	stats    stats
	persist  persistState
	pubsub   *pubsub.Registry
	// notifyFlags caches notify-keyspace-events as NOTIFY_* bits
	// (notifyUnknown until first used; see notify.go).
	notifyFlags int
	blocking    blockingState
	scr         *scripting.Scripts // EVAL and FUNCTION, nil until first used
	// scriptRun is the script in execution (busy-script state), nil when
	// idle; scriptStartMs is its start time (0 when idle): keys expire
	// against it (expireNow).
	scriptRun     *scriptRun
	scriptStartMs int64
	monitors      map[*client]struct{}
	slowlog       slowlog
	latency       latencyMonitor

	activeExpire     bool
	dbg              debugKnobs // DEBUG's switches (cmd_debug.go)
	shutdownPrepared bool
	ev               evictState     // evict.go
	ownsProcess      bool           // OwnProcess: process-wide runtime knobs are ours
	migrate          migrateSockets // MIGRATE's cached connections (cmd_migrate.go)
	pickFreePort     bool           // PickFreePort: Listen takes port 0 as any free port
	pausedUntil      time.Time
	pauseWrites      bool

	pause    pauseState      // CLIENT PAUSE's postponed clients (pause.go)
	tracking *tracking.Table // client-side caching (tracking.go)

	// listPackedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD: list
	// elements this large get a plain quicklist node (0: Redis's 1 GB).
	listPackedThreshold int

	closing     chan struct{}
	loop        *netLoop     // nil: a goroutine per connection
	idleTimeout atomic.Int64 // cfg.Timeout for the network loop (refreshed by cron)
	doneOnce    sync.Once
	wg          sync.WaitGroup
	exitFn      func(code int)
	testFS      fsx.FS // the data directory's file system, for tests (fsys)
	// testSyncClock, when set, times the AOF's fsyncs for the
	// self-tuning group commit (aof.Options.SyncClock): a test's stand-in disk.
	testSyncClock func() time.Duration
	// testWriterTick overrides the AOF writer's tick (tests; 0: default).
	testWriterTick time.Duration
	// collectProp keeps propagated ops in pendingOps even with the AOF off
	// (tests inspect them).
	collectProp bool

	repl replState // replication.go
}

type stats struct {
	totalConns        int64
	totalCommands     int64
	rejectedConns     int64
	syncFull          int64 // sync_full: full resyncs served to replicas
	syncPartialOK     int64
	syncPartialErr    int64 // PSYNCs refused that asked for a history ("?" does not count)
	expiredKeys       int64
	expiredStale      int64
	evictedKeys       int64
	keyspaceHits      int64
	keyspaceMisses    int64
	totalErrorReplies int64
	netInput          atomic.Int64
	netOutput         atomic.Int64
	netReplIn         atomic.Int64
	netReplOut        atomic.Int64
	obufPeak          obufPeaks // client_recent_max_output_buffer (outbuf.go)
	ibufPeak          obufPeaks // client_recent_max_input_buffer (clientsCron)
	// total_reads_processed / total_writes_processed: the read and write
	// events Redis's readQueryFromClient and writeToClient count.
	totalReads, totalWrites atomic.Int64
	// instantaneous_ops_per_sec and _kbps (instmetric.go)
	instOps, instIn, instOut instMetric
	instReplIn, instReplOut  instMetric
	replyBufShrinks          int64 // replybuf.go
	replyBufExpands          int64
	errorCounts              map[string]int64
	unexpectedErrs           int64
	expireCycleCPU           int64
	lazyfreedObjects         int64 // lazyfree.go
}

// New builds a server from cfg. It does not load data or listen yet.
// OwnProcess tells the server it is alone in its process (cmd/server),
// so it may set process-wide runtime knobs: the Go memory limit follows
// maxmemory. Servers embedded in a test binary share one runtime and leave
// it alone.
func (s *Server) OwnProcess() { s.ownsProcess = true }

func New(cfg *config.Config, log zerolog.Logger) (*Server, error) {
	s := &Server{
		cfg:          cfg,
		log:          log,
		commands:     builtin.clone(),
		clients:      map[int64]*client{},
		rnd:          rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid()))),
		startAt:      time.Now(),
		monitors:     map[*client]struct{}{},
		closing:      make(chan struct{}),
		exitFn:       os.Exit,
		activeExpire: true,
	}
	s.dbg.replyBufPeakReset = replyBufPeakResetTime
	s.initACL()
	s.aclLoadAtStartup()
	s.inflight.Store(int32(cfg.AOFGroupCommitInflight))
	s.stats.errorCounts = map[string]int64{}
	s.dbs = make([]*DB, cfg.Databases)
	for i := range s.dbs {
		s.dbs[i] = newDB(i)
	}
	s.pubsub = pubsub.New((*pubsubHost)(s))
	s.tracking = tracking.New((*trackingHost)(s))
	s.notifyFlags = notifyUnknown
	s.slowlog.init()
	s.initPersist()
	s.updateLRUClock()
	s.adjustOpenFilesLimit()
	return s, nil
}

func (s *Server) nowMs() int64 { return time.Now().UnixMilli() }

func (s *Server) updateLRUClock() {
	s.lruClock = uint32(time.Now().Unix()) & lruMask
}

func (s *Server) noTouch(c *client) bool { return c != nil && c.noTouch }

// ErrNoListeners is a configuration that listens nowhere (port 0 and no
// unixsocket): Redis logs "Configured to not listen anywhere, exiting.".
var ErrNoListeners = errors.New("Configured to not listen anywhere, exiting.")

// Listen opens the listeners for cfg.Bind/Port and cfg.UnixSocket. Port 0
// means no TCP listener, as in Redis, unless PickFreePort was called.
func (s *Server) Listen() error {
	var lns []net.Listener
	port := s.cfg.Port
	if port != 0 || s.pickFreePort {
		var err error
		if lns, port, err = openListeners(s.cfg.Bind, port); err != nil {
			return err
		}
	}
	if s.cfg.UnixSocket != "" {
		uln, err := openUnixSocket(s.cfg.UnixSocket, s.cfg.UnixSocketPerm)
		if err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			return err
		}
		s.unixLn = uln
	}
	if len(lns) == 0 && s.unixLn == nil {
		return ErrNoListeners
	}
	s.listeners, s.cfg.Port = lns, port
	s.lnBinds, s.lnPort = s.cfg.Bind, port
	s.newNetLoops()
	return nil
}

// PickFreePort makes Listen take port 0 as "any free port" (the servers
// tests and --check-aof's replayer embed): Redis's port 0 turns TCP off.
func (s *Server) PickFreePort() { s.pickFreePort = true }

// openListeners listens on every bind address (none: Redis's "* -::*"; a
// leading '-' makes one optional) at port; port 0 picks a free port, used
// for the other addresses too, and returned.
func openListeners(binds []string, port int) ([]net.Listener, int, error) {
	if len(binds) == 0 {
		binds = []string{"*", "-::*"}
	}
	var lns []net.Listener
	for _, b := range binds {
		optional := false
		if len(b) > 0 && b[0] == '-' {
			optional = true
			b = b[1:]
		}
		host := b
		network := "tcp"
		switch b {
		case "*":
			host, network = "0.0.0.0", "tcp4"
		case "::*":
			host, network = "::", "tcp6"
		}
		ln, err := net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			if optional {
				continue
			}
			for _, l := range lns {
				l.Close()
			}
			return nil, port, &listenError{addr: b, port: port, err: err}
		}
		lns = append(lns, ln)
		if port == 0 {
			// Bind the remaining addresses to the same, now chosen, port.
			port = ln.Addr().(*net.TCPAddr).Port
		}
	}
	if len(lns) == 0 {
		return nil, port, errors.New("no listening address")
	}
	return lns, port, nil
}

// Addr is the first listener's address.
func (s *Server) Addr() net.Addr {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if len(s.listeners) == 0 {
		return nil // port 0: no TCP listener
	}
	return s.listeners[0].Addr()
}

func (s *Server) closeListeners() {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	for _, ln := range s.listeners {
		ln.Close()
	}
	if s.unixLn != nil {
		s.unixLn.Close()
	}
}

// Serve accepts clients until Shutdown.
func (s *Server) Serve() error {
	s.idleTimeout.Store(int64(s.cfg.Timeout))
	s.startNetLoops()
	s.wg.Add(1)
	go s.cronLoop()
	s.ReplicaOfFromConfig()
	s.lnMu.Lock()
	for _, ln := range s.listeners {
		s.startAccept(ln)
	}
	if s.unixLn != nil {
		s.startAccept(s.unixLn)
	}
	s.serving = true
	s.lnMu.Unlock()
	// CONFIG SET port/bind replaces listeners (rebind.go): serving ends
	// with the server, not with them.
	<-s.closing
	s.lnMu.Lock() // no rebind adds an accept loop from here on
	s.serving = false
	s.lnMu.Unlock()
	s.acceptWG.Wait()
	return ErrServerClosed
}

func (s *Server) startAccept(ln net.Listener) {
	s.acceptWG.Add(1)
	go func() {
		defer s.acceptWG.Done()
		s.acceptLoop(ln)
	}()
}

func (s *Server) acceptLoop(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-s.closing:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.log.Warn().Msgf("Accepting client connection: %v", err)
			time.Sleep(5 * time.Millisecond)
			continue
		}
		go s.serveConn(nc)
	}
}

// Shutdown stops accepting, closes clients and persistence.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.doneOnce.Do(func() {
		close(s.closing)
		s.closeListeners()
		s.mu.Lock()
		for _, c := range s.clients {
			c.conn.Close()
		}
		s.mu.Unlock()
		s.stopNetLoops()
		err = s.persistOnShutdown(ctx)
		s.persist.Jobs.Wait(ctx)
	})
	return err
}

// Closing is closed when the server starts shutting down.
func (s *Server) Closing() <-chan struct{} { return s.closing }
