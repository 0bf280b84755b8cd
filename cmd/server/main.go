// Command aofserver is a Redis 7.0-compatible server with Redis's
// multi-part AOF persistence. It is invoked like redis-server:
//
//	aofserver [config-file] [--directive value ...] [-]
//
// main only wires packages together: config → server → signals.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/server"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `Usage: ./aofserver [/path/to/redis.conf] [options] [-]
       ./aofserver - (read config from stdin)
       ./aofserver -v or --version
       ./aofserver -h or --help

The config file is redis.conf syntax, or YAML when it ends in .yaml/.yml.
Options are any redis.conf directive as --name value; they override the file.
Extra options: --log-format json

Examples:
       ./aofserver (run the server with default config)
       ./aofserver redis.conf.example
       ./aofserver --port 7777 --appendonly yes --appendfsync always
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := dispatchCheck(os.Args[0], args, stdin, stdout, stderr); ok {
		return code
	}
	if len(args) == 2 && args[0] == server.ChildFlag {
		return server.RunSnapshotWriter(args[1])
	}
	if len(args) == 1 {
		switch args[0] {
		case "-v", "--version":
			fmt.Fprintf(stdout, "Redis server v=%s sha=00000000:0 malloc=go bits=64 build=aofserver\n", server.Version)
			return 0
		case "-h", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	oneMoreP()
	// AOFSERVER_CPUPROFILE=<file> writes a CPU profile until shutdown.
	if f := os.Getenv("AOFSERVER_CPUPROFILE"); f != "" {
		if pf, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(pf)
			defer func() { pprof.StopCPUProfile(); pf.Close() }()
		}
	}
	path := ""
	rest := args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "--") && rest[0] != "-" {
		path = rest[0]
		rest = rest[1:]
	}
	cfg, err := config.Load(path, rest, stdin)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	logOut := stdout
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "Can't open the log file: %v\n", err)
			return 1
		}
		defer f.Close()
		logOut = f
	}
	log := server.NewLogger(logOut, cfg.LogLevel, cfg.LogFormat)
	pid := os.Getpid()
	log.Warn().Msg("oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo")
	log.Warn().Msgf("Redis version=%s, bits=64, commit=00000000, modified=0, pid=%d, just started", server.Version, pid)
	if path == "" {
		log.Warn().Msg("Warning: no config file specified, using the default config. In order to specify a config file use ./aofserver /path/to/redis.conf")
	} else {
		log.Warn().Msg("Configuration loaded")
	}
	for _, name := range cfg.NoEffect() {
		log.Warn().Msgf("Config directive '%s' is accepted but has no effect in aofserver", name)
	}
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			log.Warn().Msgf("Can't chdir to '%s': %v", cfg.Dir, err)
			return 1
		}
	}
	s, err := server.New(cfg, log)
	if err != nil {
		log.Warn().Msgf("%v", err)
		return 1
	}
	if err := s.Listen(); err != nil {
		log.Warn().Msgf("Warning: Could not create server TCP listening socket %v: %v", cfg.Bind, err)
		log.Warn().Msgf("Failed listening on port %d (tcp), aborting.", cfg.Port)
		return 1
	}
	log.Info().Msgf("Running mode=standalone, port=%d.", cfg.Port)
	log.Info().Msgf(" PID: %d", pid)
	if cfg.Pidfile != "" {
		os.WriteFile(cfg.Pidfile, []byte(fmt.Sprintf("%d\n", pid)), 0o644)
		defer os.Remove(cfg.Pidfile)
	}
	log.Warn().Msg("Server initialized")
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	if err := s.LoadData(); err != nil {
		log.Warn().Msgf("%v", err)
		return 1
	}
	log.Info().Msg("Ready to accept connections tcp")

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	select {
	case sig := <-sigs:
		name := "SIGTERM"
		if sig == syscall.SIGINT {
			name = "SIGINT"
		}
		log.Warn().Msgf("Received %s scheduling shutdown...", name)
		log.Warn().Msg("User requested shutdown...")
	case <-s.Closing():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		log.Warn().Msgf("Errors trying to shut down the server: %v", err)
		return 1
	}
	log.Warn().Msg("Redis is now ready to exit, bye bye...")
	return 0
}

// oneMoreP runs the server with one more P than CPUs unless GOMAXPROCS is
// set. The network loop (in epoll_wait) and, under appendfsync always, the
// syncing loop goroutine or the AOF writer (in fdatasync) spend long
// stretches in blocking system calls; whenever they hold every P, the
// runtime's sysmon retakes one at its next 20 µs tick and keeps polling
// every 20 µs. Measured on 2 CPUs under always (2026-12-03, with the
// writer's fdatasync already entered as blocking): sysmon 14% -> 6% of the
// server's CPU at 50 clients, 24.7-25.2k -> 28.1-28.3k SET/s at 50
// clients and 319-322k -> 340-342k at -P 16; persistence off and everysec
// unchanged within noise. (An earlier try, before those changes, gained
// nothing once the loop yielded, and was reverted.)
func oneMoreP() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	}
}
