// Package command is the seam between the server and the command groups
// that live outside package server.
//
// A command's proc used to be func(*client, [][]byte) inside package server
// and reached into the client and the Server directly, so every command had
// to live there. Go forbids import cycles, and server's in-package tests
// must keep seeing every command, so a group outside server must be a
// package that server imports and that never imports server. This package
// is what such a group sees instead: Ctx, the client running the command
// (its replies, its keyspace with Redis's lookup and wrong-type rules,
// notifications, the dirty counter, propagation), and Spec/Group, the
// registration that server turns into its command table.
//
// server's *client implements Ctx with thin methods, so a proc gets the
// client itself as an interface value: no per-call allocation or closure.
// Values cross the seam as Value, the type code and the pointer the
// keyspace stores (*hash.Hash for TypeHash, *set.Set for TypeSet, ...).
//
// The groups are the packages under command/, named <group>cmd (hashcmd,
// setcmd, ...) so that they do not clash with the value packages they
// operate on (hash, set, ...). Helpers more than one group needs (typed
// lookups, member removal, the HSCAN/SSCAN/ZSCAN loop, random-count
// parsing, Redis's shared error texts) live here, once. Package server
// imports this package as seam, since its command table type is named
// command.
package command
