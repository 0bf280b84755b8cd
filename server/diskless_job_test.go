package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// A diskless transfer to a replica is a snapshot in progress, as Redis's
// RDB child with a socket target: BGSAVE is refused ("already in
// progress") and BGREWRITEAOF scheduled until it ends, on ours and on real
// Redis. (Ours used to start a BGSAVE anyway and finish the transfer's
// walk in one go first: a pause that grows with the dataset.)
func TestDisklessTransferHoldsTheSlot(t *testing.T) {
	forBoth(t, func(t *testing.T, kind string) {
		jt := startJobTarget(t, kind, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
			"--rdb-key-save-delay", "100000")
		c := dial(t, jt.addr)
		fillKeys(c, 100) // 10 s of transfer at 0.1 s a key
		nc, err := net.Dial("tcp", jt.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		br := bufio.NewReader(nc)
		nc.SetReadDeadline(time.Now().Add(20 * time.Second)) // a failure bound
		nc.Write(appendMultibulk(nil, "REPLCONF", "capa", "eof"))
		if line, err := br.ReadString('\n'); err != nil || line != "+OK\r\n" {
			t.Fatalf("%s: REPLCONF: %q %v", kind, line, err)
		}
		nc.Write(appendMultibulk(nil, "PSYNC", "?", "-1"))
		if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "+FULLRESYNC ") {
			t.Fatalf("%s: PSYNC: %q %v", kind, line, err)
		}
		waitInfo(t, c, "rdb_bgsave_in_progress", "1")
		expectReply(t, jt, c, "-ERR Background save already in progress\r\n", "BGSAVE")
		expectReply(t, jt, c, "+Background append only file rewriting scheduled\r\n", "BGREWRITEAOF")
	})
}
