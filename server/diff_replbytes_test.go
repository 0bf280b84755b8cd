package server

import (
	"strconv"
	"strings"
	"testing"
)

// total_net_repl_input_bytes / total_net_repl_output_bytes as Redis 7.0.15
// counts them: a master's writes to its replicas and a replica's reads
// from its master, apart from the other traffic and added to the totals.
// The stream after the sync moves each by exactly the replication offset,
// on both servers.
func TestDiffReplicationBytes(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		mt := startJobTarget(t, kind, "--repl-diskless-sync-delay", "0")
		_, port, _ := strings.Cut(mt.addr, ":")
		rt := startJobTarget(t, kind, "--replicaof", "127.0.0.1", port)
		m, r := dial(t, mt.addr), dial(t, rt.addr)
		waitInSync(t, m, r)
		num := func(c *respConn, section, field string) int64 {
			t.Helper()
			v, err := strconv.ParseInt(infoField(c, section, field), 10, 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", kind, field, err)
			}
			return v
		}
		out0, in0 := num(m, "stats", "total_net_repl_output_bytes"), num(r, "stats", "total_net_repl_input_bytes")
		if out0 == 0 || in0 == 0 {
			t.Fatalf("%s: the full sync was not counted: master wrote %d, replica read %d", kind, out0, in0)
		}
		if tot := num(m, "stats", "total_net_output_bytes"); tot < out0 {
			t.Fatalf("%s: total_net_output_bytes %d < total_net_repl_output_bytes %d", kind, tot, out0)
		}
		if tot := num(r, "stats", "total_net_input_bytes"); tot < in0 {
			t.Fatalf("%s: total_net_input_bytes %d < total_net_repl_input_bytes %d", kind, tot, in0)
		}
		off0 := num(m, "replication", "master_repl_offset")
		for i := 0; i < 100; i++ {
			m.do("SET", "k"+strconv.Itoa(i), strings.Repeat("v", i))
		}
		waitInSync(t, m, r)
		dOff := num(m, "replication", "master_repl_offset") - off0
		dOut := num(m, "stats", "total_net_repl_output_bytes") - out0
		dIn := num(r, "stats", "total_net_repl_input_bytes") - in0
		if dOff == 0 || dOut != dOff || dIn != dOff {
			t.Fatalf("%s: after 100 SETs the offset moved %d, repl output %d, repl input %d", kind, dOff, dOut, dIn)
		}
		// Read and write events: the replica's reads of the stream and
		// the master's writes to its replica count too.
		reads0 := num(r, "stats", "total_reads_processed")
		for i := 0; i < 100; i++ {
			m.do("SET", "k"+strconv.Itoa(i), "again")
		}
		eventually(t, "the replica's ack of the master's offset", func() bool { // asked of the master only
			off := replInfo(m, "master_repl_offset")
			return strings.Contains(replInfo(m, "slave0"), ",offset="+off+",")
		})
		reads1 := num(r, "stats", "total_reads_processed")
		if reads1-reads0 < 2 {
			t.Errorf("%s: the replica counted %d read events for the stream and one INFO", kind, reads1-reads0)
		}
		w0 := num(m, "stats", "total_writes_processed")
		for i := 0; i < 100; i++ {
			m.do("SET", "k"+strconv.Itoa(i), "third")
		}
		off := replInfo(m, "master_repl_offset")
		eventually(t, "the replica at the master's offset", func() bool { return replInfo(r, "slave_repl_offset") == off })
		// written since w0: w0's INFO reply, 100 SET replies, the offset's
		// INFO reply, and the stream (one write at least)
		if w1 := num(m, "stats", "total_writes_processed"); w1-w0 < 103 {
			t.Errorf("%s: the master counted %d write events (102 replies and the stream)", kind, w1-w0)
		}
		for _, f := range []string{"instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps"} {
			if _, err := strconv.ParseFloat(infoField(m, "stats", f), 64); err != nil {
				t.Fatalf("%s: %s: %v", kind, f, err)
			}
		}
	})
}
