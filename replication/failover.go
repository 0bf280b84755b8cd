package replication

import (
	"strings"
	"sync"
	"time"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/rstring"
	"github.com/rs/zerolog"
)

// FAILOVER as Redis 7.0.15's coordinated failover (replication.c
// failoverCommand, updateFailoverStatus, abortFailover): the master stops
// accepting writes, waits for a replica to have acknowledged its whole
// stream, then becomes that replica's replica with PSYNC ... FAILOVER,
// which makes the target a master continuing the same history.

const (
	noFailover = iota
	failoverWaitForSync
	failoverInProgress
)

var failoverStateNames = [...]string{"no-failover", "waiting-for-sync", "failover-in-progress"}

// FailoverHost is what a failover asks of the master, with its executor
// lock held (the lock is taken by a failover's timeout).
type FailoverHost interface {
	sync.Locker
	// Offset is master_repl_offset.
	Offset() int64
	// Replicas appends the attached replicas.
	Replicas(dst []Peer) []Peer
	// SetMaster makes us a replica of host:port, offering our history
	// (replicationSetMaster with our own cached master).
	SetMaster(host string, port int)
	// UnsetMaster makes a replica a master again, continuing its
	// history; nothing on a master.
	UnsetMaster()
	// Resume lets the writes the failover held back run.
	Resume()
}

// Peer is an attached replica as a failover sees it.
type Peer struct {
	IP     string // the address it announced, else its peer address
	Port   int    // its listening port
	AckOff int64  // the offset it acknowledged
	Online bool
}

// Failover is server.failover_* (under the host's lock).
type Failover struct {
	h     FailoverHost
	log   zerolog.Logger
	state int
	host  string // target_replica_host ("" until one is chosen)
	port  int
	end   time.Time // failover_end_time (zero: no timeout)
	force bool
	timer *time.Timer
}

// Init gives the failover its host and log.
func (f *Failover) Init(h FailoverHost, log zerolog.Logger) { f.h, f.log = h, log }

// Paused reports whether a failover holds writes back
// (PAUSE_DURING_FAILOVER with the write set of actions).
func (f *Failover) Paused() bool { return f.state != noFailover }

// StateName is INFO's master_failover_state.
func (f *Failover) StateName() string { return failoverStateNames[f.state] }

// Command is FAILOVER's: argv the whole command, isReplica whether we
// follow a master. It returns the error reply, or "" for +OK; started:
// a failover began (the caller then asks the replicas for their ACKs and
// calls Update).
func (f *Failover) Command(argv [][]byte, isReplica bool) (errReply string, started bool) {
	if len(argv) == 2 && rstring.EqualFold(argv[1], "abort") {
		if f.state == noFailover {
			return "ERR No failover in progress.", false
		}
		f.Abort("Failover manually aborted")
		return "", false
	}
	var timeout int64
	force, hostGiven := false, false
	var host string
	var port int64
	for j := 1; j < len(argv); j++ {
		switch {
		case rstring.EqualFold(argv[j], "timeout") && j+1 < len(argv) && timeout == 0:
			n, ok := rstring.String2ll(argv[j+1])
			if !ok {
				return command.ErrNotInt, false
			}
			if n <= 0 {
				return "ERR FAILOVER timeout must be greater than 0", false
			}
			timeout = n
			j++
		case rstring.EqualFold(argv[j], "to") && j+2 < len(argv) && !hostGiven:
			n, ok := rstring.String2ll(argv[j+2])
			if !ok {
				return command.ErrNotInt, false
			}
			host, port, hostGiven = string(argv[j+1]), n, true
			j += 2
		case rstring.EqualFold(argv[j], "force") && !force:
			force = true
		default:
			return command.ErrSyntax, false
		}
	}
	peers := f.h.Replicas(nil)
	switch {
	case f.state != noFailover:
		return "ERR FAILOVER already in progress.", false
	case isReplica:
		return "ERR FAILOVER is not valid when server is a replica.", false
	case len(peers) == 0:
		return "ERR FAILOVER requires connected replicas.", false
	case force && (timeout == 0 || !hostGiven):
		return "ERR FAILOVER with force option requires both a timeout and target HOST and IP.", false
	}
	if hostGiven {
		p := findPeer(peers, host, int(port))
		if p == nil {
			return "ERR FAILOVER target HOST and PORT is not a replica.", false
		}
		if !p.Online {
			return "ERR FAILOVER target replica is not online.", false
		}
		f.host, f.port = host, int(port)
		f.log.Info().Msgf("FAILOVER requested to %s:%d.", host, port)
	} else {
		f.log.Info().Msg("FAILOVER requested to any replica.")
	}
	if timeout > 0 {
		f.end = time.Now().Add(time.Duration(timeout) * time.Millisecond)
		f.timer = time.AfterFunc(time.Duration(timeout)*time.Millisecond, func() {
			f.h.Lock()
			f.Update()
			f.h.Unlock()
		})
	}
	f.force = force
	f.state = failoverWaitForSync
	return "", true
}

// findPeer is Redis's findReplica: the replica whose address (the one it
// announced, or its peer address) and listening port are host:port.
func findPeer(peers []Peer, host string, port int) *Peer {
	for i := range peers {
		if peers[i].IP == host && peers[i].Port == port {
			return &peers[i]
		}
	}
	return nil
}

// Update is Redis's updateFailoverStatus: a timeout aborts the failover,
// or with FORCE fails over anyway; a replica that acknowledged the whole
// stream becomes the new master.
func (f *Failover) Update() {
	if f.state != failoverWaitForSync {
		return
	}
	if !f.end.IsZero() && !time.Now().Before(f.end) {
		if f.force {
			f.log.Info().Msgf("FAILOVER to %s:%d time out exceeded, failing over.", f.host, f.port)
			f.state = failoverInProgress
			f.h.SetMaster(f.host, f.port)
			return
		}
		f.Abort("Replica never caught up before timeout")
		return
	}
	var buf [8]Peer
	peers := f.h.Replicas(buf[:0])
	off := f.h.Offset()
	var target *Peer
	if f.host != "" {
		target = findPeer(peers, f.host, f.port)
	} else {
		for i := range peers {
			if peers[i].AckOff == off {
				f.host, f.port = peers[i].IP, peers[i].Port
				target = &peers[i]
				break
			}
		}
	}
	if target != nil && target.AckOff == off {
		f.state = failoverInProgress
		f.log.Info().Msgf("Failover target %s:%d is synced, failing over.", f.host, f.port)
		f.h.SetMaster(f.host, f.port)
	}
}

// Abort is Redis's abortFailover: logged, back to master if the switch
// had begun, writes resumed.
func (f *Failover) Abort(why string) {
	if f.state == noFailover {
		return
	}
	if f.host != "" {
		f.log.Info().Msgf("FAILOVER to %s:%d aborted: %s", f.host, f.port, why)
	} else {
		f.log.Info().Msgf("FAILOVER to any replica aborted: %s", why)
	}
	if f.state == failoverInProgress {
		f.h.UnsetMaster()
	}
	f.clear()
}

// clear ends the failover and lets the held writes run.
func (f *Failover) clear() {
	if f.timer != nil {
		f.timer.Stop()
	}
	f.state, f.host, f.port, f.end, f.force, f.timer = noFailover, "", 0, time.Time{}, false, nil
	f.h.Resume()
}

// PsyncFailover reports whether the link's PSYNC carries FAILOVER: this
// master hands over to its replica.
func (f *Failover) PsyncFailover() bool { return f.state == failoverInProgress }

// PsyncReply is the link's check of the PSYNC reply while failing over
// (syncWithMaster): a +CONTINUE or +FULLRESYNC ends the failover, any
// other reply aborts it. It reports whether the link should go on.
func (f *Failover) PsyncReply(reply string) bool {
	if f.state != failoverInProgress {
		return true
	}
	if strings.HasPrefix(reply, "+CONTINUE") || strings.HasPrefix(reply, "+FULLRESYNC") {
		f.clear()
		return true
	}
	f.Abort("Failover target rejected psync request")
	return false
}
