package cmdmeta

// Meta is Redis 7.0.15's metadata of one command or subcommand: what
// COMMAND INFO and COMMAND DOCS return. A nil slice is a field Redis
// omits, an empty one a field it sends empty.
type Meta struct {
	Name                    string // full name, "config|get"
	Arity                   int    // >0 exact, <0 at least -Arity
	Flags                   []string
	FirstKey, LastKey, Step int
	ACL                     []string // ACL categories, "@read", ...
	Tips                    []string
	KeySpecs                []KeySpec

	Summary, Since, Group, Complexity string
	DocFlags                          []string
	DeprecatedSince, ReplacedBy       string
	History                           [][2]string
	Args                              []Arg
	Subs                              []*Meta // by name
}

// KeySpec is one key specification: where the search begins (BS: "index"
// at Index, "keyword" searched from StartFrom, or "unknown") and how the
// keys are found from there (FK: "range" up to LastKey, "keynum" read at
// KeyNumIdx, or "unknown").
type KeySpec struct {
	Notes               string
	Flags               []string // RO, RW, OW, RM, access, ..., incomplete, variable_flags
	BS                  string
	Index               int
	Keyword             string
	StartFrom           int
	FK                  string
	LastKey, Limit      int
	KeyNumIdx, FirstKey int
	KeyStep             int
}

// Arg is one argument in COMMAND DOCS.
type Arg struct {
	Name, Type      string
	KeySpecIndex    int // key_spec_index+1; 0 when the argument has none
	Token           string
	EmptyToken      bool // a token that is "" (MIGRATE's empty key), not none
	Summary         string
	Since           string
	DeprecatedSince string
	Flags           []string
	Args            []Arg // oneof and block arguments
}

// Has reports whether the spec has flag f.
func (sp *KeySpec) Has(f string) bool { return has(sp.Flags, f) }

// HasFlag reports whether COMMAND INFO lists flag f for the command.
func (m *Meta) HasFlag(f string) bool { return has(m.Flags, f) }

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
