// Package config turns redis.conf text, YAML and redis-server style
// command-line flags into one typed Config, and implements the logic of
// CONFIG GET, CONFIG SET and CONFIG REWRITE, following Redis 7.0.15
// (src/config.c) as the spec: same directive names, defaults, aliases,
// value formats and error strings.
//
// Usage:
//
//	cfg, err := config.Load("redis.conf", os.Args[2:], os.Stdin)
//	if err != nil { fmt.Fprintln(os.Stderr, err); os.Exit(1) } // Redis's exact text
//	for _, name := range cfg.NoEffect() { // set, not implemented, not at Redis's default
//		log.Printf("%s: accepted, has no effect in aofserver", name)
//	}
//
// # Sources and precedence
//
// Load reads the file (redis.conf syntax, or YAML for .yaml/.yml), then its
// side file if any (below), then stdin when asked ("-"), then the flags,
// as one text: "--port 6380 --save" becomes the lines `port "6380"` and
// `save ""` appended after the file, so later lines win and error line
// numbers count past the file, as in Redis.
//
// # aofserver's own directives: the side file
//
// Real redis-server refuses a directive it does not know, and an include
// of a file holding one, so aofserver's own directives (see below) cannot
// share a file Redis may read. They live in a side file named after the
// config file plus ".aofserver" (SidePath: redis.conf ->
// redis.conf.aofserver), read right after the config file when it exists;
// it takes only aofserver's directives (anything else stops start-up with
// an error naming the side file). The precedence is: config file, side file,
// stdin, flags. They are still accepted in the main file and as flags (a
// main file holding one is not loadable by Redis). CONFIG REWRITE writes
// Redis's directives to the main file and ours to the side file (created
// only when one of ours is not at its default), dropping lines of ours from
// the main file, so a rewritten main file always loads in Redis 7.0. The
// side file is written first: a failure in between leaves a value in both
// files, never in neither. A YAML config has no side file.
//
// # redis.conf syntax
//
// One directive per line; leading/trailing blanks trimmed; '#' starts a
// comment line. Arguments are split like sdssplitargs: "double quotes" with
// \n \r \t \b \a \\ \" \xHH escapes, 'single quotes' with \' only; a closing
// quote must be followed by a blank. Names are case-insensitive. Memory
// values take units b, k (1000), kb (1024), m, mb, g, gb. Booleans are
// yes/no. Aliases (slave-* -> replica-*, *-ziplist-* -> *-listpack-*,
// lua-time-limit -> busy-reply-threshold, slaveof -> replicaof) are accepted
// everywhere. "include <path|glob>" reads files in place; rename-command,
// user and loadmodule are accepted (and reported by NoEffect).
//
// # Values that are not fields
//
// Every Redis 7.0 directive is accepted and kept, so CONFIG GET * returns
// the same 192 names as redis-server 7.0.15 (TLS build). Directives with a
// typed field are in Config.Implemented; the server may add names it handles
// itself. aofserver's own directives (aof-group-commit-delay-usec,
// aof-group-commit-max-batch, aof-group-commit-inflight, aof-prealloc-size,
// log-format, netloop, cpu-profile) are hidden: CONFIG GET shows them
// only for their exact name, like Redis's hidden test directives.
//
// # Deviations from Redis
//
//   - dir is not chdir'ed into; CONFIG GET prints it absolute, and the server
//     creates it if missing.
//   - CONFIG GET orders results by pattern, then table order (Redis: hash
//     order); CONFIG REWRITE appends new lines in table order.
//   - YAML files cannot be rewritten.
//
// # Durability
//
// Rewrite writes a temporary file next to the config, fsyncs it, renames it
// over the original and fsyncs the directory; a crash leaves either the old
// or the new file.
//
// A Config is not safe for concurrent use.
package config
