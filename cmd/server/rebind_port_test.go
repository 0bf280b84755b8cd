package main

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// answers reports whether a new client on 127.0.0.1:port gets PONG.
func answers(port int) bool {
	c, err := testsrv.DialConn("127.0.0.1:" + strconv.Itoa(port))
	if err != nil {
		return false
	}
	defer c.Close()
	raw, err := c.DoRaw(5*time.Second, "PING")
	return err == nil && raw == "+PONG\r\n"
}

// TestConfigSetPortInUseKeepsListening is CONFIG SET port to a port
// another socket holds, before and after CONFIG SET port 0, against real
// redis-server side by side (updatePort/changeListenPort and CONFIG SET's
// restore of the previous value): the replies, which ports answer after
// each step, and the counted log lines must be Redis's. Before the fix a
// failed CONFIG SET port left our server with no listener.
func TestConfigSetPortInUseKeepsListening(t *testing.T) {
	for _, bind := range []string{"127.0.0.1", "* -::*"} {
		t.Run(bind, func(t *testing.T) { testConfigSetPortInUse(t, bind) })
	}
}

func testConfigSetPortInUse(t *testing.T, bind string) {
	exe := serverBinary(t)
	run := func(name string, start func() (port int, logs func() string)) (steps []string, logText string) {
		port, logs := start()
		c, err := testsrv.DialConn("127.0.0.1:" + strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		busy, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		busyPort := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
		step := func(args ...string) {
			raw, err := c.DoRaw(10*time.Second, args...)
			if err != nil {
				t.Fatalf("%s: %v: %v\n%s", name, args, err, logs())
			}
			got, _ := c.DoRaw(10*time.Second, "CONFIG", "GET", "port")
			cur, _ := strconv.Atoi(strings.Fields(got)[len(strings.Fields(got))-1])
			if cur == port {
				cur = -1 // the starting port differs between the two servers
			}
			steps = append(steps, strings.Join(args, " ")+" -> "+strings.TrimSpace(raw)+
				" port="+strconv.Itoa(cur)+" answers="+strconv.FormatBool(cur != 0 && answers(abs(cur, port))))
		}
		step("CONFIG", "SET", "port", busyPort)
		step("CONFIG", "SET", "port", "0")
		step("CONFIG", "SET", "port", busyPort)
		next := testsrv.FreePort(t)
		step("CONFIG", "SET", "port", strconv.Itoa(next))
		step("CONFIG", "SET", "port", busyPort)
		for i, s := range steps {
			steps[i] = strings.ReplaceAll(strings.ReplaceAll(s, busyPort, "BUSY"), strconv.Itoa(next), "NEXT")
		}
		return steps, logs()
	}
	ours, ourLog := run("ours", func() (int, func() string) {
		p := startProc(t, exe, "--dir", t.TempDir(), "--save", "", "--bind", bind)
		return p.port, p.out.String
	})
	theirs, redisLog := run("redis", func() (int, func() string) {
		p := testsrv.StartRedis(t, "", "--bind", bind)
		return p.Port, p.LogText
	})
	t.Logf("ours:\n%s\nredis:\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
	if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("steps differ\nours:\n%s\nredis:\n%s\nour log:\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"), ourLog)
	}
	for _, line := range []string{"Could not create server TCP listening socket 127.0.0.1:",
		"Failed applying new configuration. Possibly related to new port setting. Restoring previous settings."} {
		if o, r := testsrv.CountLines(ourLog, line), testsrv.CountLines(redisLog, line); o != r {
			t.Errorf("%q logged %d times, Redis %d\nour log:\n%s\nredis log:\n%s", line, o, r, ourLog, redisLog)
		}
	}
}

// abs maps the -1 of "the starting port" back to it.
func abs(cur, start int) int {
	if cur == -1 {
		return start
	}
	return cur
}
