package server

import (
	"net"

	"github.com/aofserver/aofserver/replication"
)

// FAILOVER's state machine is package replication's (Failover). What
// stays here is the master's part of it: the command's reply, the
// replicas it may hand over to, switching our role, and resuming the
// writes it held back, which are the executor's.

func init() {
	register(&command{name: "failover", arity: -1, flags: cmdAdmin | cmdNoScript | cmdStale, proc: failoverCommand, group: "server",
		summary: "Start a coordinated failover between this server and one of its replicas.", since: "6.2.0",
		acl: []string{"@admin", "@slow", "@dangerous"}})
}

func failoverCommand(c *client, argv [][]byte) {
	s := c.srv
	fo := s.failover()
	msg, started := fo.Command(argv, s.repl.link != nil)
	if msg != "" {
		c.err(msg)
		return
	}
	c.ok()
	if started {
		s.replRequestAcks() // the replicas' offsets, sooner than their 1 s ACK
		fo.Update()
	}
}

// failover is the FAILOVER state, bound to this server.
func (s *Server) failover() *replication.Failover {
	fo := &s.repl.failover
	fo.Init(failoverHost{s}, s.log)
	return fo
}

// failoverHost is the server as a replication.FailoverHost (under mu).
type failoverHost struct{ s *Server }

func (h failoverHost) Lock()         { h.s.mu.Lock() }
func (h failoverHost) Unlock()       { h.s.mu.Unlock() }
func (h failoverHost) Offset() int64 { return h.s.repl.Offset }

func (h failoverHost) Replicas(dst []replication.Peer) []replication.Peer {
	for _, r := range h.s.repl.replicas {
		dst = append(dst, replication.Peer{IP: r.replicaIP(), Port: r.listeningPort, AckOff: r.ackOff, Online: r.state == replOnline})
	}
	return dst
}

func (h failoverHost) SetMaster(host string, port int) { h.s.replSetMaster(host, port, true) }

func (h failoverHost) UnsetMaster() {
	if h.s.repl.link != nil {
		h.s.replUnsetMaster()
	}
}

func (h failoverHost) Resume() { h.s.wakeNextPaused() }

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
func (s *Server) failoverPaused() bool { return s.repl.failover.Paused() }
