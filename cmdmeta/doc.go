// Package cmdmeta is Redis 7.0.15's command metadata and what follows from
// it alone:
//
//   - Redis (commands_gen.go): every command and subcommand as COMMAND
//     INFO and COMMAND DOCS describe it, generated from a real
//     redis-server 7.0.15 by cmd/gencommands;
//   - the COMMAND INFO and COMMAND DOCS replies rendered from a Meta
//     (reply.go, server.c's addReplyCommandInfo and addReplyCommandDocs);
//   - the keys of a command line (keys.go): the key specs and Redis's
//     getkeys procedures (db.c), which COMMAND GETKEYS and the ACL check
//     share.
//
// It holds no server state. The server attaches a Meta to each entry of
// its command table and takes arity, flags and key range from it, so that
// dispatch and COMMAND INFO cannot disagree.
package cmdmeta

//go:generate go run ../cmd/gencommands -o commands_gen.go
