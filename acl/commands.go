package acl

import (
	"strings"

	"github.com/aofserver/aofserver/cmdmeta"
)

// Categories are Redis 7.0's ACL categories in ACL CAT order.
var Categories = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
	"hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
	"transaction", "scripting"}

const (
	commandBits = 1024
	futureBit   = commandBits - 1 // set only by +@all / allcommands
)

// Command is what the rules know of one command or subcommand.
type Command struct {
	Meta   *cmdmeta.Meta
	id     int    // its bit in selectors
	cats   uint32 // its categories, bits in Categories order
	noAuth bool
	parent *Command
	subs   []*Command // by name
}

// Commands is the numbered command table the rules name commands from.
type Commands struct {
	all    []*Command // containers each followed by its subcommands, by name
	byName map[string]*Command
}

// NewCommands numbers the commands of metas (sorted by name, each
// container's Subs by name too): containers then their subcommands.
func NewCommands(metas []*cmdmeta.Meta) *Commands {
	t := &Commands{byName: map[string]*Command{}}
	add := func(m *cmdmeta.Meta, parent *Command) *Command {
		c := &Command{Meta: m, id: len(t.all), parent: parent, noAuth: m.HasFlag("no_auth")}
		if c.id >= futureBit {
			panic("too many commands for the ACL bitmap")
		}
		for i, cat := range Categories {
			if hasCategory(m, cat) {
				c.cats |= 1 << i
			}
		}
		t.all = append(t.all, c)
		t.byName[m.Name] = c
		return c
	}
	for _, m := range metas {
		c := add(m, nil)
		for _, sm := range m.Subs {
			c.subs = append(c.subs, add(sm, c))
		}
	}
	return t
}

// Lookup is ACLLookupCommand: "name" or "container|sub", any case.
func (t *Commands) Lookup(name string) *Command {
	return t.byName[strings.ToLower(name)]
}

// CategoryMembers lists the commands of category cat (ACL CAT cat).
func (t *Commands) CategoryMembers(cat string) []string {
	i := categoryIndex(cat)
	if i < 0 {
		return nil
	}
	var out []string
	for _, c := range t.all {
		if c.cats&(1<<i) != 0 {
			out = append(out, c.Meta.Name)
		}
	}
	return out
}

// IsCategory reports whether cat (without "@") is an ACL category.
func IsCategory(cat string) bool { return categoryIndex(cat) >= 0 }

func categoryIndex(name string) int {
	for i, c := range Categories {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// hasCategory reports whether m is in category cat (without "@"),
// including the categories Redis derives from the flags
// (setImplicitACLCategories).
func hasCategory(m *cmdmeta.Meta, cat string) bool {
	if m.Subs != nil {
		// Containers are only @slow in Redis 7.0, COMMAND also @connection.
		return cat == "slow" || (cat == "connection" && m.Name == "command")
	}
	has := func(name string) bool {
		for _, a := range m.ACL {
			if strings.EqualFold(strings.TrimPrefix(a, "@"), name) {
				return true
			}
		}
		return false
	}
	if has(cat) {
		return true
	}
	switch cat {
	case "write":
		return m.HasFlag("write")
	case "read":
		return m.HasFlag("readonly") && !has("scripting")
	case "admin", "dangerous":
		return m.HasFlag("admin")
	case "pubsub":
		return m.HasFlag("pubsub")
	case "fast":
		return m.HasFlag("fast")
	case "blocking":
		return m.HasFlag("blocking")
	case "slow":
		return !m.HasFlag("fast") && !has("fast")
	}
	return false
}
