package server

import (
	"net"
	"strings"
	"time"
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

// failoverState is server.failover_* (under mu).
type failoverState struct {
	state int
	host  string // target_replica_host ("" until one is chosen)
	port  int
	end   time.Time // failover_end_time (zero: no timeout)
	force bool
	timer *time.Timer
}

func init() {
	register(&command{name: "failover", arity: -1, flags: cmdAdmin | cmdNoScript | cmdStale, proc: failoverCommand, group: "server",
		summary: "Start a coordinated failover between this server and one of its replicas.", since: "6.2.0",
		acl: []string{"@admin", "@slow", "@dangerous"}})
}

func failoverCommand(c *client, argv [][]byte) {
	s := c.srv
	if len(argv) == 2 && eqFold(argv[1], "abort") {
		if s.repl.failover.state == noFailover {
			c.err("ERR No failover in progress.")
			return
		}
		s.abortFailover("Failover manually aborted")
		c.ok()
		return
	}
	var timeout int64
	force, hostGiven := false, false
	var host string
	var port int64
	for j := 1; j < len(argv); j++ {
		switch {
		case eqFold(argv[j], "timeout") && j+1 < len(argv) && timeout == 0:
			n, ok := parseInt(argv[j+1])
			if !ok {
				c.errNotInt()
				return
			}
			if n <= 0 {
				c.err("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout = n
			j++
		case eqFold(argv[j], "to") && j+2 < len(argv) && !hostGiven:
			n, ok := parseInt(argv[j+2])
			if !ok {
				c.errNotInt()
				return
			}
			host, port, hostGiven = string(argv[j+1]), n, true
			j += 2
		case eqFold(argv[j], "force") && !force:
			force = true
		default:
			c.errSyntax()
			return
		}
	}
	fo := &s.repl.failover
	switch {
	case fo.state != noFailover:
		c.err("ERR FAILOVER already in progress.")
		return
	case s.repl.link != nil:
		c.err("ERR FAILOVER is not valid when server is a replica.")
		return
	case len(s.repl.replicas) == 0:
		c.err("ERR FAILOVER requires connected replicas.")
		return
	case force && (timeout == 0 || !hostGiven):
		c.err("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
		return
	}
	if hostGiven {
		r := s.findReplica(host, int(port))
		if r == nil {
			c.err("ERR FAILOVER target HOST and PORT is not a replica.")
			return
		}
		if r.state != replOnline {
			c.err("ERR FAILOVER target replica is not online.")
			return
		}
		fo.host, fo.port = host, int(port)
		s.log.Info().Msgf("FAILOVER requested to %s:%d.", host, port)
	} else {
		s.log.Info().Msg("FAILOVER requested to any replica.")
	}
	if timeout > 0 {
		fo.end = time.Now().Add(time.Duration(timeout) * time.Millisecond)
		fo.timer = time.AfterFunc(time.Duration(timeout)*time.Millisecond, func() {
			s.mu.Lock()
			s.updateFailoverStatus()
			s.mu.Unlock()
		})
	}
	fo.force = force
	fo.state = failoverWaitForSync
	c.ok()
	s.replRequestAcks() // the replicas' offsets, sooner than their 1 s ACK
	s.updateFailoverStatus()
}

// findReplica is Redis's findReplica: the replica whose address (the one
// it announced, or its peer address) and listening port are host:port.
func (s *Server) findReplica(host string, port int) *replica {
	for _, r := range s.repl.replicas {
		if r.replicaIP() == host && r.listeningPort == port {
			return r
		}
	}
	return nil
}

// replicaIP is the replica's announced address, else its peer address.
func (r *replica) replicaIP() string {
	if r.announcedIP != "" {
		return r.announcedIP
	}
	h, _, _ := net.SplitHostPort(r.c.addr)
	return h
}

// failoverPaused reports whether a failover holds writes back
// (PAUSE_DURING_FAILOVER with the write set of actions).
func (s *Server) failoverPaused() bool { return s.repl.failover.state != noFailover }

// updateFailoverStatus is Redis's: a timeout aborts the failover, or
// with FORCE fails over anyway; a replica that acknowledged the whole
// stream becomes the new master. Under mu.
func (s *Server) updateFailoverStatus() {
	fo := &s.repl.failover
	if fo.state != failoverWaitForSync {
		return
	}
	if !fo.end.IsZero() && !time.Now().Before(fo.end) {
		if fo.force {
			s.log.Info().Msgf("FAILOVER to %s:%d time out exceeded, failing over.", fo.host, fo.port)
			fo.state = failoverInProgress
			s.replSetMaster(fo.host, fo.port, true)
			return
		}
		s.abortFailover("Replica never caught up before timeout")
		return
	}
	var target *replica
	if fo.host != "" {
		target = s.findReplica(fo.host, fo.port)
	} else {
		for _, r := range s.repl.replicas {
			if r.ackOff == s.repl.offset {
				fo.host, fo.port = r.replicaIP(), r.listeningPort
				target = r
				break
			}
		}
	}
	if target != nil && target.ackOff == s.repl.offset {
		fo.state = failoverInProgress
		s.log.Info().Msgf("Failover target %s:%d is synced, failing over.", fo.host, fo.port)
		s.replSetMaster(fo.host, fo.port, true)
	}
}

// abortFailover is Redis's: logged, back to master if the switch had
// begun, writes resumed.
func (s *Server) abortFailover(why string) {
	fo := &s.repl.failover
	if fo.state == noFailover {
		return
	}
	if fo.host != "" {
		s.log.Info().Msgf("FAILOVER to %s:%d aborted: %s", fo.host, fo.port, why)
	} else {
		s.log.Info().Msgf("FAILOVER to any replica aborted: %s", why)
	}
	if fo.state == failoverInProgress && s.repl.link != nil {
		s.replUnsetMaster()
	}
	s.clearFailoverState()
}

// clearFailoverState ends the failover and lets the held writes run.
func (s *Server) clearFailoverState() {
	fo := &s.repl.failover
	if fo.timer != nil {
		fo.timer.Stop()
	}
	*fo = failoverState{}
	s.wakeNextPaused()
}

// failoverStateName is INFO's master_failover_state.
func (s *Server) failoverStateName() string { return failoverStateNames[s.repl.failover.state] }

// psyncFailoverArg is what linkOnce adds to its PSYNC: FAILOVER while this
// master hands over to its replica.
func (s *Server) psyncFailoverArg() []string {
	if s.repl.failover.state == failoverInProgress {
		return []string{"FAILOVER"}
	}
	return nil
}

// failoverPsyncDone is linkOnce's check of the PSYNC reply while failing
// over (syncWithMaster): a +CONTINUE or +FULLRESYNC ends the failover, any
// other reply aborts it. It reports whether the link should go on.
func (s *Server) failoverPsyncDone(reply string) bool {
	if s.repl.failover.state != failoverInProgress {
		return true
	}
	if strings.HasPrefix(reply, "+CONTINUE") || strings.HasPrefix(reply, "+FULLRESYNC") {
		s.clearFailoverState()
		return true
	}
	s.abortFailover("Failover target rejected psync request")
	return false
}
