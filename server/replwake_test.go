package server

import (
	"net"
	"strconv"
	"testing"
)

// The network loop wakes a replica's writer once per batch, or writes the
// stream itself (replBatch, replWriteNow). A wake lost between a batch and
// the writer would leave the replica behind until the master's next write;
// with the master's PINGs an hour apart, each SET here must reach the
// replica with nothing after it.
func TestReplicaStreamEachWriteArrives(t *testing.T) {
	m := startOurServer(t, "--repl-ping-replica-period", "3600")
	_, port, _ := net.SplitHostPort(m.addr)
	r := startOurServer(t, "--replicaof", "127.0.0.1 "+port)
	mc, rc := dial(t, m.addr), dial(t, r.addr)
	eventually(t, "master_link_status:up", func() bool { return replInfo(rc, "master_link_status") == "up" })
	for i := 0; i < 300; i++ {
		v := strconv.Itoa(i)
		mc.do("SET", "k", v)
		want := "$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n"
		eventually(t, "SET k "+v+" on the replica", func() bool { return rc.do("GET", "k") == want })
	}
}
