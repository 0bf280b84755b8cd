// Package manifest reads and writes the Redis 7.0 multi-part AOF manifest
// (appendonlydir/<appendfilename>.manifest) byte for byte as Redis does. It is
// a pure format package: it never opens files; package aof owns the directory
// and persists the text with fsx.WriteFileAtomic.
//
// Usage:
//
//	m, err := manifest.Parse(r)          // *ParseError wrapping ErrCorrupt on bad input
//	next, incr := m.WithNewIncr("appendonly.aof")
//	err = fsx.WriteFileAtomic(fsys, path, next.Marshal())
//	m = next                              // swap only after the write is durable
//
// # Format (part of the on-disk format; never change)
//
// One line per file, "\n"-terminated, six space-separated tokens:
//
//	file <name> seq <n> type <c>
//
// c is 'b' (BASE, at most one), 'h' (HISTORY, awaiting deletion) or 'i' (INCR,
// ascending seq). Redis writes the base line, then history lines in list order
// (newest first), then incr lines; no header, comment or trailing blank line:
//
//	file appendonly.aof.3.base.rdb seq 3 type b
//	file appendonly.aof.2.incr.aof seq 2 type h
//	file appendonly.aof.2.base.rdb seq 2 type h
//	file appendonly.aof.3.incr.aof seq 3 type i
//
// A name that needs escaping (space or other whitespace, '"', '\\', or a byte
// outside 0x20..0x7e) is written in double quotes as sdscatrepr does: \\ \"
// \n \r \t \a \b, \xHH (lowercase) for other non-printables, spaces literal.
//
// Two deliberate deviations from Redis's writer, for names Redis itself can
// only get from a hand-edited manifest: an empty name is written as "" and a
// name containing ' is quoted. Redis writes both bare, producing a manifest it
// cannot read back; ours still loads in Redis. Like Redis, Marshal does not
// check the 1024-byte line limit: a name long enough to exceed it once quoted
// yields a manifest that neither Redis nor Parse accepts.
//
// # Reading rules (aofLoadManifestFromFile)
//
//   - The input is read in fgets chunks of at most 1024 bytes. Every chunk
//     counts as a line for numbering. A chunk whose first byte is '#' is
//     skipped (so an over-long comment continues as a new "line").
//   - A chunk without '\n' (line over 1024 bytes, a NUL before the newline, or
//     a last line with no final newline) is "The AOF manifest file contains too
//     long line"; an empty input is "Found an empty AOF manifest".
//   - The line is trimmed of " \t\r\n"; empty → "Invalid AOF manifest file format".
//   - Tokens follow sdssplitargs: "..." with \xHH, \n \r \t \b \a and \<c>;
//     '...' with only \'; a closing quote must be followed by whitespace or
//     the end. Split failure, fewer than 6 tokens or an odd count is invalid.
//   - Keys are matched case-insensitively (ASCII); unknown keys are ignored;
//     the last of a repeated key wins. file must contain no '/' or '\\'; seq is
//     read like atoll; only the first byte of type counts. A missing
//     key, seq 0 or an empty type is invalid.
//   - A second 'b' is a duplicate; an 'i' seq must exceed the previous 'i' seq;
//     'h' is unchecked; any other type is unknown.
//   - A file holding only comment lines is an empty, valid manifest.
//
// Manifest values are not modified by the transition methods, so one value
// can be read by many goroutines while a new one is being persisted.
package manifest
