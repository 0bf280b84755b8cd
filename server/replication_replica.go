package server

// Replication, replica side (Redis's replicaof / syncWithMaster /
// readSyncBulkPayload): the link to our master.

const (
	linkNone = iota
	linkConnect
	linkConnecting
	linkHandshake
	linkTransfer
	linkConnected
)

type masterLink struct {
	host  string
	port  int
	state int
}

func (l *masterLink) sendAck(s *Server)                       {}
func (l *masterLink) cron(s *Server)                          {}
func (l *masterLink) info(s *Server, f func(k string, v any)) {}
func (l *masterLink) role(s *Server, c *client)               {}
