package scripting

import (
	"context"

	seam "github.com/aofserver/aofserver/command"
)

// Server is what scripting asks of the server it runs in. Everything is
// called on the executor.
type Server interface {
	// NewClient makes the client a Lua engine runs redis.call's commands
	// on (a fake client: id 1 for EVAL's engine, 2 for the functions').
	NewClient(id int64) Client
	// Lookup finds argv's command, nil if there is none; cacheable: argv[0]
	// alone names it (not a container's subcommand), so redis.call may
	// keep it for the next call by the same name.
	Lookup(argv [][]byte) (cmd Command, cacheable bool)
	// Refused counts redis.call's refusal of cmd (nil: unknown), replied
	// as errText, in the error stats and the command's rejected_calls,
	// and not again for the EVAL or FCALL running the script.
	Refused(cmd Command, errText string)
	// WriteRefusal is the server's refusal of any write right now (a disk
	// error, a read-only replica, ...), "" if none; NoReplicas: fewer good
	// replicas than min-replicas-to-write.
	WriteRefusal() string
	NoReplicas() bool
	// StartOOM is the memory state as caller's script starts (Redis's
	// pre_command_oom_state): past maxmemory with nothing to evict, never
	// for a fake client's (the AOF's) script.
	StartOOM(caller Caller) bool
	// FcallOOM is FCALL's check of the same state, as processCommand
	// computed it for caller's command.
	FcallOOM(caller Caller) bool
	// Loading reports that the server is loading its data (AOF, RDB).
	Loading() bool
	// Start begins a script run for caller, running argv (the script's
	// sha or the function's name is name): MONITOR gets argv, keys expire
	// against the start time, and the busy-script state starts. The
	// context it returns (nil when no busy handling applies) is the VM's:
	// its Done is the script's interrupt hook.
	Start(caller Caller, argv [][]byte, name string, isEval bool) context.Context
	// Wrote marks the running script as having written: SCRIPT KILL
	// refuses from then on.
	Wrote()
	// Killed reports that SCRIPT KILL or FUNCTION KILL stopped the run.
	Killed() bool
	// End ends the run Start began.
	End()
	// Log is redis.log: level 0 debug, 1 verbose, 2 notice, 3 warning.
	Log(level int, msg string)
}

// Client is a Lua engine's own client, on which redis.call runs commands.
type Client interface {
	// Prepare makes the client run the next script as caller: its
	// database and user, RESP 2. Release, after the script, forgets the
	// caller.
	Prepare(caller Caller)
	Release()
	// SetRESP is redis.setresp: the protocol the client speaks.
	SetRESP(v int)
	// ACLDenial is "" when the running script's user may run cmd with
	// argv; otherwise scriptVerifyACL's message, the denial logged in
	// ACL LOG for the caller.
	ACLDenial(cmd Command, argv [][]byte) string
	// ACLAllowed is redis.acl_check_cmd's check (nothing logged).
	ACLAllowed(cmd Command, argv [][]byte) bool
	// Call runs cmd as the server runs any command (call: propagation,
	// stats, MONITOR) and returns its reply, valid until the next Call.
	Call(cmd Command, argv [][]byte) []byte
}

// Command is an entry of the server's command table.
type Command interface {
	Flags() seam.Flag
	// ArityOK reports whether argc arguments fit its arity.
	ArityOK(argc int) bool
}

// Caller is the client running EVAL, FCALL, SCRIPT or FUNCTION: the
// replies, in its protocol.
type Caller interface {
	seam.Replier
	// Verbatim replies a RESP3 verbatim string (a bulk string in RESP2).
	Verbatim(format string, text []byte)
	// BigNumber replies a RESP3 big number (a bulk string in RESP2).
	BigNumber(s string)
	// ErrCounted replies an error already counted in the error stats.
	ErrCounted(msg string)
	// AddDirty adds n changes to the dirty counter (FUNCTION LOAD, ...).
	AddDirty(n int64)
	// Fake reports a client without a connection (the AOF loader's).
	Fake() bool
}
