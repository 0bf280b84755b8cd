//go:build linux

package server

import (
	"errors"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/resp"
)

// The network loop (Linux): one goroutine serves many connections with
// epoll, as Redis's ae loop does. Per request that is one read() and one
// write(), where a goroutine per connection pays a read() that finds
// nothing, a park in the runtime's poller and a wake-up; on loopback the
// difference is a quarter of the CPU per request.
//
// The loop reads, parses and writes outside the executor and runs each
// batch under it with execChunk, like a connection goroutine. It never
// waits for a disk: a batch whose replies depend on AOF bytes not yet
// acknowledged is held, and the AOF's ack hook wakes the loop to send it.
//
// Under appendfsync always the loop goroutine that ends an iteration with
// held replies becomes the syncer: it writes and fdatasyncs the AOF itself
// and sends the replies (Redis's beforeSleep), then goes on with the loop.
// It never leaves the loop unattended: two goroutines take turns, and
// only the one holding the token runs the loop. The other, the standby,
// sleeps in an outer epoll set (ep2) to which the syncer adds the loop's
// epoll set once its fsync has run standbyDelay (at once with several
// fsyncs in flight): if anything happens then (another client's request,
// a new connection, a kill) the standby wakes, takes the token and runs
// the loop, and the syncer takes what that loop holds next, in one fsync.
// A fast fsync ends before that: the syncer sends the replies and goes on
// with the loop, which reads what arrived meanwhile in one go, as Redis
// does (standbyDelay says what that saves). A slow or stuck one no longer
// holds the other clients' commands back: the two goroutines settle into
// one running the loop and the other fsyncing and replying, back to back,
// each group's fsync overlapping the reading and executing of the next.
// Both wait by parking in the runtime's poller (parkedEpoll), never in a
// blocking epoll_wait. When nothing happens, as with one client, no
// thread is woken and the request meets no hand-off on its way: read,
// execute, write, fsync, reply, as in Redis. (A
// goroutine started per fsync to go on with the loop cost a thread wake-up
// and about 100 µs of CPU per request at one client on a 2-vCPU VM.)
//
// With several fsyncs in flight (a disk whose flushes are slow and
// overlap, such as network storage: chosen by aof's tuner, aof/tune.go,
// or fixed by aof-group-commit-inflight above 1; aofInflight), up to that
// many syncers fsync at once (aof's Sync with overlap): the loop goroutine
// that ends an iteration with held replies starts one more syncer
// goroutine while fewer are running and keeps the loop, so a request that
// arrives during an fsync is read at once and gets an fsync of its own,
// the starts spaced by a flush over that many (toOverlapSyncer says why,
// and why not through the standby). The loop's epoll set wakes
// a standby only while some syncer is in an fsync and no goroutine holds
// the token (loopFree), so idle standbys do not spin while the loop is
// attended. With one in flight (the tuner's choice when an fsync is fast
// or mostly CPU, as on a local disk) the next group's fsync starts when
// the previous one is done, as above.
//
// A connection whose next step would park (a blocked command, a script
// that may run past busy-reply-threshold, CLIENT PAUSE, pub/sub or MONITOR
// output, a reply the socket cannot take at once) is handed to a goroutine
// of its own (conn.go) and stays there: those are rare, and the goroutine
// path already does each of them right.

const loopEvents = 256

// maxInflight bounds aof-group-commit-inflight: the loop's goroutines are
// at most one more than that.
const maxInflight = 16

type netLoop struct {
	s   *Server
	ep  int
	efd int // eventfd: ack hook, kills, new connections, stop

	mu       sync.Mutex // guards conns, kills, stop, walk, nsync, syncQ, returned, the standby's state
	conns    map[int32]*client
	kills    []*client
	asyncs   []*client // to hand to a goroutine with asynchronous output
	stop     bool
	walk     *snapshot // handed over by walkOnLoop
	nsync    int       // syncer goroutines running (at most aofInflight)
	syncQ    []*client // held, for the syncer's next round
	returned []*client // given back by the syncer (slow path)

	walking   *snapshot // the walk the loop steps (loop-owned; written under mu: walkOnLoop reads it)
	walkSpare persist.Batch
	walkFull  bool // the child's queue is full: poll, do not spin

	woken    atomic.Bool // an eventfd write is pending
	inAck    atomic.Bool // the loop is in ackHeld: flushHeld follows anyway
	heldWait atomic.Bool // replies in held wait for the ack hook

	held    []*client     // replies held at the AOF barrier (loop-owned)
	iter    atomic.Uint64 // loop iterations (written by the loop only)
	anyMore bool          // a held client is being read on (loop-owned)
	evs     []unix.EpollEvent
	done    chan struct{}

	epw  parkedEpoll // ep, waited on through the runtime's poller
	ep2w parkedEpoll // ep2, likewise

	// The standby (see the top of the file).
	token    sync.Mutex // held by the goroutine running the loop
	ep2      int        // outer epoll set the standby sleeps in
	stopFd   int        // eventfd in ep2: written at stop, never drained
	nudgeFd  int        // eventfd in ep2: wakes the standby at once
	armed    bool       // ep's entry in ep2 asks for EPOLLIN (under mu)
	loopFree bool       // a syncer let go of the token and nobody took it (under mu)
	inFsync  int        // syncers in an fsync (under mu): armed = inFsync > 0 && loopFree
	// fsyncStart: monoNow when the lone syncer's fsync began, 0 when none
	// (under mu); armTimer runs armLate standbyDelay after it.
	fsyncStart int64
	armTimer   *time.Timer
	workers    int           // goroutines of the loop, standbys included (under mu)
	gone       chan struct{} // the other workers' exits, at stop
	takes      atomic.Int64  // times the standby took the loop over (tests)

	procs int // GOMAXPROCS procsFor last set (loop-owned)

	// Pacing of overlapped fsyncs (toSyncer): lastStart is monoNow when
	// the last syncer round began, pacing whether paceTimer is set to
	// start the next one (counted in nsync meanwhile). Under mu.
	lastStart int64
	pacing    bool
	paceTimer *time.Timer
}

// loopConn stands in for the net.Conn of a loop-owned client. Only Close
// and the addresses are used while the loop owns it.
type loopConn struct {
	l      *netLoop
	c      *client
	fd     int
	raddr  net.Addr
	laddr  net.Addr
	closed atomic.Bool

	// mu guards held, inOff, syncer and killReq, which the syncer
	// goroutine changes while the loop may look.
	mu      sync.Mutex
	held    bool       // replies waiting at the AOF barrier
	heldOff aof.Ticket // ... until this ticket is durable
	heldA   *aof.AOF
	inOff   bool  // EPOLLIN interest removed while held
	perr    error // protocol error to report after the held replies
	syncer  bool  // with the syncer goroutine: the loop must not touch it
	killReq bool  // to close once the syncer gives it back

	// more: under always, held replies whose client filled the read
	// buffer: it is read again before its fsync (loop-owned), so one
	// fsync covers a long pipeline instead of a buffer's worth at a time.
	more      bool
	moreIter  uint64     // the iteration that last read it
	heldStart aof.Ticket // heldOff when its replies were first held
}

var errLoopConn = errors.New("connection owned by the network loop")

func (lc *loopConn) Read([]byte) (int, error)         { return 0, errLoopConn }
func (lc *loopConn) Write([]byte) (int, error)        { return 0, errLoopConn }
func (lc *loopConn) LocalAddr() net.Addr              { return lc.laddr }
func (lc *loopConn) RemoteAddr() net.Addr             { return lc.raddr }
func (lc *loopConn) SetDeadline(time.Time) error      { return nil }
func (lc *loopConn) SetReadDeadline(time.Time) error  { return nil }
func (lc *loopConn) SetWriteDeadline(time.Time) error { return nil }

// Close (any goroutine, e.g. CLIENT KILL) asks the loop to close the
// connection.
func (lc *loopConn) Close() error {
	if lc.closed.Swap(true) {
		return nil
	}
	lc.l.mu.Lock()
	lc.l.kills = append(lc.l.kills, lc.c)
	lc.l.mu.Unlock()
	lc.l.wake()
	return nil
}

func newNetLoop(s *Server) (*netLoop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	l := &netLoop{s: s, ep: ep, efd: efd, ep2: -1, stopFd: -1, nudgeFd: -1, conns: map[int32]*client{},
		evs: make([]unix.EpollEvent, loopEvents), done: make(chan struct{}), gone: make(chan struct{}, maxInflight)}
	l.armTimer = time.AfterFunc(time.Hour, l.armLate)
	l.armTimer.Stop()
	l.paceTimer = time.AfterFunc(time.Hour, l.paced)
	l.paceTimer.Stop()
	procsOnce.Do(func() {
		procsBase, procsFixed = runtime.GOMAXPROCS(0), os.Getenv("GOMAXPROCS") != ""
	})
	l.procs = procsBase
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}); err != nil {
		l.closeFds()
		return nil, err
	}
	if l.ep2, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		l.closeFds()
		return nil, err
	}
	if err = unix.EpollCtl(l.ep2, unix.EPOLL_CTL_ADD, ep, &unix.EpollEvent{Events: 0, Fd: int32(ep)}); err != nil {
		l.closeFds()
		return nil, err
	}
	for _, p := range []*int{&l.stopFd, &l.nudgeFd} {
		if *p, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
			l.closeFds()
			return nil, err
		}
		if err = unix.EpollCtl(l.ep2, unix.EPOLL_CTL_ADD, *p, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(*p)}); err != nil {
			l.closeFds()
			return nil, err
		}
	}
	if err := l.epw.init(l.ep); err != nil {
		l.closeFds()
		return nil, err
	}
	if err := l.ep2w.init(l.ep2); err != nil {
		l.closeFds()
		return nil, err
	}
	return l, nil
}

func (l *netLoop) closeFds() {
	for _, p := range []struct {
		fd int
		w  *parkedEpoll
	}{{l.ep, &l.epw}, {l.efd, nil}, {l.ep2, &l.ep2w}, {l.stopFd, nil}, {l.nudgeFd, nil}} {
		if p.w != nil && p.w.f != nil {
			p.w.f.Close() // the runtime's poller lets go of it first
		} else if p.fd >= 0 {
			unix.Close(p.fd)
		}
	}
}

// parkedEpoll waits on one of the loop's epoll sets by parking the
// goroutine in the runtime's poller, where the set is registered like a
// socket (an epoll descriptor is readable while it has events), instead of
// blocking a thread in epoll_wait. A thread blocked in a system call keeps
// its P: with the loop in epoll_wait and a syncer in fdatasync both Ps of
// a 2-CPU server are in system calls, sysmon takes one back at its next
// 20 µs tick (handoffp then wakes a spinning thread that finds nothing)
// and goes on polling every 20 µs; at 50 clients under always that was
// ~36k nanosleeps and ~6k futex wake-ups per 50k SETs, a fifth of the
// server's CPU. A parked goroutine holds no P and no thread.
type parkedEpoll struct {
	fd   int
	f    *os.File
	rc   syscall.RawConn
	dead bool // a deadline is set

	// The poller's callback and what it leaves for wait, made once: a
	// closure over wait's locals would be allocated at every wait, the
	// most frequent garbage of a loaded server.
	// Several standbys wait on ep2 at once (fsyncs in flight together),
	// so mu makes each wait's use of them whole: the fd's read lock only
	// covers the callback, and a standby could otherwise read another's
	// n or have its events written into another's evs.
	mu    sync.Mutex
	evs   []unix.EpollEvent
	n     int
	err   error
	ready func(uintptr) bool
}

func (w *parkedEpoll) init(fd int) error {
	w.fd = fd
	if err := unix.SetNonblock(fd, true); err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), "epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return err
	}
	// The poller must have taken it: a deadline can only be set then.
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		f.Close()
		return err
	}
	w.f, w.rc = f, rc
	w.ready = func(uintptr) bool {
		w.n, w.err = unix.EpollWait(w.fd, w.evs, 0)
		return w.n > 0 || (w.err != nil && w.err != unix.EINTR)
	}
	return nil
}

// wait is epoll_wait(fd, evs, timeoutMs): -1 waits for ever.
func (w *parkedEpoll) wait(evs []unix.EpollEvent, timeoutMs int) (int, error) {
	if timeoutMs == 0 {
		return unix.EpollWait(w.fd, evs, 0)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if timeoutMs > 0 {
		w.f.SetReadDeadline(time.Now().Add(time.Duration(timeoutMs) * time.Millisecond))
		w.dead = true
	} else if w.dead {
		w.f.SetReadDeadline(time.Time{})
		w.dead = false
	}
	w.evs = evs
	rerr := w.rc.Read(w.ready)
	w.evs = nil
	if rerr != nil {
		if errors.Is(rerr, os.ErrDeadlineExceeded) {
			return 0, nil
		}
		return 0, rerr
	}
	return w.n, w.err
}

// newNetLoops makes the loop (at Listen, before data loading can open an
// AOF). Our directive netloop no serves each connection on a goroutine of
// its own instead, for comparison.
func (s *Server) newNetLoops() {
	if !s.cfg.NetLoop || s.loop != nil {
		return
	}
	l, err := newNetLoop(s)
	if err != nil {
		s.log.Warn().Msgf("Network loop unavailable, serving each connection on its own goroutine: %v", err)
		return
	}
	s.loop = l
}

func (s *Server) startNetLoops() {
	if l := s.loop; l != nil {
		l.token.Lock()
		l.workers = 2
		go l.work(true)
		go l.work(false)
	}
}

// work is one of the loop's two goroutines: it runs the loop while it
// holds the token, and waits as the standby otherwise.
func (l *netLoop) work(loop bool) {
	for {
		if loop && l.run() {
			return
		}
		if !l.standby() {
			l.gone <- struct{}{}
			return
		}
		loop = true
	}
}

// standby sleeps until the loop may need this goroutine: the loop's epoll
// set has events while the loop goroutine is in fsync (armed), or a nudge.
// True: it now holds the token; false: stop.
func (l *netLoop) standby() bool {
	var evs [4]unix.EpollEvent
	for {
		l.mu.Lock()
		stop := l.stop
		l.mu.Unlock()
		if stop {
			return false
		}
		n, err := l.ep2w.wait(evs[:], -1)
		if err != nil && err != unix.EINTR {
			l.s.log.Warn().Msgf("epoll_wait: %v", err)
			time.Sleep(time.Millisecond)
			continue
		}
		for i := 0; i < n; i++ {
			if int(evs[i].Fd) == l.nudgeFd {
				var b [8]byte
				unix.Read(l.nudgeFd, b[:])
			}
		}
		if n > 0 && l.token.TryLock() {
			l.tookLoop()
			l.takes.Add(1)
			return true
		}
	}
}

// standbyDelay is how long a lone syncer's fsync runs before the standby
// may take the loop over. Under always, what clients send during an fsync
// cannot be answered before the next one anyway; reading it the moment it
// arrives (the standby armed for the whole fsync) cost a thread wake-up
// per request and, at 50 clients on a 2-CPU server pinned to one CPU,
// 11-12 µs of CPU per SET against 9-10 with the requests read together
// once the fsync is done, as Redis does, for no more SET/s. Past the
// delay, a slow or stuck disk (network storage, a full queue) no longer
// keeps commands from executing: the standby takes the loop over.
const standbyDelay = time.Millisecond

// standbyAfter is standbyDelay, which a test may lengthen (a loaded
// machine can hold a quick fsync's goroutine off its CPU for longer than
// standbyDelay, and a test of what the loop does per request must not
// count those).
var standbyAfter atomic.Int64

func init() { standbyAfter.Store(int64(standbyDelay)) }

// armLate arms the standby once the lone syncer's fsync has run
// standbyDelay, if the loop is still unattended.
func (l *netLoop) armLate() {
	l.mu.Lock()
	if l.inFsync > 0 && l.loopFree && l.fsyncStart != 0 && monoNow()-l.fsyncStart >= standbyAfter.Load() {
		l.setArmed(true)
	}
	l.mu.Unlock()
}

// setArmed lets the loop's epoll set wake the standby (on) or not. Its
// entry in ep2 stays: a MOD costs no allocation, and one with no events
// asked for is never reported. Called with l.mu held.
func (l *netLoop) setArmed(on bool) {
	if on == l.armed {
		return
	}
	var ev uint32
	if on {
		ev = unix.EPOLLIN
	}
	if err := unix.EpollCtl(l.ep2, unix.EPOLL_CTL_MOD, l.ep, &unix.EpollEvent{Events: ev, Fd: int32(l.ep)}); err != nil {
		if on {
			l.nudge() // the standby takes the loop over at once
		}
		return
	}
	l.armed = on
}

// tookLoop is called by a goroutine that has just taken the token: the
// loop is attended again, so events no longer need to wake a standby.
func (l *netLoop) tookLoop() {
	l.mu.Lock()
	l.loopFree = false
	l.setArmed(false)
	l.mu.Unlock()
}

func (l *netLoop) nudge() {
	var one = [8]byte{1}
	unix.Write(l.nudgeFd, one[:])
}

func (s *Server) stopNetLoops() {
	if l := s.loop; l != nil {
		l.mu.Lock()
		l.stop = true
		l.mu.Unlock()
		l.wake()
		<-l.done
		l.procsFor(1)
	}
}

func (l *netLoop) wake() {
	if l.woken.Swap(true) {
		return
	}
	var one = [8]byte{1}
	unix.Write(l.efd, one[:])
}

// ackHook is installed on every AOF the server opens.
func (l *netLoop) ackHook() {
	if l.heldWait.Load() && !l.inAck.Load() {
		l.wake()
	}
}

// adopt takes a registered client's connection into the loop. It reports
// false if the connection could not be taken (it is then served on its
// goroutine as before).
func (l *netLoop) adopt(c *client, nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	s := l.s
	// Under s.mu: CLIENT KILL and Shutdown close c.conn under it too, so
	// either nc is closed already (Control fails) or they will close lc.
	fd := -1
	s.mu.Lock()
	cerr := rc.Control(func(f uintptr) {
		fd, err = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil || err != nil || fd < 0 {
		s.mu.Unlock()
		return false
	}
	lc := &loopConn{l: l, c: c, fd: fd, raddr: nc.RemoteAddr(), laddr: nc.LocalAddr()}
	c.lc = lc
	c.conn = lc
	s.mu.Unlock()
	// The runtime's poller lets go of its descriptor; ours shares the open
	// socket (non-blocking already).
	nc.Close()

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop {
		lc.closed.Store(true)
		unix.Close(fd)
		c.lc = nil
		go l.release(c)
		return true
	}
	if lc.closed.Load() {
		return true // killed already: the loop closes it with the kill
	}
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
		s.log.Warn().Msgf("epoll_ctl: %v", err)
		l.kills = append(l.kills, c)
		lc.closed.Store(true)
		l.wake()
		return true
	}
	l.conns[int32(fd)] = c
	return true
}

// run is the loop, run while holding the token. It returns true at stop,
// false when this goroutine synced and the standby took the loop over.
func (l *netLoop) run() bool {
	var lastIdle time.Time
	lastYield := monoNow()
	for {
		// Under load the loop goroutine may not park for long stretches
		// (parkedEpoll finds events ready at every wait), so its P's
		// schedule tick would stand still: after 10 ms the runtime's
		// sysmon preempts it, and the next system call wakes sysmon to
		// poll every 20 µs again (when the loop still blocked in
		// epoll_wait, at one client, an eighth of the server's CPU). A yield every 4 ms moves the tick on, well inside
		// sysmon's 10 ms; not more often, as each one wakes an idle thread
		// (Gosched's wakep), a quarter of a context switch per request at
		// one client under always when done every millisecond.
		if now := monoNow(); now-lastYield >= int64(4*time.Millisecond) {
			lastYield = now
			runtime.Gosched()
		}
		l.iter.Add(1)
		timeout := -1
		if l.anyMore {
			timeout = 0 // read the rest of a long pipeline now
		} else if l.walking != nil {
			timeout = 0
			if l.walkFull {
				timeout = 1
			}
		} else if len(l.held) > 0 || l.s.idleTimeout.Load() > 0 {
			timeout = 100
		}
		n, err := l.epw.wait(l.evs, timeout)
		if err != nil && err != unix.EINTR {
			l.s.log.Warn().Msgf("epoll_wait: %v", err)
			time.Sleep(time.Millisecond)
			continue
		}
		l.s.replBatch(true)
		for i := 0; i < n; i++ {
			fd := l.evs[i].Fd
			if int(fd) == l.efd {
				// Drain, then clear: cleared first, a wake landing in
				// between would be drained with woken left true, and
				// every later wake (stop included) skipped. Cleared
				// after, a wake skipped meanwhile is still seen: kills,
				// stop and acks are checked below.
				var b [8]byte
				unix.Read(l.efd, b[:])
				l.woken.Store(false)
				continue
			}
			l.mu.Lock()
			c := l.conns[fd]
			l.mu.Unlock()
			if c != nil && c.lc != nil {
				l.serve(c)
			}
		}
		l.s.replBatch(false)
		if l.handleKills() {
			close(l.done)
			return true
		}
		l.handleAsyncs()
		l.takeReturned()
		if l.walking != nil {
			l.walkStep()
		}
		l.anyMore = false // ackHeld says whether a held client is read on
		if len(l.held) > 0 {
			l.heldWait.Store(true)
			if l.ackHeld() {
				return false // the standby runs the loop now
			}
			l.flushHeld()
			l.heldWait.Store(len(l.held) > 0)
		}
		if l.s.idleTimeout.Load() > 0 {
			if now := time.Now(); now.Sub(lastIdle) >= time.Second {
				lastIdle = now
				l.closeIdle()
			}
		}
	}
}

// handleKills closes the connections CLIENT KILL & co. asked for; on stop
// it closes them all and reports true.
func (l *netLoop) handleKills() bool {
	l.mu.Lock()
	kills := l.kills
	l.kills = nil
	stop := l.stop
	if l.walk != nil {
		l.walking, l.walk = l.walk, nil
	}
	l.mu.Unlock()
	var all []*client
	if stop {
		l.waitSyncer()
		l.mu.Lock()
		for _, c := range l.conns {
			all = append(all, c)
		}
		l.mu.Unlock()
	}
	for _, c := range kills {
		if c.lc != nil {
			l.closeClient(c)
		}
	}
	for _, c := range all {
		if c.lc != nil {
			l.closeClient(c)
		}
	}
	if stop {
		var one = [8]byte{1}
		unix.Write(l.stopFd, one[:])
		l.mu.Lock()
		others := l.workers - 1
		l.mu.Unlock()
		for range others {
			<-l.gone // the other workers, which no longer sync
		}
		l.closeFds()
		if l.walking != nil {
			go l.s.walk(l.walking) // the walk must end: its marks
		}
	}
	return stop
}

// walkOnLoop hands a snapshot walk to the loop, which steps it between
// iterations; false if the loop cannot take it.
func (s *Server) walkOnLoop(sn *snapshot) bool {
	l := s.loop
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop || l.walk != nil || l.walking != nil {
		return false
	}
	l.walk = sn
	l.wake()
	return true
}

// walkStep advances the walk by one step unless the child's queue is full.
func (l *netLoop) walkStep() {
	sn := l.walking
	if l.walkFull = sn.out.Pending() >= walkHighWater; l.walkFull {
		return
	}
	var done bool
	done, l.walkSpare, _ = l.s.walkOnce(sn, l.walkSpare, walkLoopBudget)
	if done {
		l.mu.Lock()
		l.walking = nil
		l.mu.Unlock()
		l.walkSpare = persist.Batch{}
	}
}

// closeIdle applies `timeout` to idle loop clients (Redis's clientsCron).
func (l *netLoop) closeIdle() {
	secs := time.Duration(l.s.idleTimeout.Load()) * time.Second
	now := time.Now()
	l.mu.Lock()
	var idle []*client
	for _, c := range l.conns {
		if lc := c.lc; lc != nil && c.connFlags&(flagPubSub|flagMonitor) == 0 && now.UnixNano()-c.lastInter.Load() > int64(secs) {
			lc.mu.Lock()
			held := lc.held
			lc.mu.Unlock()
			if !held {
				idle = append(idle, c)
			}
		}
	}
	l.mu.Unlock()
	for _, c := range idle {
		l.s.log.Debug().Msg("Closing idle client")
		l.closeClient(c)
	}
}

// serve reads what the client sent, runs the complete requests and sends
// the replies (or holds them at the barrier).
func (l *netLoop) serve(c *client) {
	s := l.s
	lc := c.lc
	lc.mu.Lock()
	reading := lc.held && lc.more
	if lc.held && !reading {
		// Replies are waiting for the disk: read more only after they
		// leave (level-triggered epoll would spin meanwhile).
		if !lc.inOff {
			unix.EpollCtl(l.ep, unix.EPOLL_CTL_MOD, lc.fd, &unix.EpollEvent{Events: 0, Fd: int32(lc.fd)})
			lc.inOff = true
		}
		lc.mu.Unlock()
		return
	}
	lc.mu.Unlock()
	buf, err := c.rd.Space()
	if err != nil {
		s.mu.Lock()
		s.log.Warn().Msgf("Closing client that reached max query buffer length: %s", c.infoLine())
		s.mu.Unlock()
		l.closeClient(c)
		return
	}
	n, err := unix.Read(lc.fd, buf)
	if n <= 0 {
		if err == unix.EAGAIN || err == unix.EINTR {
			return
		}
		s.stats.totalReads.Add(1)
		l.closeClient(c) // EOF or error
		return
	}
	full := n == len(buf)
	c.rd.Read(n)
	s.stats.netInput.Add(int64(n))
	s.stats.totalReads.Add(1)
	c.lastInter.Store(time.Now().UnixNano())
	perr := c.rd.Parse()
	if reading && c.rd.NCmds() == 0 {
		l.readOn(c, perr, full) // the middle of a long command
		return
	}
	if c.rd.NCmds() > 0 {
		var lastA *aof.AOF
		nc := c.rd.NCmds()
		for i := 0; i < nc; {
			var a *aof.AOF
			var ok bool
			i, a, ok = s.execChunk(c, i, nc)
			if !ok {
				l.closeClient(c)
				return
			}
			if a != nil {
				lastA = a
			}
			blocked := c.connFlags&flagBlocked != 0
			if blocked || c.yield || c.lc == nil {
				// Continues on a goroutine of its own, from command i.
				c.yield = false
				l.handOff(c, i, lastA, blocked, perr)
				return
			}
		}
		if reading {
			if lastA != nil && lastA != lc.heldA {
				// appendonly switched mid-pipeline: offsets are the new
				// file's, as for a batch that spans the switch.
				lc.heldA, lc.heldOff, lc.heldStart = lastA, c.waitOff, c.waitOff
			}
			lc.heldOff = max(lc.heldOff, c.waitOff)
			l.readOn(c, perr, full)
			return
		}
		if lastA != nil && !lastA.Durable(c.waitOff) {
			// Written (or fsynced) once for the whole iteration, then
			// sent: see ackHeld.
			lc.mu.Lock()
			lc.held = true
			lc.mu.Unlock()
			lc.heldOff, lc.heldA, lc.perr = c.waitOff, lastA, perr
			lc.heldStart = c.waitOff
			l.held = append(l.held, c)
			l.readOn(c, perr, full)
			return
		}
	}
	l.finish(c, perr)
}

// moreOutMax and moreAOFMax bound the replies a client being read on may
// pile up, and the AOF bytes its commands may feed before their fsync.
const (
	moreOutMax = 256 << 10
	moreAOFMax = 4 << 20
)

// readOn decides whether a held client is read again before its fsync:
// under always, when its last read filled the buffer or ended inside a
// command (a long pipeline, or a big value, with more on the way), as long
// as its replies and AOF bytes stay bounded.
func (l *netLoop) readOn(c *client, perr error, full bool) {
	lc := c.lc
	if perr != nil {
		lc.perr = perr
	}
	more := (full || c.rd.Partial()) && lc.perr == nil && lc.heldA != nil && lc.heldA.Blocks() &&
		c.connFlags&(flagCloseAfterReply|flagCloseASAP) == 0 &&
		withinReadOn(len(c.out), int64(lc.heldOff-lc.heldStart))
	if more {
		c.rd.Reset() // executed: the next read starts a new batch
	}
	lc.more, lc.moreIter = more, l.iter.Load() // loop-owned: no lc.mu
}

// withinReadOn reports whether a client with out bytes of held replies,
// whose held commands fed aofBytes, may be read on.
func withinReadOn(out int, aofBytes int64) bool {
	return out < moreOutMax && aofBytes < moreAOFMax
}

// readingOn reports whether held client c is still being read on (it was
// read in this iteration, and filled the buffer); otherwise it ends that.
func (l *netLoop) readingOn(c *client) bool {
	lc := c.lc
	if !lc.more {
		return false
	}
	if lc.moreIter == l.iter.Load() {
		return true
	}
	lc.more = false
	return false
}

// finish sends the batch's replies and readies the reader for the next.
func (l *netLoop) finish(c *client, perr error) {
	if perr != nil {
		var pe *resp.ProtocolError
		if errors.As(perr, &pe) {
			l.s.reportProtocolError(c, pe)
		}
		l.write(c)
		l.closeClient(c)
		return
	}
	if len(c.out) > 0 && !l.write(c) {
		return
	}
	c.rd.Reset()
	if c.connFlags&(flagCloseAfterReply|flagCloseASAP) != 0 {
		l.closeClient(c)
	}
}

// write sends c.out. A reply the socket cannot take at once goes on on a
// goroutine (handOff with the rest of the output); false means the loop no
// longer owns c.
func (l *netLoop) write(c *client) bool {
	done, err := l.sendOut(c)
	if done {
		return true
	}
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		l.closeClient(c)
		return false
	}
	c.rd.Reset()
	l.handOffWrite(c)
	return false
}

// sendOut writes c.out with one write(2) (writeReplies), for the loop and
// its syncer: done when all of it went; otherwise c.out keeps the rest.
func (l *netLoop) sendOut(c *client) (done bool, err error) {
	n, err := l.s.writeReplies(c, c.out)
	if n == len(c.out) {
		c.wroteReplies()
		return true, nil
	}
	if n > 0 {
		c.out = c.out[:copy(c.out, c.out[n:])]
		c.outHeld.Store(int64(len(c.out)))
	}
	return false, err
}

// ackHeld asks the AOF for the held replies' tickets once for the whole
// iteration (Redis's beforeSleep): what needs no disk wait (a write, under
// everysec and no) is done here, on the loop; what needs an fsync makes
// this goroutine the syncer (true: the standby took the loop over
// meanwhile), or the running syncer takes it next. flushHeld sends what is
// durable.
func (l *netLoop) ackHeld() bool {
	l.inAck.Store(true)
	var a *aof.AOF
	var off aof.Ticket
	sync := false
	for _, c := range l.held {
		lc := c.lc
		if lc == nil || !lc.held {
			continue
		}
		if l.readingOn(c) {
			l.anyMore = true
			continue
		}
		if a != nil && lc.heldA != a {
			_, s := a.Progress(off)
			sync = sync || s
			off = 0
		}
		a = lc.heldA
		off = max(off, lc.heldOff)
	}
	if a != nil {
		_, s := a.Progress(off)
		sync = sync || s
	}
	l.inAck.Store(false)
	if sync {
		return l.toSyncer()
	}
	return false
}

// toSyncer hands the held clients not yet acknowledged to a syncer: to a
// running one when as many as allowed run, to a new goroutine when several
// may (overlap), or else to this goroutine, which lets go of the token for
// the length of the fsync with the standby armed, and reports whether the
// standby took the loop over meanwhile. flushHeld sends the others.
func (l *netLoop) toSyncer() bool {
	var batch []*client
	k := 0
	for _, c := range l.held {
		lc := c.lc
		if lc == nil || !lc.held {
			continue
		}
		if lc.more || lc.heldA.Durable(lc.heldOff) || lc.heldA.Term() != nil {
			l.held[k] = c
			k++
			continue
		}
		lc.mu.Lock()
		lc.syncer = true
		lc.mu.Unlock()
		batch = append(batch, c)
	}
	clear(l.held[k:])
	l.held = l.held[:k]
	if len(batch) == 0 {
		return false
	}
	l.mu.Lock()
	a := batch[0].lc.heldA
	inflight := l.s.aofInflight(a)
	if inflight > 1 {
		return l.toOverlapSyncer(batch, a, inflight)
	}
	if l.nsync >= inflight {
		l.syncQ = append(l.syncQ, batch...)
		l.mu.Unlock()
		return false
	}
	l.nsync++
	l.procsFor(1)
	if l.workers-l.nsync < 1 {
		// No standby would be left to take the loop over: one more.
		l.workers++
		go l.work(false)
	}
	l.mu.Unlock()
	l.flushHeld()
	l.heldWait.Store(len(l.held) > 0)
	walking := l.walking != nil
	l.mu.Lock()
	l.loopFree = true
	l.setArmed(l.inFsync > 0)
	l.mu.Unlock()
	l.token.Unlock()
	if walking {
		l.nudge() // the walk goes on meanwhile
	}
	l.syncRounds(batch)
	if !l.token.TryLock() {
		return true
	}
	l.tookLoop()
	return false
}

// toOverlapSyncer is toSyncer with several fsyncs in flight (a flush of
// 400 µs or more of device time), called with l.mu held: this goroutine
// keeps the loop and a new one fsyncs and replies, so that what clients
// send meanwhile is read and gets an fsync of its own soon. Handing the
// loop to the standby instead left about a third of requests waiting two
// flushes: the standby, parked on ep2 with ep armed in it, was seldom
// woken by a request arriving during an fsync (the nested epoll set's
// readiness did not reach the runtime's poller), so those requests were
// read only when a syncer came back from its fsync. A go statement per
// fsync costs ~1 µs against a flush of 400 µs or more; with one in flight
// (fast or CPU-bound flush) the hand-off stays, as Redis's beforeSleep.
//
// Once half the slots are taken, the starts are spaced by the flush time
// over inflight (paceMin at least): started at every iteration, the first few groups after a lull
// filled every slot within a fraction of a flush, and the groups executed
// next waited for the first of those fsyncs to end, most of a flush (at
// 5 ms and 50 clients, 8 in flight: a request waited 0.6-1 ms on average
// between its execution and its fsync's start, up to a fifth of them over
// 2 ms). Spaced,
// a group waits at most the spacing, and as long as the slots last the
// starts spread over the flush instead of bunching at its beginning. A
// group that may not start yet waits in syncQ for the timer (paced) or
// for a syncer that ends its round, whichever comes first. With slots to
// spare (fewer clients than slots) spacing only delays: 8 clients at
// 5 ms made 1,410 SET/s spaced from the first slot, 1,460 from the
// ninth (unspaced, 8 slots: 1,460; the limit is 1,570).
func (l *netLoop) toOverlapSyncer(batch []*client, a *aof.AOF, inflight int) bool {
	if l.nsync >= inflight || l.pacing {
		l.syncQ = append(l.syncQ, batch...)
		l.mu.Unlock()
		return false
	}
	now := monoNow()
	if next := l.lastStart + max(int64(a.FlushTime())/int64(inflight), int64(paceMin)); now < next && 2*l.nsync >= inflight {
		l.syncQ = append(l.syncQ, batch...)
		l.pacing = true
		l.nsync++ // the timer's round: waitSyncer waits for it
		l.paceTimer.Reset(time.Duration(next - now))
		l.mu.Unlock()
		return false
	}
	l.lastStart = now
	l.nsync++
	l.mu.Unlock()
	l.procsFor(inflight)
	go l.syncRounds(batch)
	return false
}

// paceMin is the least spacing of overlapped fsync starts. Each costs
// the server a goroutine, and a thread that sleeps in the fsync and wakes
// for the replies (about four context switches): with a 1 ms flush,
// spaced by a sixteenth, 50 clients made up to 16k fsyncs a second for
// 27-30k SET/s and 16-17 µs of CPU per SET; 150 µs bounds them to 6.7k,
// and a group waits at most that long for its fsync to begin.
const paceMin = 150 * time.Microsecond

// paced starts the syncer round toOverlapSyncer deferred, with what
// waits in syncQ then (nothing if a syncer ending its round took it).
func (l *netLoop) paced() {
	l.mu.Lock()
	l.pacing = false
	batch := l.syncQ
	l.syncQ = nil
	if len(batch) == 0 {
		l.nsync--
		l.mu.Unlock()
		return
	}
	l.lastStart = monoNow()
	l.mu.Unlock()
	l.syncRounds(batch)
}

// procsFor gives the runtime a P for each of inflight syncers beside the
// loop's (the process's GOMAXPROCS at start when inflight is 1), unless
// GOMAXPROCS is set. A thread in fdatasync keeps its P until sysmon takes
// it back, and sysmon sleeps up to 10 ms when it finds little to do: with
// three Ps and several syncers in fsync at once the loop's goroutine,
// woken by a request, waited for a P that long, and the request for the
// next flush. Measured with the stand-in disk (bench_fsync_model.sh) at
// 8 clients, 5 ms flush: 1,250 -> 1,460 SET/s (the limit is 1,570); at
// 1 ms: 5,300 -> 6,500. Only the device-bound regime has several in
// flight, where CPU is not what limits. Called on the goroutine holding
// the token (or at stop); changing GOMAXPROCS stops the world, so only
// on a change of mode. procsBase is the process's GOMAXPROCS when the
// first loop was made (tests run several servers in one process). At
// most procsExtraMax more: every P costs CPU even idle (a readied
// goroutine wakes a spinning thread that looks through them all): with 16
// more at 5 ms one client cost 260 µs of server CPU per SET against 90
// with 8, for the same SET/s; sysmon takes the Ps of the other syncers
// back.
func (l *netLoop) procsFor(inflight int) {
	if procsFixed {
		return
	}
	want := procsBase
	if inflight > 1 {
		want += min(inflight, procsExtraMax)
	}
	if want != l.procs {
		l.procs = want
		runtime.GOMAXPROCS(want)
	}
}

const procsExtraMax = 8

var (
	procsOnce  sync.Once
	procsBase  int
	procsFixed bool
)

// syncRounds is the syncer: fsync, reply, and again while the loop hands
// over more held clients.
func (l *netLoop) syncRounds(batch []*client) {
	for {
		a := batch[0].lc.heldA
		var off aof.Ticket
		for _, c := range batch {
			if c.lc.heldA == a {
				off = max(off, c.lc.heldOff)
			}
		}
		// Armed only for the fsync: a client that sends its next request
		// the moment it reads its reply must find this goroutine back in
		// the loop, not wake the standby. With one fsync in flight, armed
		// only once it has run standbyDelay (armLate).
		l.mu.Lock()
		l.inFsync++
		overlap := l.nsync > 1 || l.s.aofInflight(a) > 1
		if overlap {
			l.setArmed(l.loopFree)
		} else {
			l.fsyncStart = monoNow()
			l.armTimer.Reset(time.Duration(standbyAfter.Load()))
		}
		l.mu.Unlock()
		err := a.Sync(off, overlap)
		if !overlap {
			l.armTimer.Stop()
		}
		l.mu.Lock()
		l.inFsync--
		l.fsyncStart = 0
		l.setArmed(l.inFsync > 0 && l.loopFree)
		l.mu.Unlock()
		var back []*client
		for _, c := range batch {
			if err != nil || !l.replyFromSyncer(c) {
				c.lc.mu.Lock()
				c.lc.syncer = false
				c.lc.mu.Unlock()
				back = append(back, c)
			}
		}
		l.mu.Lock()
		l.returned = append(l.returned, back...)
		batch = l.syncQ
		l.syncQ = nil
		if len(batch) == 0 {
			l.nsync--
		} else {
			l.lastStart = monoNow()
		}
		l.mu.Unlock()
		if len(back) > 0 {
			l.wake()
		}
		if len(batch) == 0 {
			return
		}
	}
}

// replyFromSyncer sends a held client's replies and gives it back to the
// loop, when nothing more than that is to be done; false leaves the rest
// (protocol error, close after reply, a kill, a partial write, more
// input pending) to the loop.
func (l *netLoop) replyFromSyncer(c *client) bool {
	lc := c.lc
	if lc.perr != nil || c.connFlags&flagCloseAfterReply != 0 || !lc.heldA.Durable(lc.heldOff) {
		return false
	}
	if len(c.out) > 0 {
		if done, _ := l.sendOut(c); !done {
			return false
		}
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.killReq {
		return false
	}
	c.rd.Reset()
	if lc.inOff {
		// It sent more while held (often: the moment it read the reply).
		lc.inOff = false
		unix.EpollCtl(l.ep, unix.EPOLL_CTL_MOD, lc.fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(lc.fd)})
	}
	lc.heldA = nil
	lc.held = false
	lc.syncer = false
	return true
}

// takeReturned puts the clients the syncer gave back with the held ones
// (flushHeld finishes them), or closes them.
func (l *netLoop) takeReturned() {
	l.mu.Lock()
	back := l.returned
	l.returned = nil
	l.mu.Unlock()
	for _, c := range back {
		lc := c.lc
		if lc == nil {
			continue
		}
		lc.mu.Lock()
		kill := lc.killReq
		lc.killReq = false
		lc.mu.Unlock()
		if kill {
			l.closeClient(c)
			continue
		}
		l.held = append(l.held, c)
	}
}

// waitSyncer waits (at stop) until no syncer runs.
func (l *netLoop) waitSyncer() {
	for {
		l.mu.Lock()
		busy := l.nsync > 0
		l.mu.Unlock()
		if !busy {
			l.takeReturned()
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// flushHeld sends the held replies whose AOF bytes are now acknowledged.
func (l *netLoop) flushHeld() {
	k := 0
	for _, c := range l.held {
		lc := c.lc
		if lc == nil || !lc.held {
			continue
		}
		if !lc.heldA.Durable(lc.heldOff) {
			if lc.heldA.Term() != nil {
				l.closeClient(c)
				continue
			}
			l.held[k] = c
			k++
			continue
		}
		lc.mu.Lock()
		lc.held = false
		lc.more = false
		lc.mu.Unlock()
		if lc.inOff {
			lc.inOff = false
			unix.EpollCtl(l.ep, unix.EPOLL_CTL_MOD, lc.fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(lc.fd)})
		}
		perr := lc.perr
		lc.perr, lc.heldA = nil, nil
		l.finish(c, perr)
	}
	clear(l.held[k:])
	l.held = l.held[:k]
}

// detach turns c's connection back into a net.Conn served by the runtime's
// poller; the loop forgets it. Called on the loop goroutine, with s.mu
// held (c.conn changes).
func (l *netLoop) detach(c *client) bool {
	lc := c.lc
	l.mu.Lock()
	delete(l.conns, int32(lc.fd))
	l.mu.Unlock()
	unix.EpollCtl(l.ep, unix.EPOLL_CTL_DEL, lc.fd, nil)
	c.lc = nil
	if lc.closed.Load() {
		unix.Close(lc.fd)
		return false
	}
	f := os.NewFile(uintptr(lc.fd), "client")
	nc, err := net.FileConn(f) // dups the descriptor (close-on-exec)
	f.Close()
	if err != nil {
		lc.closed.Store(true)
		return false
	}
	c.conn = nc
	return true
}

// detachLocked is detach for code running a command of c (s.mu held), e.g.
// SUBSCRIBE switching c to asynchronous output.
func (c *client) detachLocked() {
	if c.lc != nil {
		if !c.lc.l.detach(c) {
			c.connFlags |= flagCloseASAP
			c.flags |= flagCloseASAP
		}
	}
}

// requestAsync asks the loop to hand c to a goroutine of its own with
// asynchronous output: another client's command has a message for it (a
// client-side caching invalidation redirected to it). Under s.mu.
func (c *client) requestAsync() {
	l := c.lc.l
	l.mu.Lock()
	l.asyncs = append(l.asyncs, c)
	l.mu.Unlock()
	l.wake()
}

// handleAsyncs serves requestAsync: each client leaves the loop between
// its batches (one whose replies wait at the AOF barrier is retried at
// the next iteration) and its pushes start flowing.
func (l *netLoop) handleAsyncs() {
	l.mu.Lock()
	as := l.asyncs
	l.asyncs = nil
	l.mu.Unlock()
	s := l.s
	for _, c := range as {
		lc := c.lc
		if lc == nil {
			continue // left or closed meanwhile
		}
		lc.mu.Lock()
		busy := lc.held || lc.syncer
		lc.mu.Unlock()
		if busy {
			l.mu.Lock()
			l.asyncs = append(l.asyncs, c)
			l.mu.Unlock()
			continue
		}
		s.mu.Lock()
		ok := l.detach(c)
		if ok {
			c.startPushWriter()
		}
		s.mu.Unlock()
		if !ok {
			l.release(c)
			continue
		}
		go func() {
			defer s.releaseConn(c)
			s.connLoop(c)
		}()
	}
}

// leave detaches c for a goroutine of its own; false means its connection
// was closed meanwhile and c has been freed.
func (l *netLoop) leave(c *client) bool {
	l.s.mu.Lock()
	ok := l.detach(c)
	l.s.mu.Unlock()
	if !ok {
		l.release(c)
	}
	return ok
}

// handOff continues c on a goroutine of its own from command i of the
// parsed batch (blocked: command i-1 left it blocked).
func (l *netLoop) handOff(c *client, i int, lastA *aof.AOF, blocked bool, perr error) {
	s := l.s
	if c.lc != nil && !l.leave(c) {
		return
	}
	go func() {
		defer s.releaseConn(c)
		if !s.runBatchFrom(c, i, lastA, blocked) {
			return
		}
		if s.afterBatch(c, perr) {
			s.connLoop(c)
		}
	}()
}

// handOffWrite continues c on a goroutine of its own that first sends the
// rest of c.out.
func (l *netLoop) handOffWrite(c *client) {
	s := l.s
	if !l.leave(c) {
		return
	}
	go func() {
		defer s.releaseConn(c)
		if !s.flushOut(c) || c.connFlags&flagCloseAfterReply != 0 {
			return
		}
		s.connLoop(c)
	}()
}

// closeClient closes a loop-owned connection and frees the client.
func (l *netLoop) closeClient(c *client) {
	lc := c.lc
	if lc == nil {
		return
	}
	lc.mu.Lock()
	if lc.syncer {
		lc.killReq = true // closed when the syncer gives it back
		lc.mu.Unlock()
		return
	}
	lc.held = false
	lc.mu.Unlock()
	c.lc = nil
	lc.closed.Store(true)
	l.mu.Lock()
	delete(l.conns, int32(lc.fd))
	unix.Close(lc.fd) // also leaves the epoll set; under l.mu, see adopt
	l.mu.Unlock()
	l.release(c)
}

// release frees a client whose connection is gone.
func (l *netLoop) release(c *client) {
	s := l.s
	s.mu.Lock()
	s.freeClient(c)
	s.mu.Unlock()
	s.nclients.Add(-1)
	c.stopPushWriter()
}

// installAckHook lets an AOF wake the loop when held replies may go.
func (s *Server) installAckHook(a *aof.AOF) {
	if s.loop != nil && a != nil {
		a.SetWakeHook(s.loop.ackHook)
	}
}

// writeNow writes b at once, best effort (the loop never blocks on a
// client).
func (lc *loopConn) writeNow(b []byte) (int, error) {
	return unix.Write(lc.fd, b)
}
