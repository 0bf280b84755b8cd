package server

import (
	"bufio"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/resp"
)

var fuzzSeeds = []string{
	"PING\r\n",
	"*1\r\n$4\r\nPING\r\n",
	"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
	"SET a 1\r\nINCR a\r\nINCRBY a 10\r\nGET a\r\n",
	"ECHO \"a\\x41\\n\" 'b\\'c'\r\n",
	"MULTI\r\nSET x y\r\nLPUSH l a b c\r\nEXEC\r\n",
	"HSET h f v g w\r\nHGETALL h\r\nSADD s 1 2 3\r\nSMEMBERS s\r\n",
	"ZADD z 1 a 2 b\r\nZRANGE z 0 -1 WITHSCORES\r\n",
	"SUBSCRIBE ch\r\nPING\r\nUNSUBSCRIBE\r\n",
	"*-1\r\n*0\r\nPING\r\n",
	"*2\r\n$9999999999\r\n",
	"*1\r\n$x\r\n",
	"\"unbalanced\r\n",
	"PING\x00x\r\n",
	"*2\r\n$4\r\nECHO\r\n$3\r\na\x00b\r\n",
	"EXPIRE k 100\r\nTTL k\r\nKEYS *\r\nSCAN 0 MATCH * COUNT 10\r\n",
}

// Commands the dispatch fuzzer must not send: they stop or reconfigure
// the shared server, drop its control connection, spawn processes, reach
// other hosts, or allocate hundreds of MB on purpose.
var fuzzDenied = map[string]bool{
	"shutdown": true, "debug": true, "config": true, "save": true, "bgsave": true,
	"bgrewriteaof": true, "replicaof": true, "slaveof": true, "sync": true, "psync": true,
	"migrate": true, "failover": true, "acl": true, "module": true, "eval": true,
	"evalsha": true, "script": true, "function": true, "fcall": true,
	"setrange": true, "setbit": true, "bitfield": true, "lcs": true,
	"srandmember": true, "zrandmember": true, "hrandfield": true,
}

func fuzzAllowed(data []byte) bool {
	cmds, _ := parseAll(data)
	for _, c := range cmds {
		name := strings.ToLower(c[0])
		if fuzzDenied[name] {
			return false
		}
		if name == "client" && len(c) > 1 && (strings.EqualFold(c[1], "pause") || strings.EqualFold(c[1], "kill")) {
			return false
		}
	}
	return true
}

// parseAll parses data as one read (at most the reader's buffer at a
// time, as a connection reads it) and returns the commands, copied.
func parseAll(data []byte) ([][]string, error) {
	r := resp.NewReader()
	var cmds [][]string
	for len(data) > 0 {
		buf, err := r.Space()
		if err != nil {
			return cmds, err
		}
		n := copy(buf, data)
		data = data[n:]
		r.Read(n)
		perr := r.Parse()
		for i := 0; i < r.NCmds(); i++ {
			var c []string
			for _, a := range r.ArgsOf(i) {
				c = append(c, string(a))
			}
			cmds = append(cmds, c)
		}
		if perr != nil {
			return cmds, perr
		}
		r.Reset()
	}
	return cmds, nil
}

var fuzzSrv struct {
	once sync.Once
	addr string
	err  error
	ctl  net.Conn
	rd   *bufio.Reader
	n    int
}

// fuzzServer starts one in-process server per fuzz process; it lives until
// the process exits.
func fuzzServer() (string, error) {
	fuzzSrv.once.Do(func() {
		dir, err := os.MkdirTemp("", "aofserver-fuzz-")
		if err != nil {
			fuzzSrv.err = err
			return
		}
		cfg, err := config.Load("", []string{"--port", "0", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir}, nil)
		if err != nil {
			fuzzSrv.err = err
			return
		}
		s, err := New(cfg, zerolog.Nop())
		if err == nil {
			s.PickFreePort() // "--port 0": any free port, not TCP off
			err = s.Listen()
		}
		if err != nil {
			fuzzSrv.err = err
			return
		}
		go s.Serve()
		if fuzzSrv.err = s.LoadData(); fuzzSrv.err != nil {
			return
		}
		fuzzSrv.addr = s.Addr().String()
		fuzzSrv.ctl, fuzzSrv.err = net.Dial("tcp", fuzzSrv.addr)
		if fuzzSrv.err == nil {
			fuzzSrv.rd = bufio.NewReader(fuzzSrv.ctl)
		}
	})
	return fuzzSrv.addr, fuzzSrv.err
}

func FuzzDispatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !fuzzAllowed(data) {
			return
		}
		addr, err := fuzzServer()
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// Half-close after the input: the server runs what it got, then
		// sees EOF and closes, so the exchange ends without guessing.
		c.SetDeadline(time.Now().Add(2 * time.Second))
		go func() {
			c.Write(data)
			c.(*net.TCPConn).CloseWrite()
		}()
		var buf [32 << 10]byte
		for {
			if _, err := c.Read(buf[:]); err != nil {
				break // EOF, reset, or the deadline (a blocked client)
			}
		}
		c.Close()

		ctl := fuzzSrv.ctl
		ctl.SetDeadline(time.Now().Add(2 * time.Second))
		fuzzSrv.n++
		cmd := "PING\r\n"
		want := "+PONG\r\n"
		if fuzzSrv.n%500 == 0 {
			cmd, want = "FLUSHALL\r\n", "+OK\r\n"
		}
		if _, err := ctl.Write([]byte(cmd)); err != nil {
			t.Fatalf("control write after %q: %v", data, err)
		}
		line, err := fuzzSrv.rd.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("server stopped answering after %q: %q %v", data, line, err)
		}
	})
}
