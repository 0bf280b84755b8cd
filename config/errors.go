package config

import (
	"errors"
	"strconv"
)

// RedisVersion is the version named in fatal config errors.
const RedisVersion = "7.0.15"

// ErrBadConfig is wrapped by every *ParseError.
var ErrBadConfig = errors.New("config: bad configuration")

// ParseError is a fatal configuration error. Its Error text is exactly what
// redis-server prints on stderr before exiting:
//
//	\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n
//	Reading the configuration file, at line N\n
//	>>> 'line'\n
//	reason
//
// (the two middle lines are absent when Line is 0, e.g. errors found after
// the whole file was read).
type ParseError struct {
	File   string // file the line came from ("" for flags or stdin)
	Line   int    // 1-based line number within the parsed text; 0 if none
	Text   string // the offending line, trimmed
	Reason string // Redis's message
	named  bool   // print File: the line is from aofserver's side file
}

func (e *ParseError) Error() string {
	s := "\n*** FATAL CONFIG FILE ERROR (Redis " + RedisVersion + ") ***\n"
	if e.Line > 0 {
		file := ""
		if e.named {
			file = " " + e.File
		}
		s += "Reading the configuration file" + file + ", at line " + strconv.Itoa(e.Line) + "\n>>> '" + e.Text + "'\n"
	}
	return s + e.Reason
}

func (e *ParseError) Unwrap() error { return ErrBadConfig }

// ReplyError is an error meant to be sent to a client as-is: its text
// starts with the Redis error code ("ERR ...").
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// ErrNoConfigFile is returned by Rewrite when the config was not loaded
// from a file.
const ErrNoConfigFile = ReplyError("ERR The server is running without a config file")
