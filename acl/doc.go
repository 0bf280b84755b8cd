// Package acl is Redis 7.0.15's ACL model (acl.c) without server state:
// users with flags, password hashes and selectors (the root one and those
// given in parentheses), each selector a command bitmap, first-args, key
// patterns with read/write permissions and channel patterns; the rules
// that change them (ACL SETUSER's, the ACL file's), the canonical rule
// string that describes them (ACL LIST), the permission check of a command
// line, and the ACL categories.
//
// Commands are numbered once for the process (NewCommands), so that a
// selector's bitmap is a fixed array as in Redis, with the last bit kept
// for "future commands" (+@all). The server keeps the users by name, the
// ACL LOG, the ACL file and the clients the rules apply to.
package acl
