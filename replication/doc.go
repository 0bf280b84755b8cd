// Package replication owns Redis 7.0's replication: what flows between a
// master and its replicas, and the state machines on either side.
//
//   - the backlog (backlog.go): the newest bytes of the stream, from
//     which a replica that lost its link continues with PSYNC;
//   - the stream's wire form (wire.go): commands as RESP arrays, the
//     SELECTs, replication IDs, reading the stream back;
//   - the history (history.go): our IDs, offset and backlog, the
//     encoding of propagated commands into the stream, and whether a
//     PSYNC may continue it;
//   - FAILOVER's state machine (failover.go);
//   - the replica side (link.go): the link to our master, from the TCP
//     connect through the handshake (PING, AUTH, REPLCONF, PSYNC), the
//     RDB transfer (bulk or EOF-marked) into a temp file, to the stream,
//     with the link's ACKs and what INFO and ROLE say of it.
//
// What it asks of the server is LinkHost (link.go) and FailoverHost
// (failover.go), implemented in package server: its executor lock, the
// history the link continues, loading the received RDB into the keyspace,
// running the stream's commands as the master client, the failover's say
// on the PSYNC, the replicas' addresses and ACKed offsets, switching role
// and resuming held writes.
// Those stay the server's because they are the executor's: the keyspace,
// the clients and the command table.
//
// The master side's replica connections (their writer goroutines, the
// stream queued on the client, the diskless transfer, WAIT) are still
// package server's: they live on the client's output path.
//
// Package server imports this package; this package never imports server.
package replication
