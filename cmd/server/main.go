// Command aofserver is a Redis 7.0-compatible server with Redis's
// multi-part AOF persistence. It is invoked like redis-server:
//
//	aofserver [config-file] [--directive value ...] [-]
//
// main only wires packages together: config → server → signals.
package main

import (
	"context"
	"errors"
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
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/persist"
	"github.com/aofserver/aofserver/server"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `Usage: ./aofserver [/path/to/redis.conf] [options] [-]
       ./aofserver - (read config from stdin)
       ./aofserver -v or --version
       ./aofserver -h or --help
       ./aofserver --check-aof [--fix|--truncate-to-timestamp <t>] [--in-place] [--out <path>] [--replay] <file.manifest|file.aof>
       ./aofserver --check-rdb <dump.rdb>

The config file is redis.conf syntax, or YAML when it ends in .yaml/.yml.
aofserver's own directives go in <config-file>.aofserver, read after it
(real Redis refuses them). Options are any directive as --name value; they
override both files. Extra options: --log-format json

--check-aof and --check-rdb are redis-check-aof and redis-check-rdb (also run
when the binary is invoked under those names). --fix repairs a copy
(<dir>.fixed or --out), leaving the original untouched; --in-place truncates
the original, as Redis does. --replay also replays the AOF into a scratch
server and reports commands that would fail.

Examples:
       ./aofserver (run the server with default config)
       ./aofserver redis.conf.example
       ./aofserver --port 7777 --appendonly yes --appendfsync always
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := dispatchCheck(os.Args[0], args, stdin, stdout, stderr); ok {
		return code
	}
	if code, ok := persist.RunChild(args); ok {
		return code
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
	// cpu-profile <file> (our directive) writes a CPU profile until a signal
	// stops the server (SHUTDOWN's exit cuts it short).
	if cfg.CPUProfile != "" {
		pf, err := fsx.OS().Create(cfg.CPUProfile)
		if err == nil {
			err = pprof.StartCPUProfile(pf)
		}
		if err != nil {
			fmt.Fprintf(stderr, "cpu-profile %s: %v\n", cfg.CPUProfile, err)
			return 1
		}
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	logOut := stdout
	if cfg.LogFile != "" {
		f, err := fsx.OS().OpenAppend(cfg.LogFile)
		if err != nil {
			fmt.Fprintf(stderr, "Can't open the log file: %v\n", err)
			return 1
		}
		defer f.Close()
		logOut = f
	}
	// Until initServer sets server.pid, Redis marks its lines with the
	// child role letter: "pid:C ... Redis is starting".
	boot := server.NewLoggerRole(logOut, cfg.LogLevel, cfg.LogFormat, 'C')
	log := server.NewLogger(logOut, cfg.LogLevel, cfg.LogFormat)
	pid := os.Getpid()
	boot.Warn().Msg("oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo")
	boot.Warn().Msgf("Redis version=%s, bits=64, commit=00000000, modified=0, pid=%d, just started", server.Version, pid)
	// As Redis: any argument at all (a file, options or "-") counts as a
	// configuration; the warning names the program as invoked.
	if len(args) == 0 {
		boot.Warn().Msgf("Warning: no config file specified, using the default config. In order to specify a config file use %s /path/to/redis.conf", os.Args[0])
	} else {
		boot.Warn().Msg("Configuration loaded")
	}
	for _, name := range cfg.NoEffect() {
		boot.Warn().Msgf("Config directive '%s' is accepted but has no effect in aofserver", name)
	}
	if cfg.Dir != "" {
		if err := fsx.OS().MkdirAll(cfg.Dir); err != nil {
			boot.Warn().Msgf("Can't chdir to '%s': %v", cfg.Dir, err)
			return 1
		}
	}
	s, err := server.New(cfg, log)
	if err != nil {
		log.Warn().Msgf("%v", err)
		return 1
	}
	s.OwnProcess()
	if err := s.Listen(); err != nil {
		var uerr *server.UnixSocketError
		if errors.As(err, &uerr) || errors.Is(err, server.ErrNoListeners) {
			log.Warn().Msg(err.Error())
			return 1
		}
		log.Warn().Msgf("Warning: Could not create server TCP listening socket %v: %v", cfg.Bind, err)
		log.Warn().Msgf("Failed listening on port %d (tcp), aborting.", cfg.Port)
		return 1
	}
	log.Info().Msgf("Running mode=standalone, port=%d.", cfg.Port)
	if cfg.Pidfile != "" {
		// Redis 7.0.15's createPidFile ignores a failure (no log line), and
		// so does its unlink at exit.
		fsx.WriteFile(fsx.OS(), cfg.Pidfile, []byte(fmt.Sprintf("%d\n", pid)))
		defer fsx.OS().Remove(cfg.Pidfile)
	}
	// Redis installs its handlers in initServer, before loading: a
	// SIGTERM while the data loads ends the process cleanly (exit 0).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	log.Warn().Msg("Server initialized")
	if err := s.ACLStartup(); err != nil {
		log.Warn().Msgf("%v", err)
		return 1
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	loaded := make(chan error, 1)
	go func() { loaded <- s.LoadData() }()
	select {
	case err := <-loaded:
		if err != nil {
			if cfg.AppendOnly {
				// The aof package has already logged Redis's lines for
				// every failure it returns; a second, Go-worded copy
				// would make the log differ from Redis's (tests count
				// the lines). The detail stays available at verbose.
				log.Debug().Msgf("AOF loading failed: %v", err)
			} else {
				log.Warn().Msgf("%v", err)
			}
			return 1
		}
	case <-sigs:
		// Redis's whileBlockedCron: shut down without saving, without
		// waiting for the load to finish (the loader is abandoned with
		// the process).
		server.LogFromHandler(logOut, cfg.LogFormat, "Received shutdown signal during loading, scheduling shutdown.")
		log.Warn().Msg("User requested shutdown...")
		s.FinishShutdown()
		log.Warn().Msg("Redis is now ready to exit, bye bye...")
		return 0
	}
	log.Info().Msg("Ready to accept connections")
	if cfg.UnixSocket != "" {
		log.Info().Msgf("The server is now ready to accept connections at %s", cfg.UnixSocket)
	}

wait:
	for {
		select {
		case sig := <-sigs:
			name := "SIGTERM"
			if sig == syscall.SIGINT {
				name = "SIGINT"
			}
			server.LogFromHandler(logOut, cfg.LogFormat, "Received "+name+" scheduling shutdown...")
			log.Warn().Msg("User requested shutdown...")
			// As Redis: a save that fails keeps the server running.
			if s.PrepareShutdownOnSignal() {
				break wait
			}
		case <-s.Closing():
			break wait
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		log.Warn().Msgf("Errors trying to shut down the server: %v", err)
		return 1
	}
	s.FinishShutdown()
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
