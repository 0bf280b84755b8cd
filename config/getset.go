package config

import (
	"slices"
	"strings"

	"github.com/aofserver/aofserver/rstring"
)

// Get implements CONFIG GET: for each pattern, every directive whose name
// or alias matches it (Redis glob, case-insensitive), as name/value pairs,
// each name once. A pattern without glob characters is an exact lookup
// and is the only way to see hidden directives; an exact alias is reported
// under the alias. Redis orders by hash; we use pattern order, then table
// order (primary name before its alias).
func (c *Config) Get(patterns ...string) [][2]string {
	var out [][2]string
	var seen map[string]bool
	add := func(name string, d *directive) {
		if seen == nil {
			seen = make(map[string]bool)
		}
		if seen[name] {
			return
		}
		seen[name] = true
		out = append(out, [2]string{name, d.value(c)})
	}
	for _, p := range patterns {
		if !strings.ContainsAny(p, "[*?") {
			if d, _ := lookup(p); d != nil {
				add(p, d)
			}
			continue
		}
		for i := range directives {
			d := &directives[i]
			if d.has(fHidden) {
				continue
			}
			if rstring.Match(p, d.name, true) {
				add(d.name, d)
			}
			if d.alias != "" && rstring.Match(p, d.alias, true) {
				add(d.alias, d)
			}
		}
	}
	return out
}

// SetOptions carries the client context CONFIG SET depends on.
type SetOptions struct {
	// Local is true for a client on a loopback or unix socket; it allows
	// protected configs (dir, dbfilename) when enable-protected-configs is
	// "local".
	Local bool
	// Loading is true while the dataset is loading; directives such as
	// appendonly and dir are refused then with a LOADING error.
	Loading bool
}

// ErrLoading is CONFIG SET's reply for a deny-loading directive while loading.
const ErrLoading = ReplyError("LOADING Redis is loading the dataset in memory")

// Set implements CONFIG SET for a client that is not local and while not
// loading. See SetWith.
func (c *Config) Set(pairs [][2]string, apply func(changed []string) error) error {
	return c.SetWith(pairs, SetOptions{}, apply)
}

// SetWith implements CONFIG SET name value [name value ...]. It is
// all-or-nothing: every name is checked first (unknown, immutable,
// protected, duplicate), then all values are stored in order; if one is
// invalid, or apply (called with the canonical names whose value actually
// changed) fails, every value is restored. Errors are ReplyError with
// Redis's exact text.
func (c *Config) SetWith(pairs [][2]string, opts SetOptions, apply func(changed []string) error) error {
	ds := make([]*directive, len(pairs))
	// Redis registers an alias as a directive of its own: the same name
	// twice is a duplicate, a name and its alias are not (both are set,
	// in order), and errors name the directive as looked up.
	names := make([]string, len(pairs))
	var firstErr error
	denyLoading := false
	for i, p := range pairs {
		d, _ := lookup(p[0])
		if d == nil {
			if firstErr == nil {
				firstErr = ReplyError("ERR Unknown option or number of arguments for CONFIG SET - '" + p[0] + "'")
			}
			continue
		}
		if firstErr != nil {
			continue
		}
		if d.has(fImmutable) || d.has(fProtected) && !c.protectedAllowed(opts.Local) {
			reason := "can't set protected config"
			if d.has(fImmutable) {
				reason = "can't set immutable config"
			}
			firstErr = setFailed(p[0], reason)
			continue
		}
		if opts.Loading && d.has(fDenyLoading) {
			denyLoading = true
			firstErr = ErrLoading
			continue
		}
		names[i] = strings.ToLower(p[0])
		if slices.Contains(names[:i], names[i]) {
			firstErr = setFailed(p[0], "duplicate parameter")
		}
		ds[i] = d
	}
	if denyLoading {
		return ErrLoading
	}
	if firstErr != nil {
		return firstErr
	}

	backup := c.Clone()
	old := make([]string, len(ds))
	for i, d := range ds {
		old[i] = d.value(c)
	}
	for i, d := range ds {
		args := []string{pairs[i][1]}
		if d.has(fMultiArg) {
			args = splitSetValue(pairs[i][1])
		}
		if reason := d.setArgs(c, args); reason != "" {
			c.restore(backup)
			return setFailed(names[i], reason)
		}
	}
	var changed []string
	for i, d := range ds {
		if d.value(c) != old[i] && !slices.Contains(changed, d.name) {
			changed = append(changed, d.name)
		}
	}
	if apply != nil && len(changed) > 0 {
		if err := apply(changed); err != nil {
			c.restore(backup)
			name := changed[0]
			var ne interface{ ConfigName() string }
			if asNamed(err, &ne) {
				name = ne.ConfigName()
			}
			return setFailed(name, err.Error())
		}
	}
	return nil
}

// ApplyError lets an apply callback name the directive that failed.
type ApplyError struct {
	Name string // canonical directive name
	Err  error
}

func (e *ApplyError) Error() string      { return e.Err.Error() }
func (e *ApplyError) Unwrap() error      { return e.Err }
func (e *ApplyError) ConfigName() string { return e.Name }

func asNamed(err error, target *interface{ ConfigName() string }) bool {
	for err != nil {
		if n, ok := err.(interface{ ConfigName() string }); ok {
			*target = n
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func setFailed(name, reason string) ReplyError {
	return ReplyError("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason)
}

func (c *Config) protectedAllowed(local bool) bool {
	switch c.EnableProtectedConfigs {
	case "yes":
		return true
	case "local":
		return local
	}
	return false
}

// restore copies every configuration value from b back into c, keeping c's
// identity (the server holds a pointer to it).
func (c *Config) restore(b *Config) {
	impl, file, yml, seen := c.Implemented, c.file, c.yaml, c.seen
	*c = *b
	c.Implemented, c.file, c.yaml, c.seen = impl, file, yml, seen
}
