package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aofserver/aofserver/fsx"
	"github.com/aofserver/aofserver/rstring"
)

// maxConfigSize bounds what we read from one config file or stdin.
const maxConfigSize = 64 << 20

// maxIncludeDepth stops include loops (Redis would recurse until it crashes).
const maxIncludeDepth = 32

// deprecated directives that Redis silently ignores, with their arity.
var deprecatedDirectives = map[string]int{
	"list-max-ziplist-entries": 2,
	"list-max-ziplist-value":   2,
	"lua-replicate-commands":   2,
}

// Load builds the configuration like redis-server's command line: path is
// the config file ("" for none, "-" for stdin; YAML when it ends in .yaml
// or .yml), args are the remaining "--directive value ..." arguments, which
// override the file. A lone "-" as the first or last element of args also
// means "read config from stdin" (appended after the file, before args).
func Load(path string, args []string, stdin io.Reader) (*Config, error) {
	c := Default()
	var text strings.Builder
	fromStdin := path == "-"
	if fromStdin {
		path = ""
	}
	opts, argStdin := buildOptions(args)
	fromStdin = fromStdin || argStdin

	isYAML := false
	var side []byte // the side file's content, nil if there is none
	fileLen := 0    // bytes of text that came from the main file
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("config: Fatal error, can't open config file '%s': %w", path, err)
		}
		c.file = abs
		if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
			isYAML = true
			c.yaml = true
			data, err := readLimited(path)
			if err != nil {
				return nil, err
			}
			if err := ParseYAML(c, bytes.NewReader(data), abs); err != nil {
				return nil, err
			}
		} else {
			data, err := readLimited(path)
			if err != nil {
				return nil, err
			}
			text.Write(data)
			fileLen = len(data)
			if side, err = readSideFile(SidePath(abs)); err != nil {
				return nil, err
			}
		}
	}
	if fromStdin && stdin != nil {
		data, err := io.ReadAll(io.LimitReader(stdin, maxConfigSize+1))
		if err != nil {
			return nil, fmt.Errorf("config: reading config from stdin: %w", err)
		}
		if len(data) > maxConfigSize {
			return nil, fmt.Errorf("config: config from stdin larger than %d bytes", maxConfigSize)
		}
		text.Write(data)
	}
	if opts != "" {
		text.WriteString("\n")
		text.WriteString(opts)
	}
	// A YAML file is parsed on its own; stdin and flags then follow as
	// redis.conf text, numbered from line 1.
	file := c.file
	if isYAML {
		file = ""
	}
	switch {
	case side != nil:
		// Main file, then the side file, then stdin and flags (so flags
		// override both); stdin and flags keep the line numbers they would
		// have after the main file, as in Redis. The cut is after the
		// file's last newline: a last line without one runs on into stdin
		// as Redis reads it.
		all := text.String()
		cut := strings.LastIndexByte(all[:fileLen], '\n') + 1
		if err := c.parseText(all[:cut], file, 0, 0); err != nil {
			return nil, err
		}
		if err := c.parseSide(side, SidePath(c.file)); err != nil {
			return nil, err
		}
		if err := c.parseText(all[cut:], file, 0, strings.Count(all[:cut], "\n")); err != nil {
			return nil, err
		}
	case !isYAML || text.Len() > 0:
		if err := ParseRedisConf(c, text.String(), file); err != nil {
			return nil, err
		}
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// SideSuffix names the side file that holds aofserver's own directives
// beside a config file: redis.conf -> redis.conf.aofserver. Real Redis
// refuses any directive it does not know (and an include of a file holding
// one), so ours cannot share a file Redis may read; keeping them beside it
// lets the same main file serve both servers. See doc.go.
const SideSuffix = ".aofserver"

// SidePath is the side file for the config file path.
func SidePath(path string) string { return path + SideSuffix }

// readSideFile returns the side file's content, or nil if it does not exist.
func readSideFile(path string) ([]byte, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return readLimited(path)
}

// parseSide applies the side file: aofserver's own directives only. Its
// errors name the file, since Redis's message has no place for it.
func (c *Config) parseSide(data []byte, path string) error {
	c.readingSide = true
	defer func() { c.readingSide = false }()
	err := c.parseText(string(data), path, 0, 0)
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.named = true
	}
	return err
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: Fatal error, can't open config file '%s': %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: reading config file '%s': %w", path, err)
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("config: config file '%s' larger than %d bytes", path, maxConfigSize)
	}
	return data, nil
}

// finish runs the checks Redis does once the whole configuration is read.
func (c *Config) finish() error {
	if c.LogFile != "" {
		f, err := fsx.OS().OpenAppend(c.LogFile)
		if err != nil {
			var pe *os.PathError
			msg := err.Error()
			if errors.As(err, &pe) {
				msg = rstring.Strerror(pe.Err)
			}
			return &ParseError{Reason: "Can't open the log file: " + msg}
		}
		f.Close()
	}
	return c.sanity()
}

// sanity holds the checks at the end of loadServerConfigFromString.
func (c *Config) sanity() error {
	if c.raw["cluster-enabled"] == "yes" && c.raw["replicaof"] != "" {
		return &ParseError{Reason: "replicaof directive not allowed in cluster mode"}
	}
	clampHz(c)
	return nil
}

// buildOptions turns "--name value ..." arguments into config text the way
// redis-server's main() does: each --name starts a new line, following
// arguments are appended quoted (sdscatrepr), and a bare "--save" becomes
// save "". stdin reports a lone "-" in first or last position.
func buildOptions(args []string) (opts string, stdin bool) {
	var b strings.Builder
	handledLast := true
	for j, a := range args {
		switch {
		case a == "-" && (j == 0 || j == len(args)-1):
			stdin = true
		case handledLast && strings.HasPrefix(a, "--"):
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(a[2:])
			b.WriteString(" ")
			parts, _ := rstring.SplitArgs(a)
			if len(parts) == 1 {
				handledLast = false
				nextIsOpt := j != len(args)-1 && strings.HasPrefix(args[j+1], "--")
				switch {
				case nextIsOpt && strings.EqualFold(a, "--save"):
					b.WriteString(`""`)
					handledLast = true
				case j == len(args)-1 && strings.EqualFold(a, "--save"):
					b.WriteString(`""`)
				case nextIsOpt && strings.EqualFold(a, "--sentinel"):
					handledLast = true
				}
			} else {
				handledLast = true
			}
		default:
			b.WriteString(rstring.Repr(a))
			b.WriteString(" ")
			handledLast = true
		}
	}
	return b.String(), stdin
}

// ParseRedisConf applies redis.conf text to c, as loadServerConfigFromString
// does. file names the source (used for relative includes and errors).
// Supported: every Redis 7.0 directive and alias, quoting and escapes as
// sdssplitargs, memory units, include (with globs), and the directives Redis
// handles outside its table (rename-command, user, loadmodule), which are
// accepted and reported by NoEffect.
func ParseRedisConf(c *Config, text string, file string) error {
	return c.parseText(text, file, 0, 0)
}

// parseText applies text; lineBase is added to line numbers in errors (the
// lines of the main file already parsed when the text is its remainder).
func (c *Config) parseText(text, file string, depth, lineBase int) error {
	if c.raw == nil {
		return errors.New("config: ParseRedisConf needs a Config from Default or Load")
	}
	c.readingFile = true
	defer func() { c.readingFile = false }()
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		line = trimLine(line)
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(reason string) error {
			return &ParseError{File: file, Line: lineBase + i + 1, Text: line, Reason: reason}
		}
		argv, ok := rstring.SplitArgs(line)
		if !ok {
			return fail("Unbalanced quotes in configuration line")
		}
		if len(argv) == 0 {
			continue
		}
		reason, err := c.apply(argv, file, depth)
		if err != nil {
			return err
		}
		if reason != "" {
			return fail(reason)
		}
	}
	return nil
}

// apply executes one directive line; reason is Redis's message for a bad
// line, err an error from an included file.
func (c *Config) apply(argv []string, file string, depth int) (reason string, err error) {
	name := strings.ToLower(argv[0])
	if c.readingSide {
		if d, _ := lookup(name); d == nil || !d.has(fOurs) {
			return "Not an aofserver directive: this file holds only aofserver's own directives, " +
				"Redis's belong in the main config file", nil
		}
	}
	if d, _ := lookup(name); d != nil {
		if !d.has(fMultiArg) && len(argv) != 2 {
			return "wrong number of arguments", nil
		}
		args := argv[1:]
		if d.has(fMultiArg) && len(args) == 1 && args[0] != "" {
			// Like Redis 7.0: a single argument of a multi-argument
			// directive is split, so --save "900 1 300 10" works.
			if split, ok := rstring.SplitArgs(args[0]); ok {
				args = split
			}
		}
		if reason := d.setArgs(c, args); reason != "" {
			return reason, nil
		}
		c.markSeen(d.name)
		return "", nil
	}
	if n, ok := deprecatedDirectives[name]; ok && len(argv) == n {
		return "", nil
	}
	switch {
	case name == "include" && len(argv) == 2:
		if err := c.include(argv[1], file, depth); err != nil {
			return "", err
		}
		// Redis clears reading_config_file when the included text ends.
		c.readingFile = false
	case name == "user" && len(argv) >= 2:
		// ACLAppendUserForLoading: a user once, and rules that parse (an
		// unknown command waits for the server's load)
		for _, u := range c.Users {
			if u[0] == argv[1] {
				return "Error in user declaration '" + argv[1] + "': Duplicate user found. A user can only be defined once in config files", nil
			}
		}
		if UserValidator != nil {
			if bad, msg := UserValidator(argv[1:]); msg != "" {
				// Redis indexes the line's words with the rule's index
				return "Error in user declaration '" + argv[min(bad, len(argv)-1)] + "': " + msg, nil
			}
		}
		c.Users = append(c.Users, slices.Clone(argv[1:]))
		c.markSeen(name)
	case name == "rename-command" && len(argv) == 3,
		name == "loadmodule" && len(argv) >= 2:
		c.markSeen(name)
	case strings.Contains(name, "."):
		if len(argv) != 2 {
			return "Module config specified without value", nil
		}
		c.markSeen(name)
	case name == "sentinel":
		if len(argv) != 1 {
			return "sentinel directive while not in sentinel mode", nil
		}
	default:
		return "Bad directive or wrong number of arguments", nil
	}
	return "", nil
}

// include loads another file (or every file matching a glob, in order).
// Relative paths are taken relative to the process directory, as in Redis.
func (c *Config) include(pattern, from string, depth int) error {
	if depth >= maxIncludeDepth {
		return &ParseError{Reason: "include nested too deeply: " + pattern}
	}
	paths := []string{pattern}
	if strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil // a bad pattern matches nothing, like glob(3)
		}
		paths = m
	}
	for _, p := range paths {
		data, err := readLimited(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(strings.ToLower(p), ".yaml") || strings.HasSuffix(strings.ToLower(p), ".yml") {
			err = c.parseYAML(bytes.NewReader(data), p, depth+1)
		} else {
			err = c.parseText(string(data), p, depth+1, 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
