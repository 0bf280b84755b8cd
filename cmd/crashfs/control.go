package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ctlSocketPath is where the crashfs serving mountpoint listens for
// control commands: a Unix socket in the temporary directory named after
// the mountpoint's absolute path.
func ctlSocketPath(mnt string) string {
	abs, err := filepath.Abs(mnt)
	if err != nil {
		abs = mnt
	}
	sum := sha256.Sum256([]byte(filepath.Clean(abs)))
	return filepath.Join(os.TempDir(), "crashfs-"+hex.EncodeToString(sum[:8])+".sock")
}

// execCommand runs one control command and returns its output.
func (c *crashFS) execCommand(line string) (string, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", errors.New("empty command")
	}
	switch f[0] {
	case "cut":
		s := c.Cut()
		return fmt.Sprintf("cut %d: dropped %d bytes, reverted %d files, %d entries\n",
			s.Cuts, s.LastCutDroppedBytes, s.LastCutFilesReverted, s.LastCutEntriesReverted), nil
	case "sync":
		c.Sync()
		return "synced\n", nil
	case "status":
		return c.Status(), nil
	case "cut-on-rename":
		if len(f) < 2 || len(f) > 3 {
			return "", errors.New("usage: cut-on-rename <glob>|off [nth]")
		}
		glob, nth := f[1], 1
		if glob == "off" {
			glob = ""
		}
		if len(f) == 3 {
			n, err := strconv.Atoi(f[2])
			if err != nil || n < 1 {
				return "", fmt.Errorf("bad nth %q", f[2])
			}
			nth = n
		}
		if err := c.ArmCutOnRename(glob, nth); err != nil {
			return "", err
		}
		if glob == "" {
			return "cut-on-rename off\n", nil
		}
		return fmt.Sprintf("cut-on-rename armed: %s (rename %d)\n", glob, nth), nil
	}
	return "", fmt.Errorf("unknown command %q", f[0])
}

// serveControl accepts control connections until ln is closed. Protocol:
// one command line in, its output back, then "OK\n" or "ERR <msg>\n", and
// the connection closes.
func (c *crashFS) serveControl(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(time.Minute))
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err != nil && line == "" {
				return
			}
			out, err := c.execCommand(strings.TrimSpace(line))
			if err != nil {
				fmt.Fprintf(conn, "ERR %v\n", err)
				return
			}
			io.WriteString(conn, out+"OK\n")
		}()
	}
}

// ctlCall sends one command to the crashfs serving mnt.
func ctlCall(mnt, command string) (string, error) {
	conn, err := net.DialTimeout("unix", ctlSocketPath(mnt), 5*time.Second)
	if err != nil {
		return "", fmt.Errorf("no crashfs control socket for %s: %w", mnt, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(conn, command+"\n"); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		return "", err
	}
	s := string(b)
	if strings.HasSuffix(s, "OK\n") {
		return strings.TrimSuffix(s, "OK\n"), nil
	}
	if i := strings.LastIndex(s, "ERR "); i >= 0 {
		return s[:i], errors.New(strings.TrimSpace(s[i+4:]))
	}
	return s, fmt.Errorf("truncated reply %q", s)
}

// statusField reads one counter out of "status" output.
func statusField(status, name string) string {
	for _, l := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(l, " "); ok && k == name {
			return v
		}
	}
	return ""
}
