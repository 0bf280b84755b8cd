package server

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// NewLogger returns the server's logger: Redis's line format by default
// ("pid:M 02 Dec 2026 07:44:15.123 * message"), or JSON lines.
func NewLogger(w io.Writer, level string, format string) zerolog.Logger {
	return NewLoggerRole(w, level, format, 'M')
}

// NewLoggerRole is NewLogger with Redis's role letter for the prefix: 'M'
// for the main process, 'C' for a child process and for the lines the main
// process logs before its initialisation (Redis compares getpid() with
// server.pid, still unset then).
func NewLoggerRole(w io.Writer, level string, format string, role byte) zerolog.Logger {
	lvl := zerolog.InfoLevel
	switch level {
	case "debug":
		lvl = zerolog.DebugLevel
	case "verbose":
		lvl = zerolog.DebugLevel
	case "notice":
		lvl = zerolog.InfoLevel
	case "warning":
		lvl = zerolog.WarnLevel
	case "nothing":
		lvl = zerolog.Disabled
	}
	if format == "json" {
		// The time is added by a hook rather than zerolog's Timestamp(),
		// whose format is a process-wide setting (seconds by default):
		// Redis's lines carry milliseconds, so do ours.
		return zerolog.New(w).Level(lvl).Hook(msTimeHook{}).With().
			Int("pid", os.Getpid()).Str("role", string(role)).Logger()
	}
	return zerolog.New(&redisLogWriter{w: w, pid: os.Getpid(), role: role}).Level(lvl)
}

// jsonTimeLayout is RFC 3339 with milliseconds.
const jsonTimeLayout = "2006-01-02T15:04:05.000Z07:00"

type msTimeHook struct{}

func (msTimeHook) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	e.Str("time", time.Now().Format(jsonTimeLayout))
}

// LogFromHandler writes a line the way Redis's serverLogFromHandler does
// for what its signal handlers log: "pid:signal-handler (unix-seconds)
// message", no role letter, no date, no level mark. With the json format
// it is a warning whose role is "signal-handler".
func LogFromHandler(w io.Writer, format string, msg string) {
	now := time.Now()
	var line []byte
	if format == "json" {
		m, _ := json.Marshal(msg)
		line = fmt.Appendf(nil, `{"level":"warn","pid":%d,"role":"signal-handler","time":"%s","message":%s}`+"\n",
			os.Getpid(), now.Format(jsonTimeLayout), m)
	} else {
		line = fmt.Appendf(nil, "%d:signal-handler (%d) %s\n", os.Getpid(), now.Unix(), msg)
	}
	w.Write(line)
}

// redisLogWriter turns zerolog's JSON events into Redis log lines.
type redisLogWriter struct {
	mu   sync.Mutex
	w    io.Writer
	pid  int
	role byte
}

func (r *redisLogWriter) Write(p []byte) (int, error) { return len(p), nil }

// WriteLevel implements zerolog.LevelWriter.
func (r *redisLogWriter) WriteLevel(l zerolog.Level, p []byte) (int, error) {
	msg := extractMessage(p)
	if indexOf(p, `"raw":true`) >= 0 { // logRaw: no prefix, no newline added
		r.mu.Lock()
		defer r.mu.Unlock()
		_, err := io.WriteString(r.w, msg)
		return len(p), err
	}
	mark := "*"
	switch l {
	case zerolog.DebugLevel, zerolog.TraceLevel:
		mark = "."
	case zerolog.InfoLevel:
		mark = "*"
	case zerolog.WarnLevel, zerolog.ErrorLevel, zerolog.FatalLevel, zerolog.PanicLevel:
		mark = "#"
	}
	pid, role := r.pid, r.role
	if i := indexOf(p, `"cpid":`); i >= 0 {
		// a line a child process logs (logChildDone): its pid, role C
		pid, role = 0, 'C'
		for i += len(`"cpid":`); i < len(p) && p[i] >= '0' && p[i] <= '9'; i++ {
			pid = pid*10 + int(p[i]-'0')
		}
	}
	now := time.Now()
	line := fmt.Sprintf("%d:%c %s %s %s\n", pid, role, now.Format("02 Jan 2006 15:04:05.000"), mark, msg)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := io.WriteString(r.w, line)
	return len(p), err
}

// extractMessage pulls "message" out of a zerolog JSON event without a
// full decode.
func extractMessage(p []byte) string {
	const key = `"message":"`
	i := indexOf(p, key)
	if i < 0 {
		return ""
	}
	i += len(key)
	var out []byte
	for ; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			i++
			switch p[i] {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case 'r':
				out = append(out, '\r')
			case 'u':
				if i+4 < len(p) {
					var v int
					fmt.Sscanf(string(p[i+1:i+5]), "%04x", &v)
					out = append(out, string(rune(v))...)
					i += 4
				}
			default:
				out = append(out, p[i])
			}
			continue
		}
		if c == '"' {
			break
		}
		out = append(out, c)
	}
	return string(out)
}

func indexOf(p []byte, s string) int {
	for i := 0; i+len(s) <= len(p); i++ {
		if string(p[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}
