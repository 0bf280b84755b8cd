package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
)

// The persistence jobs on a crash-simulating file system: the server runs
// on an fsx.CrashFS with its snapshot writer in process (persist.Jobs.InProc), and
// a workload runs SAVE, BGSAVE, BGREWRITEAOF (with its temp base) and
// CONFIG REWRITE between acknowledged writes, and, when it started with
// the AOF off, turns it on (CONFIG SET appendonly yes: a temporary incr
// file while the first base is written). The loops then, for every
// operation i the workload makes on the file system,
//   - fail op i once: the reply and the log are Redis's for that failure,
//     the server goes on (the final SAVE and, with the AOF on,
//     BGREWRITEAOF succeed), and the directory left loads with every
//     acknowledged write;
//   - cut the power just before op i: a server started on what was
//     durable then loads it, with every write acknowledged by then, and
//     the config file is the old one or the new one (the new one if
//     CONFIG REWRITE had replied +OK), never the new one without our
//     directive's new value in the side file.
// The aof package's own loops cover the AOF's writes op by op; these cover
// the jobs that write the rest of the directory through the server.

const crashJobsConf = "# crash loop\nslowlog-max-len 128\n"

// crashJobs is one configuration of the loops.
type crashJobs struct {
	t     *testing.T
	dir   string // the data dir, also holding the config file
	conf  string
	aofOn bool
}

// jobsAcks is what a workload run acknowledged.
type jobsAcks struct {
	keys []string // keys whose value must survive a crash
	conf bool     // CONFIG REWRITE replied +OK
	// With the AOF turned on at run time (appendonly no at start): the
	// keys that must be in the AOF once its first rewrite is done.
	aofKeys []string
}

func (a jobsAcks) clone() jobsAcks {
	return jobsAcks{keys: slices.Clone(a.keys), conf: a.conf, aofKeys: slices.Clone(a.aofKeys)}
}

// jobsOutcome is what a workload run acknowledged, and its exit.
type jobsOutcome struct {
	mu       sync.Mutex
	acks     jobsAcks
	exited   bool // the server called exit (a fatal AOF error)
	exitSnap *fsx.CrashFS
	exitAcks jobsAcks
}

func (o *jobsOutcome) ack(keys ...string) {
	o.mu.Lock()
	o.acks.keys = append(o.acks.keys, keys...)
	o.mu.Unlock()
}

func (o *jobsOutcome) ackAOF(keys ...string) {
	o.mu.Lock()
	o.acks.aofKeys = append(o.acks.aofKeys, keys...)
	o.mu.Unlock()
}

func (o *jobsOutcome) snapshot() jobsAcks {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.acks.clone()
}

// newFS returns a CrashFS holding the data dir and the config file, durably.
func (cj *crashJobs) newFS() *fsx.CrashFS {
	c := fsx.NewCrashFS()
	if err := c.MkdirAll(cj.dir); err != nil {
		cj.t.Fatal(err)
	}
	if err := fsx.WriteFileAtomic(c, cj.conf, []byte(crashJobsConf)); err != nil {
		cj.t.Fatal(err)
	}
	return c
}

// start starts a server on c, its config read from c's config file (and
// side file); out, when not nil, records a call to exit.
func (cj *crashJobs) start(c *fsx.CrashFS, out *jobsOutcome, aofOn bool) (*Server, *lockedBuffer, error) {
	// config.Load reads the real file: mirror c's into the real dir.
	for _, p := range []string{cj.conf, config.SidePath(cj.conf)} {
		data, err := c.ReadAll(p)
		switch {
		case err == nil:
			if err := os.WriteFile(p, data, 0o644); err != nil {
				cj.t.Fatal(err)
			}
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				cj.t.Fatal(err)
			}
		default:
			cj.t.Fatal(err)
		}
	}
	appendonly := "no"
	if aofOn {
		appendonly = "yes"
	}
	cfg, err := config.Load(cj.conf, []string{"--port", "0", "--bind", "127.0.0.1", "--dir", cj.dir, "--save", "",
		"--appendonly", appendonly, "--appendfsync", "always", "--hz", "100"}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	logs := &lockedBuffer{}
	s, err := New(cfg, NewLogger(logs, "notice", ""))
	if err != nil {
		return nil, nil, err
	}
	s.testFS = c
	s.persist.Jobs.InProc = true
	s.exitFn = func(int) {
		if out == nil {
			return
		}
		out.mu.Lock()
		defer out.mu.Unlock()
		if !out.exited {
			// The process would end here: what is durable now is
			// what a restart finds.
			out.exited = true
			out.exitSnap = c.Crash()
			out.exitAcks = out.acks.clone()
		}
	}
	s.PickFreePort() // "--port 0": any free port, not TCP off
	if err := s.Listen(); err != nil {
		return nil, nil, err
	}
	go s.Serve()
	if err := s.LoadData(); err != nil {
		cj.stop(s)
		return nil, logs, err
	}
	return s, logs, nil
}

func (cj *crashJobs) stop(s *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.Shutdown(ctx)
}

// jobsDone waits until no job runs nor is scheduled, and returns INFO
// persistence.
func jobsDone(t *testing.T, rc *respConn) string {
	t.Helper()
	var info string
	waitFor(t, "the background job to end", func() bool {
		info = rc.do("INFO", "persistence")
		return strings.Contains(info, "rdb_bgsave_in_progress:0\r\n") &&
			strings.Contains(info, "aof_rewrite_in_progress:0\r\n") &&
			strings.Contains(info, "aof_rewrite_scheduled:0\r\n")
	})
	return info
}

// logHasOne fails unless the log holds one of lines.
func logHasOne(t *testing.T, what string, logs *lockedBuffer, lines ...string) {
	t.Helper()
	l := logs.String()
	for _, line := range lines {
		if strings.Contains(l, line) {
			return
		}
	}
	t.Fatalf("%s: the log has none of %q:\n%s", what, lines, l)
}

// workload runs the jobs on s. faulty: one op may fail, so each job's
// reply may be Redis's error for it, whose log line must then be there;
// the workload ends with a SAVE (and with the AOF on a BGREWRITEAOF) that
// must succeed. It returns early when the server exited.
func (cj *crashJobs) workload(t *testing.T, s *Server, logs *lockedBuffer, o *jobsOutcome, what string, faulty bool, fired func() bool) {
	rc := dial(t, s.Addr().String())
	defer rc.nc.Close()
	var pending []string // set, not yet durable (AOF off)
	var all []string     // every key set
	aofOn := cj.aofOn    // turned on at run time at the end
	gone := func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.exited
	}
	// do is rc.do; ok is false when the server exited meanwhile.
	do := func(args ...string) (string, bool) {
		r, err := tryDo(rc, args...)
		if err != nil && faulty {
			// Only a fatal AOF error (the server exiting) drops the
			// connection; exit may be called just after.
			waitFor(t, fmt.Sprintf("%s: exit after %q failed with %v", what, args, err), gone)
			return "", false
		} else if err != nil {
			t.Fatalf("%s: %q: %v\n%s", what, args, err, logs.String())
		}
		return r, true
	}
	set := func(k string) {
		if gone() {
			return
		}
		r, ok := do("SET", k, "v-"+k)
		if !ok {
			return
		}
		if r == "+OK\r\n" {
			all = append(all, k)
		}
		switch {
		case r == "+OK\r\n" && cj.aofOn:
			o.ack(k) // appendfsync always: +OK means on disk
		case r == "+OK\r\n" && aofOn:
			o.ackAOF(k) // the AOF turned on at run time, its base done
		case r == "+OK\r\n":
			pending = append(pending, k)
		case strings.HasPrefix(r, "-MISCONF Errors writing to the AOF file: ") && faulty:
			// The old incr's fsync after a rewrite's switch failed:
			// Redis refuses writes (aof_bio_fsync_status) until one
			// succeeds.
			logHasOne(t, what+": SET", logs, "Fail to fsync the AOF file")
		case !faulty || !gone():
			t.Fatalf("%s: SET %s: %q", what, k, r)
		}
	}
	saved := func(keys []string) {
		if !cj.aofOn {
			o.ack(keys...)
		}
	}
	save := func(final bool) {
		if gone() {
			return
		}
		keys := slices.Clone(pending)
		r, ok := do("SAVE")
		switch {
		case !ok:
		case r == "+OK\r\n":
			saved(keys)
		case r == "-ERR\r\n" && faulty && !final:
			logHasOne(t, what+": SAVE", logs, "Failed opening the temp RDB file", "Write error saving DB on disk", "Error moving temp DB file")
		default:
			t.Fatalf("%s: SAVE: %q\n%s", what, r, logs.String())
		}
	}
	bgsave := func() {
		if gone() {
			return
		}
		keys := slices.Clone(pending)
		if r, ok := do("BGSAVE"); !ok {
			return
		} else if r != "+Background saving started\r\n" {
			t.Fatalf("%s: BGSAVE: %q\n%s", what, r, logs.String())
		}
		switch info := jobsDone(t, rc); {
		case strings.Contains(info, "rdb_last_bgsave_status:ok\r\n"):
			logHasOne(t, what+": BGSAVE", logs, "Background saving terminated with success")
			saved(keys)
		case faulty:
			// The writer's line (Redis's child logs it) or the install's,
			// then the parent's.
			logHasOne(t, what+": BGSAVE", logs, "Failed opening the temp RDB file", "Write error saving DB on disk",
				"Error moving temp DB file on the final destination")
			logHasOne(t, what+": BGSAVE", logs, "Background saving error")
		default:
			t.Fatalf("%s: BGSAVE failed:\n%s", what, logs.String())
		}
	}
	rewrite := func(final bool) {
		if gone() {
			return
		}
		r, ok := do("BGREWRITEAOF")
		switch {
		case !ok:
			return
		case r == "+Background append only file rewriting started\r\n":
		case r == "-ERR Can't execute an AOF background rewriting. Please check the server logs for more information.\r\n" && faulty && !final:
			// The new incr file or the manifest naming it could not be
			// written (openNewIncrAofForAppend's lines), the fork failed,
			// or, with the AOF off, the manifest could not be read:
			// aof.Open logs the start-up line.
			logHasOne(t, what+": BGREWRITEAOF", logs, "Can't open the append-only file appendonly.aof.",
				"Fail to persist the AOF manifest file", "Can't rewrite append only file in background",
				"Can't open or create append-only dir appendonlydir", "Fatal error: can't open the AOF manifest file")
			return
		default:
			t.Fatalf("%s: BGREWRITEAOF: %q\n%s", what, r, logs.String())
		}
		switch info := jobsDone(t, rc); {
		case strings.Contains(info, "aof_last_bgrewrite_status:ok\r\n"):
			logHasOne(t, what+": BGREWRITEAOF", logs, "Background AOF rewrite finished successfully")
		case faulty && !final:
			if strings.Contains(logs.String(), "Background AOF rewrite terminated with error") {
				// The writer failed: its line comes first.
				logHasOne(t, what+": BGREWRITEAOF", logs, "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile()",
					"Write error writing append only file on disk", "Error moving temp append only file on the final destination")
			}
			logHasOne(t, what+": BGREWRITEAOF", logs, "Background AOF rewrite terminated with error",
				"Error trying to rename the temporary AOF file",
				// A failed switch to the new incr file was logged when it
				// happened (the reply to BGREWRITEAOF had gone already).
				"Fail to persist the AOF manifest file", "Can't open the append-only file",
				"Can't open or create append-only dir appendonlydir")
		default:
			t.Fatalf("%s: BGREWRITEAOF failed:\n%s", what, logs.String())
		}
	}
	set("a1")
	set("a2")
	save(false)
	set("b1")
	bgsave()
	set("c1")
	rewrite(false)
	set("d1")
	if !gone() {
		// One of Redis's directives (the main file) and one of ours (the
		// side file, written first).
		if r, _ := do("CONFIG", "SET", "slowlog-max-len", "77", "aof-group-commit-max-batch", "77"); r != "+OK\r\n" && !gone() {
			t.Fatalf("%s: CONFIG SET: %q", what, r)
		}
		r, ok := do("CONFIG", "REWRITE")
		switch {
		case !ok:
		case r == "+OK\r\n":
			logHasOne(t, what+": CONFIG REWRITE", logs, "CONFIG REWRITE executed with success.")
			o.mu.Lock()
			o.acks.conf = true
			o.mu.Unlock()
		case strings.HasPrefix(r, "-ERR Rewriting config file: ") && faulty:
			logHasOne(t, what+": CONFIG REWRITE", logs, "CONFIG REWRITE failed: "+strings.TrimSuffix(r[len("-ERR Rewriting config file: "):], "\r\n"))
		default:
			t.Fatalf("%s: CONFIG REWRITE: %q\n%s", what, r, logs.String())
		}
	}
	set("e1")
	// The next jobs run, whatever failed before; they may fail only if
	// the injected failure is theirs.
	final := !faulty || fired()
	save(final)
	if cj.aofOn {
		rewrite(final)
	}
	set("f1")
	if !cj.aofOn {
		cj.turnAOFOn(t, rc, do, logs, what, faulty, func(keys []string) {
			o.ackAOF(keys...)
			aofOn = true
		}, slices.Clone(all))
		set("g1")
	}
}

// turnAOFOn is CONFIG SET appendonly yes (Redis's AOF_WAIT_REWRITE: a
// temporary incr file while the first base is written); once its rewrite
// is done, keys (every key set before) must be in the AOF: on is called.
func (cj *crashJobs) turnAOFOn(t *testing.T, rc *respConn, do func(...string) (string, bool), logs *lockedBuffer, what string, faulty bool, on func(keys []string), keys []string) {
	r, ok := do("CONFIG", "SET", "appendonly", "yes")
	switch {
	case !ok:
		return
	case r == "+OK\r\n":
	case faulty && strings.HasPrefix(r, "-ERR CONFIG SET failed (possibly related to argument 'appendonly')"):
		// Redis's config.c line; before it, the cause (unlike Redis,
		// which holds the manifest in memory, ours reads it again: a
		// failed read logs aof.Open's start-up lines).
		logHasOne(t, what+": CONFIG SET appendonly yes", logs, "Failed applying new configuration. Possibly related to new appendonly setting. Restoring previous settings.")
		return
	default:
		t.Fatalf("%s: CONFIG SET appendonly yes: %q\n%s", what, r, logs.String())
	}
	// A failed first rewrite is retried (aof_rewrite_scheduled) until one
	// is done.
	info := jobsDone(t, rc)
	if !strings.Contains(info, "aof_enabled:1\r\n") || !strings.Contains(info, "aof_last_bgrewrite_status:ok\r\n") {
		t.Fatalf("%s: the AOF turned on is not done:\n%s\n%s", what, info, logs.String())
	}
	on(keys)
}

// tryDo is respConn.do returning a read error instead of failing.
func tryDo(rc *respConn, args ...string) (string, error) {
	rc.send(args...)
	rc.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	return readRaw(rc.br)
}

// isNewConf tells a config file CONFIG REWRITE wrote from the workload's
// (the port, resolved at listen time, differs from run to run).
func isNewConf(conf string) bool {
	return strings.HasPrefix(conf, "# crash loop\nslowlog-max-len 77\n\n# Generated by CONFIG REWRITE\n") &&
		strings.HasSuffix(conf, "user default on nopass ~* &* +@all\n")
}

// recovered checks that the config file is the old or the new one (the
// new one if CONFIG REWRITE was acknowledged), that a server started on c
// loads with every acknowledged key, and, for a run that turned the AOF on,
// that one started on it with the AOF on loads too, with every key
// acknowledged in the AOF.
func (cj *crashJobs) recovered(t *testing.T, what string, c *fsx.CrashFS, acks jobsAcks) {
	t.Helper()
	conf, err := c.ReadAll(cj.conf)
	if err != nil {
		t.Fatalf("%s: the config file is gone: %v\n%s", what, err, c)
	}
	switch {
	case isNewConf(string(conf)):
	case string(conf) == crashJobsConf && !acks.conf:
	default:
		t.Fatalf("%s: config file (CONFIG REWRITE acknowledged: %v):\n%s", what, acks.conf, conf)
	}
	// The side file is replaced first: our value is never in neither.
	side, err := c.ReadAll(config.SidePath(cj.conf))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if isNewConf(string(conf)) && !strings.Contains(string(side), "\naof-group-commit-max-batch 77\n") {
		t.Fatalf("%s: the main file was rewritten, the side file holds:\n%s", what, side)
	}
	cj.restartHas(t, what, c, cj.aofOn, acks.keys)
	if !cj.aofOn {
		// Last: a start with the AOF on writes a base when there is none.
		cj.restartHas(t, what+", restarted with appendonly yes", c, true, acks.aofKeys)
	}
}

// restartHas starts a server on c (appendonly as aofOn) and checks it has
// every key of acked.
func (cj *crashJobs) restartHas(t *testing.T, what string, c *fsx.CrashFS, aofOn bool, acked []string) {
	t.Helper()
	s, logs, err := cj.start(c, nil, aofOn)
	if err != nil {
		l := ""
		if logs != nil {
			l = logs.String()
		}
		t.Fatalf("%s: restart: %v\n%s\nfiles:\n%s", what, err, l, c)
	}
	defer cj.stop(s)
	rc := dial(t, s.Addr().String())
	defer rc.nc.Close()
	for _, k := range acked {
		if r := rc.do("GET", k); r != fmt.Sprintf("$%d\r\nv-%s\r\n", len(k)+2, k) {
			t.Fatalf("%s: acknowledged %s lost: GET %q (acknowledged %q)\nlog:\n%s\nfiles:\n%s", what, k, r, acked, logs.String(), c)
		}
	}
}

func TestCrashLoopsOverJobs(t *testing.T) {
	for _, aofOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("appendonly=%v", aofOn), func(t *testing.T) {
			dir := t.TempDir()
			cj := &crashJobs{t: t, dir: dir, conf: filepath.Join(dir, "redis.conf"), aofOn: aofOn}
			cj.loops(t)
		})
	}
}

func (cj *crashJobs) loops(t *testing.T) {
	// A clean run: how many ops it takes, and the rewritten config.
	base := cj.newFS()
	o := &jobsOutcome{}
	s, logs, err := cj.start(base, o, cj.aofOn)
	if err != nil {
		t.Fatal(err)
	}
	start := base.Ops()
	cj.workload(t, s, logs, o, "clean", false, nil)
	total := base.Ops() - start
	cj.stop(s)
	newConf, err := base.ReadAll(cj.conf)
	if err != nil || !isNewConf(string(newConf)) {
		t.Fatalf("clean run: config %q, %v", newConf, err)
	}
	cj.recovered(t, "clean", base.Crash(), o.snapshot())
	step := 1
	if testing.Short() {
		step = 5
	}
	t.Logf("%d ops, every %d", total, step)
	for i := 0; i <= total+3; i += step {
		// Op i fails once.
		{
			what := fmt.Sprintf("fail op %d", i)
			c := cj.newFS()
			o := &jobsOutcome{}
			s, logs, err := cj.start(c, o, cj.aofOn)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			start := c.Ops()
			var failed atomic.Value
			c.SetInjector(func(op fsx.Op, path string) (err error) {
				if c.Ops()-start == i {
					once.Do(func() {
						err = fmt.Errorf("injected failure of %s %s", op, path)
						failed.Store(err.Error())
						fmt.Fprintf(logs, "(test: %v)\n", err)
					})
				}
				return err
			})
			cj.workload(t, s, logs, o, what, true, func() bool { return failed.Load() != nil })
			if f, _ := failed.Load().(string); f != "" {
				what += " (" + f + ")"
			}
			c.SetInjector(nil)
			cj.stop(s)
			o.mu.Lock()
			exited, exitSnap, exitAcks := o.exited, o.exitSnap, o.exitAcks
			o.mu.Unlock()
			if exited {
				cj.recovered(t, what+", exited", exitSnap, exitAcks)
				continue
			}
			cj.recovered(t, what+", crash after", c.Crash(), o.snapshot())
		}
		// Power cut just before op i.
		{
			what := fmt.Sprintf("crash before op %d", i)
			c := cj.newFS()
			o := &jobsOutcome{}
			s, logs, err := cj.start(c, o, cj.aofOn)
			if err != nil {
				t.Fatal(err)
			}
			start := c.Ops()
			var snap *fsx.CrashFS
			var acksAt jobsAcks
			c.SetInjector(func(op fsx.Op, path string) error {
				if snap == nil && c.Ops()-start == i {
					acksAt = o.snapshot()
					snap = c.Crash()
				}
				return nil
			})
			cj.workload(t, s, logs, o, what, false, nil)
			c.SetInjector(nil)
			cj.stop(s)
			if snap == nil {
				snap = c.Crash()
				acksAt = o.snapshot()
			}
			cj.recovered(t, what, snap, acksAt)
		}
	}
}
