// Command crashfs is a loopback FUSE file system that simulates power cuts.
//
// Run "crashfs --help" for the usage. See fs.go for the crash model.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const usage = `crashfs: a loopback FUSE file system that simulates power cuts.

Usage:
  crashfs [flags] <backing-dir> <mountpoint>     serve (foreground) until SIGINT/SIGTERM
  crashfs ctl <mountpoint> <command>             control a running crashfs

Every operation goes to <backing-dir> at once (the live view; kernel caching
is off, so each write and fsync reaches crashfs). Beside it crashfs keeps what
is durable: per file, the bytes as of its last fsync/fdatasync. On a power
cut every file returns to that state: data written after the file's last
fsync is dropped, a file never fsynced ends empty. Files that existed before
the mount count as durable until modified.

Flags:
  --strict          directory entries are durable only after an fsync of
                    their directory: a create, link, rename or unlink that
                    was not followed by one is undone by a cut (a new file
                    disappears, a renamed file gets its old name and old
                    content back, an unlinked file comes back). mkdir, rmdir,
                    symlinks and attributes are durable at once.
  --writeback D     every D (e.g. 30s) all dirty data and entries become
                    durable by themselves, as the kernel's writeback does
                    (models appendfsync no). 0 = never (default).
  --fsync-delay D   every fsync/fdatasync/fsyncdir sleeps D first (e.g. 5ms:
                    a slow network disk).
  --debug           log every FUSE request.
  --quiet           do not log cuts.

Control commands (crashfs ctl <mountpoint> ..., over the Unix socket
$TMPDIR/crashfs-<hash of the mountpoint>.sock):
  cut                   power cut now: the live view returns to the durable
                        state; handles opened before the cut are dead (their
                        writes, truncates and fsyncs fail with EIO); the file
                        system stays mounted for the "reboot".
  sync                  make everything durable now (sync(2)).
  status                counters: writes, fsyncs, dirty bytes, cuts, bytes
                        dropped at the last cut, ...
  cut-on-rename <glob> [n]
                        arm an automatic cut right after the n-th (default
                        1st) rename whose target (base name or path relative
                        to the root) matches glob, e.g. '*.manifest*': the
                        renaming process gets SIGSTOP (the instant of the
                        cut), then the cut happens, and every later change
                        is refused (EIO) until the next cut or sync: the
                        power is off. "cut-on-rename off" disarms.
Signals to the serving process: SIGUSR1 = cut, SIGUSR2 = sync,
SIGINT/SIGTERM = unmount and exit.
`

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	if len(os.Args) > 1 && os.Args[1] == "ctl" {
		os.Exit(ctlMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(serveMain(os.Args[1:]))
}

func ctlMain(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprint(stderr, "usage: crashfs ctl <mountpoint> cut|sync|status|cut-on-rename <glob> [n]\n")
		return 2
	}
	out, err := ctlCall(args[0], strings.Join(args[1:], " "))
	fmt.Fprint(stdout, out)
	if err != nil {
		fmt.Fprintln(stderr, "crashfs ctl:", err)
		return 1
	}
	return 0
}

func serveMain(args []string) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Print(usage)
			return 0
		}
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
	}
	fl := flag.NewFlagSet("crashfs", flag.ContinueOnError)
	fl.Usage = func() { fmt.Fprint(fl.Output(), usage) }
	strict := fl.Bool("strict", false, "")
	writeback := fl.Duration("writeback", 0, "")
	fsyncDelay := fl.Duration("fsync-delay", 0, "")
	debug := fl.Bool("debug", false, "")
	quiet := fl.Bool("quiet", false, "")
	if err := fl.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fl.NArg() != 2 {
		fl.Usage()
		return 2
	}
	backing, err := filepath.Abs(fl.Arg(0))
	if err != nil {
		log.Print(err)
		return 1
	}
	mnt, err := filepath.Abs(fl.Arg(1))
	if err != nil {
		log.Print(err)
		return 1
	}
	c := newCrashFS(backing, *strict, *fsyncDelay)
	if !*quiet {
		c.logf = log.Printf
	}
	srv, err := mountCrashFS(c, mnt, *debug)
	if err != nil {
		log.Print("crashfs: ", err)
		return 1
	}
	sock := ctlSocketPath(mnt)
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		log.Print("crashfs: control socket: ", err)
		srv.Unmount()
		return 1
	}
	go c.serveControl(ln)
	if *writeback > 0 {
		go c.runWriteback(*writeback, nil)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { srv.Wait(); close(done) }()
	log.Printf("crashfs: serving %s on %s (strict=%v writeback=%v fsync-delay=%v), control socket %s",
		backing, mnt, *strict, *writeback, *fsyncDelay, sock)
	defer os.Remove(sock)
	defer ln.Close()
	for {
		select {
		case <-done:
			return 0
		case s := <-sigs:
			switch s {
			case syscall.SIGUSR1:
				c.Cut()
			case syscall.SIGUSR2:
				c.Sync()
			default:
				// The mount may be busy for a moment (a process being
				// killed still holds files): retry, then detach.
				var err error
				for i := 0; i < 30; i++ {
					if err = srv.Unmount(); err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				if err != nil {
					log.Printf("crashfs: unmount: %v; detaching", err)
					syscall.Unmount(mnt, syscall.MNT_DETACH)
				}
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					log.Printf("crashfs: exiting with the detached mount still referenced")
				}
				return 0
			}
		}
	}
}
