package main

// The offline checkers: redis-check-aof and redis-check-rdb. They run when
// the binary is invoked under one of those names, or as
// "aofserver --check-aof ..." / "aofserver --check-rdb <file>".
//
// By default they print what Redis 7.0.15's tools print and exit with the
// same codes. Differences, all opt-in or safer:
//
//   - --fix and --truncate-to-timestamp do not touch the checked files: the
//     first truncation copies the AOF directory (or the single file) to
//     "<dir>.fixed" (or --out <path>) and truncates the copy. Redis's lines
//     about the truncation ("Successfully truncated AOF <name>", and "All AOF
//     files and manifest are valid" after one) would be false of the
//     untouched original, so they name the copy instead, and a summary says
//     what was dropped, counting only what is certain. --in-place restores
//     Redis's behaviour and output exactly: truncate the original, after a
//     y/N prompt for --fix.
//   - --replay adds a semantic check: the files are replayed into a scratch
//     in-process server (appendonly off, its own temp dir, 127.0.0.1 on a
//     free port) over a local connection, and every command that would be
//     refused or would fail is reported with its file and offset: unknown
//     commands, wrong arity, WRONGTYPE and other error replies, unbalanced
//     MULTI/EXEC, and commands Redis never propagates. Base RDB keys are
//     loaded with RESTORE (keys whose TTL has passed are kept without one,
//     since Redis keeps them while loading). Unknown commands, wrong arity
//     and unbalanced transactions make the exit code 1 (Redis could not load
//     the file, or would run the command without its arity check); other
//     error replies are warnings, as Redis's loader logs them and goes on.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/config"
	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/rdb"
	"github.com/aofserver/aofserver/server"
)

// dispatchCheck runs a checker when argv0's base name or the first argument
// asks for one; ok is false otherwise.
func dispatchCheck(argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	switch filepath.Base(argv0) {
	case "redis-check-aof":
		return runCheckAOF(argv0, args, stdin, stdout), true
	case "redis-check-rdb":
		return runCheckRDB(argv0, args, stdout, stderr), true
	}
	if len(args) > 0 {
		switch args[0] {
		case "--check-aof":
			return runCheckAOF("redis-check-aof", args[1:], stdin, stdout), true
		case "--check-rdb":
			return runCheckRDB("redis-check-rdb", args[1:], stdout, stderr), true
		}
	}
	return 0, false
}

// runCheckRDB is redis-check-rdb <file>.
func runCheckRDB(prog string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "Usage: %s <rdb-file-name>\n", prog)
		return 1
	}
	if args[0] == "-v" || args[0] == "--version" {
		fmt.Fprintf(stdout, "redis-check-rdb %s\n", server.Version)
		return 0
	}
	f, err := os.Open(args[0])
	if err != nil {
		fmt.Fprintf(stdout, "[offset 0] Checking RDB file %s\n", args[0])
		return 1
	}
	defer f.Close()
	res := rdb.Check(bufio.NewReaderSize(f, 1<<17), args[0], stdout, rdb.CheckOptions{Now: time.Now().UnixMilli()})
	if res.Terminated {
		logTerminated(stdout)
	}
	if !res.OK {
		return 1
	}
	return 0
}

// logTerminated prints the serverLog line with which Redis's RDB loader
// ends the process on corrupt content.
func logTerminated(w io.Writer) {
	fmt.Fprintf(w, "%d:C %s # Terminating server after rdb file reading failure.\n", os.Getpid(), time.Now().Format("02 Jan 2006 15:04:05.000"))
}

const checkAOFExtraUsage = `Extra options (aofserver):
  --fix                 repair into a copy: <dir>.fixed (or <file>.fixed), original untouched
  --out <path>          where --fix or --truncate-to-timestamp writes the repaired copy
  --in-place            truncate the original instead (as Redis; --fix asks y/N first)
  --replay              also replay the files into a scratch server and report unknown
                        commands, wrong arity, WRONGTYPE and other errors, unbalanced MULTI/EXEC
`

type checkAOFArgs struct {
	path    string
	fix     bool
	inPlace bool
	out     string
	replay  bool
	ts      int64
}

// parseCheckAOFArgs returns a message to print and false on bad arguments.
func parseCheckAOFArgs(prog string, args []string) (checkAOFArgs, string, bool) {
	var a checkAOFArgs
	usage := fmt.Sprintf("Usage: %s [--fix|--truncate-to-timestamp $timestamp] <file.manifest|file.aof>\n%s", prog, checkAOFExtraUsage)
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--fix":
			a.fix = true
		case "--in-place":
			a.inPlace = true
		case "--replay":
			a.replay = true
		case "--out":
			if i+1 >= len(args) {
				return a, usage, false
			}
			i++
			a.out = args[i]
		case "--truncate-to-timestamp":
			if i+1 >= len(args) {
				return a, usage, false
			}
			i++
			t, err := strconv.ParseInt(args[i], 10, 64)
			if err != nil {
				return a, "Invalid timestamp, aborting...\n", false
			}
			a.ts = t
		default:
			if strings.HasPrefix(args[i], "--") || a.path != "" {
				return a, usage, false
			}
			a.path = args[i]
		}
	}
	if a.path == "" || (a.fix && a.ts != 0) {
		return a, usage, false
	}
	return a, "", true
}

// runCheckAOF is redis-check-aof.
func runCheckAOF(prog string, args []string, stdin io.Reader, stdout io.Writer) int {
	a, msg, ok := parseCheckAOFArgs(prog, args)
	if !ok {
		fmt.Fprint(stdout, msg)
		return 1
	}
	opt := aof.CheckOptions{
		Path:                a.path,
		Fix:                 a.fix,
		Confirm:             a.fix && a.inPlace,
		TruncateToTimestamp: a.ts,
		Stdin:               stdin,
		Out:                 stdout,
	}
	var cp *fixCopy
	if (a.fix || a.ts != 0) && !a.inPlace {
		cp = &fixCopy{input: a.path, out: a.out}
		opt.Out = &copyModeWriter{w: stdout, cp: cp}
		opt.Truncate = func(path string, size int64) error {
			err := cp.truncate(path, size)
			if err != nil {
				fmt.Fprintf(stdout, "Cannot write the repaired copy: %v\n", err)
			}
			return err
		}
	}
	var rp *replayer
	if a.replay {
		var err error
		rp, err = startReplayer()
		if err != nil {
			fmt.Fprintf(stdout, "Cannot start the replay server: %v\n", err)
			return 1
		}
		defer rp.close()
		opt.Replayer = rp
	}
	opt.CheckRDB = func(r *bufio.Reader, name string, out io.Writer) aof.RDBVerdict {
		o := rdb.CheckOptions{Now: time.Now().UnixMilli()}
		if rp != nil {
			o.Key = rp.restore
		}
		res := rdb.Check(r, name, out, o)
		if rp != nil {
			rp.endRDB()
		}
		switch {
		case res.OK:
			return aof.RDBSane
		case res.Terminated:
			logTerminated(out)
			return aof.RDBTerminated
		}
		return aof.RDBInvalid
	}
	code, res := aof.Check(opt)
	if cp != nil {
		opt.Out.(*copyModeWriter).flush()
		for _, t := range res.Truncations {
			fmt.Fprintf(stdout, "In the repaired copy %s, AOF %s was cut from %d to %d bytes, dropping %s\n",
				cp.dest, t.File, t.Size, t.To, droppedText(t))
		}
		if cp.dest != "" {
			fmt.Fprintf(stdout, "The original files are untouched; the repaired copy is %s\n", cp.dest)
		}
	}
	if rp != nil {
		if rp.report(stdout) && code == 0 {
			code = 1
		}
	}
	return code
}

// droppedText says what a truncation dropped, as far as it is certain:
// aof.Truncation counts the complete commands from the cut up to the first
// bytes that do not parse as one (a torn command, or garbage that may hide
// more commands, which are not counted then). Its key count is a guess
// (the first argument of each command), so it is not printed.
func droppedText(t aof.Truncation) string {
	cmds := fmt.Sprintf("%d complete command", t.Commands)
	if t.Commands != 1 {
		cmds += "s"
	}
	switch {
	case !t.Torn:
		return cmds
	case t.Commands == 0:
		return "data that does not parse as a command"
	}
	return cmds + ", then data that does not parse as a command"
}

// copyModeWriter passes redis-check-aof's output through, line by line,
// rewriting the lines that would claim the original was truncated: in copy
// mode only the copy is. (aof.Check prints Redis's exact text, which stays
// true with --in-place.)
type copyModeWriter struct {
	w         io.Writer
	cp        *fixCopy
	buf       []byte
	truncated bool // a truncation line was rewritten
}

func (cw *copyModeWriter) Write(p []byte) (int, error) {
	cw.buf = append(cw.buf, p...)
	for {
		i := bytes.IndexByte(cw.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := io.WriteString(cw.w, cw.rewrite(string(cw.buf[:i+1]))); err != nil {
			return len(p), err
		}
		cw.buf = cw.buf[i+1:]
	}
}

// flush writes a last line without a newline.
func (cw *copyModeWriter) flush() {
	if len(cw.buf) > 0 {
		io.WriteString(cw.w, cw.rewrite(string(cw.buf)))
		cw.buf = nil
	}
}

func (cw *copyModeWriter) rewrite(line string) string {
	const done = "Successfully truncated AOF "
	switch {
	case strings.HasPrefix(line, done) && cw.cp.dest != "":
		cw.truncated = true
		return "Truncated the repaired copy of AOF " + line[len(done):len(line)-1] + " in " + cw.cp.dest + "\n"
	case line == "All AOF files and manifest are valid\n" && cw.truncated:
		return "All AOF files and manifest are valid in the repaired copy " + cw.cp.dest + "\n"
	}
	return line
}

// fixCopy makes the repaired copy on the first truncation.
type fixCopy struct {
	input string // the path given on the command line
	out   string // --out, or ""
	dest  string // set once the copy exists
}

// truncate copies the AOF (the directory holding the manifest, or the single
// file) to the destination, the copy of path cut to size, through fsx: each
// copy is fsynced, then the directories that name them, so the repaired copy
// is durable once it is reported.
func (fc *fixCopy) truncate(path string, size int64) error {
	if fc.dest != "" {
		return errors.New("already repaired once")
	}
	fsys := fsx.OS()
	if filepath.Clean(path) == filepath.Clean(fc.input) {
		dest := fc.out
		if dest == "" {
			dest = fc.input + ".fixed"
		}
		if err := copyFile(fsys, path, dest, size); err != nil {
			return err
		}
		fc.dest = dest
		return fsys.SyncDir(filepath.Dir(dest))
	}
	src := filepath.Dir(path)
	abs, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	dest := fc.out
	if dest == "" {
		dest = abs + ".fixed"
	}
	if err := mustNotExist(fsys, "mkdir", dest); err != nil {
		return err
	}
	if err := fsys.MkdirAll(dest); err != nil {
		return err
	}
	// Listing is a read: os.ReadDir gives the entry types (fsx's names
	// only), and only regular files are copied.
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		limit := int64(-1)
		if e.Name() == filepath.Base(path) {
			limit = size
		}
		if err := copyFile(fsys, filepath.Join(src, e.Name()), filepath.Join(dest, e.Name()), limit); err != nil {
			return err
		}
	}
	fc.dest = dest
	if err := fsys.SyncDir(dest); err != nil {
		return err
	}
	return fsys.SyncDir(filepath.Dir(filepath.Clean(dest)))
}

// mustNotExist fails with EEXIST when path exists: the repaired copy never
// overwrites anything (a file or directory left by an earlier repair).
func mustNotExist(fsys fsx.FS, op, path string) error {
	_, err := fsys.Stat(path)
	switch {
	case err == nil:
		return &fs.PathError{Op: op, Path: path, Err: syscall.EEXIST}
	case errors.Is(err, fs.ErrNotExist):
		return nil
	}
	return err
}

// copyFile copies src to the new file dst (at most limit bytes when limit
// is not negative) and fsyncs it.
func copyFile(fsys fsx.FS, src, dst string, limit int64) error {
	in, err := fsys.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := mustNotExist(fsys, "open", dst); err != nil {
		return err
	}
	out, err := fsys.Create(dst)
	if err != nil {
		return err
	}
	var r io.Reader = in
	if limit >= 0 {
		r = io.LimitReader(in, limit)
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ---------------------------------------------------------------- replay

// replayer feeds the checked files to a scratch server over a pipelined
// local connection and collects the problems.
type replayer struct {
	s      *server.Server
	tmp    string
	conn   net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	pend   []pending
	finds  []finding
	cmds   int
	keys   int
	db     int // db of the last RESTORE
	file   string
	files  map[string]int // file name -> load order, for sorting findings
	multi  bool
	multiO int64
}

type pending struct {
	file string
	off  int64
	cmd  string // printable summary
	key  bool   // a RESTORE of a base key
}

type finding struct {
	order int
	file  string
	off   int64
	cmd   string
	kind  string
	msg   string
	fatal bool
}

const replayBatch = 256

// notPropagated are commands Redis never writes to an AOF; replaying them
// could stop or reconfigure the scratch server, so they are reported instead.
var notPropagated = map[string]bool{
	"shutdown": true, "debug": true, "config": true, "save": true, "bgsave": true, "bgrewriteaof": true,
	"replicaof": true, "slaveof": true, "sync": true, "psync": true, "monitor": true, "subscribe": true,
	"psubscribe": true, "ssubscribe": true, "quit": true, "reset": true, "failover": true, "client": true,
	"module": true, "acl": true, "hello": true, "auth": true, "wait": true,
}

func startReplayer() (*replayer, error) {
	tmp, err := os.MkdirTemp("", "aofcheck-replay-")
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load("", []string{"--port", "0", "--bind", "127.0.0.1", "--dir", tmp, "--save", "",
		"--appendonly", "no", "--dbfilename", "replay.rdb"}, nil)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	s, err := server.New(cfg, server.NewLogger(io.Discard, "warning", ""))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	s.PickFreePort() // "--port 0": any free port, not TCP off
	if err := s.Listen(); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	go s.Serve()
	r := &replayer{s: s, tmp: tmp}
	if err := s.LoadData(); err != nil {
		r.close()
		return nil, err
	}
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		r.close()
		return nil, err
	}
	r.conn, r.br, r.bw = conn, bufio.NewReaderSize(conn, 1<<16), bufio.NewWriterSize(conn, 1<<16)
	return r, nil
}

func (r *replayer) close() {
	if r.conn != nil {
		r.conn.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.s.Shutdown(ctx)
	os.RemoveAll(r.tmp)
}

func (r *replayer) add(kind, msg string, fatal bool, file string, off int64, cmd string) {
	r.finds = append(r.finds, finding{order: r.files[file], file: file, off: off, cmd: cmd, kind: kind, msg: msg, fatal: fatal})
}

// BeginFile: Redis loads each file with a fresh client in DB 0.
func (r *replayer) BeginFile(name string) {
	r.endFile()
	r.file = name
	if r.files == nil {
		r.files = map[string]int{}
	}
	if _, ok := r.files[name]; !ok {
		r.files[name] = len(r.files)
	}
	r.send(pending{}, [][]byte{[]byte("SELECT"), []byte("0")})
}

func (r *replayer) endFile() {
	if r.multi {
		r.add("multi", "MULTI never closed by EXEC (Redis drops the transaction)", true, r.file, r.multiO, "MULTI")
	}
	r.multi = false
}

func (r *replayer) Command(name string, off int64, argv [][]byte) {
	r.cmds++
	cmd := strings.ToLower(string(argv[0]))
	sum := summarize(argv)
	switch {
	case cmd == "multi":
		if r.multi {
			r.add("multi", "nested MULTI", true, name, off, sum)
		}
		r.multi, r.multiO = true, off
		return
	case cmd == "exec":
		if !r.multi {
			r.add("multi", "EXEC without MULTI", true, name, off, sum)
		}
		r.multi = false
		return
	case notPropagated[cmd]:
		r.add("other", "not a command Redis propagates to the AOF; not replayed", false, name, off, sum)
		return
	}
	r.send(pending{file: name, off: off, cmd: sum}, argv)
}

// restore loads one base key (rdb.CheckOptions.Key).
func (r *replayer) restore(db int, key []byte, v *rdb.Value, expireMs int64) error {
	if db != r.db {
		r.send(pending{}, [][]byte{[]byte("SELECT"), []byte(strconv.Itoa(db))})
		r.db = db
	}
	payload := rdb.DumpPayload(v, rdb.EncoderOptions{Compression: true, Checksum: true, Limits: rdb.DefaultLimits()})
	ttl := "0"
	if expireMs > time.Now().UnixMilli() {
		ttl = strconv.FormatInt(expireMs, 10)
	}
	r.keys++
	r.send(pending{file: r.file, cmd: "RESTORE " + strconv.Quote(string(key)), key: true},
		[][]byte{[]byte("RESTORE"), key, []byte(ttl), payload, []byte("REPLACE"), []byte("ABSTTL")})
	return nil
}

// endRDB: the RESP tail of a base runs in the file's client, still in DB 0.
func (r *replayer) endRDB() {
	if r.db != 0 {
		r.send(pending{}, [][]byte{[]byte("SELECT"), []byte("0")})
		r.db = 0
	}
}

func (r *replayer) send(p pending, argv [][]byte) {
	if r.conn == nil {
		return
	}
	fmt.Fprintf(r.bw, "*%d\r\n", len(argv))
	for _, a := range argv {
		fmt.Fprintf(r.bw, "$%d\r\n", len(a))
		r.bw.Write(a)
		r.bw.WriteString("\r\n")
	}
	r.pend = append(r.pend, p)
	if len(r.pend) >= replayBatch {
		r.flush()
	}
}

// flush sends the batch and reads its replies.
func (r *replayer) flush() {
	if r.conn == nil || len(r.pend) == 0 {
		return
	}
	if err := r.bw.Flush(); err != nil {
		r.lost(err)
		return
	}
	for _, p := range r.pend {
		errMsg, err := readReply(r.br)
		if err != nil {
			r.lost(err)
			return
		}
		if errMsg == "" || p.cmd == "" {
			continue
		}
		kind, fatal := "error", false
		switch {
		case strings.HasPrefix(errMsg, "ERR unknown command"):
			kind, fatal = "unknown", true
		case strings.HasPrefix(errMsg, "ERR wrong number of arguments"):
			kind, fatal = "arity", true
		case strings.HasPrefix(errMsg, "WRONGTYPE"):
			kind = "wrongtype"
		}
		if p.key {
			kind, fatal = "base", true
		}
		r.add(kind, errMsg, fatal, p.file, p.off, p.cmd)
	}
	r.pend = r.pend[:0]
}

func (r *replayer) lost(err error) {
	r.add("other", "replay connection lost: "+err.Error(), true, r.file, -1, "")
	r.conn.Close()
	r.conn = nil
	r.pend = nil
}

// readReply reads one RESP2 reply and returns its error text, if any.
func readReply(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply line")
	}
	switch line[0] {
	case '-':
		return line[1:], nil
	case '+', ':':
		return "", nil
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n >= 0 {
			if _, err := br.Discard(n + 2); err != nil {
				return "", err
			}
		}
		return "", nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		for i := 0; i < n; i++ {
			if _, err := readReply(br); err != nil {
				return "", err
			}
		}
		return "", nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// summarize prints a command for a report: quoted arguments, long ones cut.
func summarize(argv [][]byte) string {
	var b strings.Builder
	for i, a := range argv {
		if i == 6 {
			fmt.Fprintf(&b, " ... (%d arguments)", len(argv))
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		s := string(a)
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		if i == 0 {
			b.WriteString(s)
		} else {
			b.WriteString(strconv.Quote(s))
		}
	}
	return b.String()
}

// report prints the semantic findings; it returns true if any is fatal.
func (r *replayer) report(w io.Writer) bool {
	r.flush()
	r.endFile()
	sort.SliceStable(r.finds, func(i, j int) bool {
		a, b := r.finds[i], r.finds[j]
		if a.order != b.order {
			return a.order < b.order
		}
		return a.off < b.off
	})
	fmt.Fprintf(w, "Replay: %d commands and %d base keys replayed into a scratch keyspace\n", r.cmds, r.keys)
	counts := map[string]int{}
	fatal := false
	for _, f := range r.finds {
		counts[f.kind]++
		fatal = fatal || f.fatal
		sev := "warning"
		if f.fatal {
			sev = "error"
		}
		if f.off >= 0 {
			fmt.Fprintf(w, "Replay %s: %s offset %d: '%s': %s\n", sev, f.file, f.off, f.cmd, f.msg)
		} else {
			fmt.Fprintf(w, "Replay %s: %s: %s\n", sev, f.file, f.msg)
		}
	}
	if len(r.finds) == 0 {
		fmt.Fprintf(w, "Replay: no problems found\n")
	} else {
		fmt.Fprintf(w, "Replay: %d problems (unknown command %d, wrong arity %d, wrong type %d, MULTI/EXEC %d, base keys %d, other errors %d)\n",
			len(r.finds), counts["unknown"], counts["arity"], counts["wrongtype"], counts["multi"], counts["base"], counts["error"]+counts["other"])
	}
	if r.conn != nil {
		r.send(pending{}, [][]byte{[]byte("INFO"), []byte("keyspace")})
		r.bw.Flush()
		r.pend = r.pend[:0]
		line, err := r.br.ReadString('\n')
		if err == nil && strings.HasPrefix(line, "$") {
			n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r.br, buf); err == nil {
				for _, l := range strings.Split(string(buf), "\r\n") {
					if strings.HasPrefix(l, "db") {
						fmt.Fprintf(w, "Replay keyspace: %s\n", l)
					}
				}
			}
		}
	}
	return fatal
}
