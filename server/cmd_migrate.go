package server

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/resp"
)

// MIGRATE is Redis 7.0.15's migrateCommand (cluster.c): the keys are sent
// to the target as RESTORE commands over a cached connection, the
// executor waiting for the replies up to the timeout as Redis's main thread
// does; the keys the target acknowledged are deleted here (without COPY)
// and the command propagates as DEL of those keys.

func init() {
	register(&command{name: "migrate", arity: -6, flags: cmdWrite, firstKey: 3, lastKey: 3, step: 1, proc: migrateCommand,
		group: "generic", summary: "Atomically transfer a key from a Redis instance to another one.", since: "2.6.0",
		acl: []string{"@keyspace", "@write", "@slow", "@dangerous"}})
}

const (
	migrateCacheItems = 64               // MIGRATE_SOCKET_CACHE_ITEMS
	migrateCacheTTL   = 10 * time.Second // MIGRATE_SOCKET_CACHE_TTL
	migrateChunk      = 64 * 1024        // the query goes out in 64K writes
	migrateLineMax    = 1024             // syncReadLine's buffer: longer lines are cut
)

// migrateSocket is Redis's migrateCachedSocket: a connection to host:port
// kept for the next MIGRATE, with the database it last selected.
type migrateSocket struct {
	conn    net.Conn // nil when broken
	broken  error    // the connect failed after it started: writes fail
	br      *bufio.Reader
	lastDB  int64 // -1: SELECT next time
	lastUse time.Time
}

// migrateSockets is server.migrate_cached_sockets (executor-owned).
type migrateSockets map[string]*migrateSocket

// get is migrateGetSocket: the cached connection to host:port, or a new
// one (dropping one cached at random when 64 are), or nil after replying
// the connection error.
func (ms *migrateSockets) get(c *client, host, port []byte, timeout time.Duration) *migrateSocket {
	name := string(host) + ":" + string(port)
	if cs := (*ms)[name]; cs != nil {
		cs.lastUse = time.Now()
		return cs
	}
	if *ms == nil {
		*ms = migrateSockets{}
	}
	if len(*ms) == migrateCacheItems {
		for k, cs := range *ms { // map order stands in for dictGetRandomKey
			cs.close()
			delete(*ms, k)
			break
		}
	}
	p, _ := strconv.Atoi(string(port)) // atoi: "x" is port 0
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(string(host), strconv.Itoa(p)), timeout)
	if err != nil && connectFailedLate(err) {
		// Redis's connBlockingConnect waits for the socket to be writable
		// and does not read SO_ERROR: a refused connection counts as made,
		// and its first write fails.
		cs := &migrateSocket{broken: err, lastDB: -1, lastUse: time.Now()}
		(*ms)[name] = cs
		return cs
	}
	if err != nil {
		c.err("IOERR error or timeout connecting to the client")
		return nil
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	cs := &migrateSocket{conn: conn, br: bufio.NewReader(conn), lastDB: -1, lastUse: time.Now()}
	(*ms)[name] = cs
	return cs
}

// connectFailedLate reports a connect that failed once under way (the
// peer refused or could not be reached), not by its timeout or before it
// began (a bad address).
func connectFailedLate(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

func (cs *migrateSocket) close() {
	if cs.conn != nil {
		cs.conn.Close()
	}
}

// close is migrateCloseSocket.
func (ms migrateSockets) close(host, port []byte) {
	name := string(host) + ":" + string(port)
	if cs := ms[name]; cs != nil {
		cs.close()
		delete(ms, name)
	}
}

// closeTimedOut is migrateCloseTimedoutSockets, run once a second by cron:
// connections unused for more than 10 s are closed.
func (ms migrateSockets) closeTimedOut(now time.Time) {
	for name, cs := range ms {
		if now.Unix()-cs.lastUse.Unix() > int64(migrateCacheTTL/time.Second) {
			cs.close()
			delete(ms, name)
		}
	}
}

// readLine is connSyncReadLine: one line without its CRLF, at most 1023
// bytes of it kept, within timeout.
func (cs *migrateSocket) readLine(timeout time.Duration) ([]byte, error) {
	cs.conn.SetReadDeadline(time.Now().Add(timeout))
	var line []byte
	for {
		b, err := cs.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if b == '\n' {
			break
		}
		if len(line) < migrateLineMax-1 {
			line = append(line, b)
		}
	}
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) == 0 {
		return nil, errors.New("empty line")
	}
	return line, nil
}

func migrateCommand(c *client, argv [][]byte) {
	s := c.srv
	copyKeys, replace := false, false
	var username, password []byte
	firstKey, numKeys := 3, 1
	for j := 6; j < len(argv); j++ {
		more := len(argv) - 1 - j
		switch {
		case eqFold(argv[j], "copy"):
			copyKeys = true
		case eqFold(argv[j], "replace"):
			replace = true
		case eqFold(argv[j], "auth"):
			if more == 0 {
				c.errSyntax()
				return
			}
			j++
			password = argv[j]
			c.redactArg(argv, j)
		case eqFold(argv[j], "auth2"):
			if more < 2 {
				c.errSyntax()
				return
			}
			username, password = argv[j+1], argv[j+2]
			c.redactArg(argv, j+1)
			c.redactArg(argv, j+2)
			j += 2
		case eqFold(argv[j], "keys"):
			if len(argv[3]) != 0 {
				c.err("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string")
				return
			}
			firstKey, numKeys = j+1, len(argv)-j-1
			j = len(argv)
		default:
			c.errSyntax()
			return
		}
	}
	timeoutMs, ok := parseInt(argv[5])
	if !ok {
		c.errNotInt()
		return
	}
	dbid, ok := parseInt(argv[4])
	if !ok {
		c.errNotInt()
		return
	}
	if timeoutMs <= 0 {
		timeoutMs = 1000
	}
	timeout := time.Duration(timeoutMs) * time.Millisecond

	// The keys that are here; none at all is +NOKEY (not an error: often
	// the key just expired).
	type kv struct {
		key []byte
		e   entry
	}
	var keys []kv
	for j := 0; j < numKeys; j++ {
		if e, ok := s.lookupRead(c, argv[firstKey+j]); ok {
			keys = append(keys, kv{argv[firstKey+j], e})
		}
	}
	if len(keys) == 0 {
		c.status("NOKEY")
		return
	}
	host, port := argv[1], argv[2]
	mayRetry := true
	for {
		cs := s.migrate.get(c, host, port, timeout)
		if cs == nil {
			return
		}
		var cmd []byte
		if password != nil {
			auth := [][]byte{[]byte("AUTH"), password}
			if username != nil {
				auth = [][]byte{[]byte("AUTH"), username, password}
			}
			cmd = resp.AppendCommand(cmd, auth)
		}
		sel := cs.lastDB != dbid
		if sel {
			cmd = resp.AppendCommand(cmd, [][]byte{[]byte("SELECT"), formatInt(dbid)})
		}
		// RESTORE key ttl payload [REPLACE] for each key not expired since
		// the lookup, with its TTL relative to now (at least 1 ms).
		now := s.nowMs()
		sent := keys[:0:0]
		for _, k := range keys {
			var ttl int64
			if at := c.db.expireAt(bstr(k.key)); at != -1 {
				if ttl = at - now; ttl < 0 {
					continue
				}
				ttl = max(ttl, 1)
			}
			sent = append(sent, k)
			payload := rdb.DumpPayload(objToRDB(k.e), rdb.EncoderOptions{Compression: s.cfg.RDBCompression, Checksum: true, Limits: s.rdbLimits()})
			args := [][]byte{[]byte("RESTORE"), k.key, formatInt(ttl), payload}
			if replace {
				args = append(args, []byte("REPLACE"))
			}
			cmd = resp.AppendCommand(cmd, args)
		}
		keys = sent // a retry sends what this try did
		// Write in 64K chunks, each within the timeout.
		ioErr := cs.broken
		writeErr := ioErr != nil
		for pos := 0; pos < len(cmd) && ioErr == nil; {
			n := min(len(cmd)-pos, migrateChunk)
			cs.conn.SetWriteDeadline(time.Now().Add(timeout))
			_, ioErr = cs.conn.Write(cmd[pos : pos+n])
			pos += n
			writeErr = ioErr != nil
		}
		var authLine, selLine []byte
		if ioErr == nil && password != nil {
			authLine, ioErr = cs.readLine(timeout)
		}
		if ioErr == nil && sel {
			selLine, ioErr = cs.readLine(timeout)
		}
		if ioErr == nil {
			// Read the RESTORE replies; delete what the target acknowledged.
			fromTarget := false
			socketErr := false
			del := [][]byte{[]byte("DEL")}
			j := 0
			for ; j < len(sent); j++ {
				line, err := cs.readLine(timeout)
				if err != nil {
					socketErr, ioErr = true, err
					break
				}
				var bad []byte
				switch {
				case password != nil && authLine[0] == '-':
					bad = authLine
				case sel && selLine[0] == '-':
					bad = selLine
				case line[0] == '-':
					bad = line
				}
				if bad != nil {
					if !fromTarget {
						cs.lastDB = -1
						fromTarget = true
						c.err("ERR Target instance replied with error: " + string(bad[1:]))
					}
					continue
				}
				if !copyKeys {
					k := sent[j].key
					s.deleteKeyLazy(c.db, k, s.cfg.LazyfreeLazyServerDel)
					s.signalModifiedKey(c.db, k)
					s.notify(notifyGeneric, "del", k, c.db.id)
					s.dirty++
					del = append(del, cloneBytes(k))
				}
			}
			// Retry when nothing was processed: the first reply never came
			// and it was not a timeout (a cached connection the target closed).
			if !fromTarget && socketErr && j == 0 && mayRetry && !isTimeout(ioErr) {
				s.migrate.close(host, port)
				mayRetry = false
				continue
			}
			if socketErr {
				s.migrate.close(host, port)
			}
			if len(del) > 1 {
				c.rewriteArgv(del...)
			}
			if !fromTarget && socketErr {
				c.err("IOERR error or timeout reading to target instance")
				return
			}
			if !fromTarget {
				cs.lastDB = dbid
				c.ok()
			}
			return
		}
		// socket_err: close, retry once unless it timed out.
		s.migrate.close(host, port)
		if !isTimeout(ioErr) && mayRetry {
			mayRetry = false
			continue
		}
		how := "reading"
		if writeErr {
			how = "writing"
		}
		c.err("IOERR error or timeout " + how + " to target instance")
		return
	}
}
