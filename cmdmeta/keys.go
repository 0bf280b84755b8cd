package cmdmeta

import "github.com/aofserver/aofserver/rstring"

// KeyRef is one key of a command line: its index in argv and the flags of
// the key spec that found it (nil from a getkeys procedure that gives none).
type KeyRef struct {
	Pos   int
	Flags []string
}

// Keys is getKeysSubcommandImpl's key extraction for argv, a full command
// line of m: the keys with their flags, or the error to reply. An empty,
// error-free result means "no keys" (commands without mandatory keys).
func (m *Meta) Keys(argv [][]byte) ([]KeyRef, string) {
	proc := getkeysProcs[m.Name]
	hasSpec, varFlags := m.specKinds()
	if proc == nil && !hasSpec { // doesCommandHaveKeys
		return nil, "ERR The command has no key arguments"
	}
	if n := len(argv); m.Arity > 0 && n != m.Arity || m.Arity <= 0 && n < -m.Arity {
		return nil, "ERR Invalid number of arguments specified for command"
	}
	// getKeysFromCommandWithSpecs: the specs when they can be trusted,
	// else the command's own getkeys procedure.
	var keys []KeyRef
	ok := false
	if hasSpec && !varFlags {
		keys, ok = appendKeysUsingSpecs(nil, m, argv)
	}
	if !ok && proc != nil {
		keys = proc(argv)
	}
	if len(keys) == 0 && !m.HasFlag("no_mandatory_keys") {
		return nil, "ERR Invalid arguments specified for command"
	}
	return keys, ""
}

// AppendKeys is getKeysFromCommandWithSpecs for the ACL check: the keys of
// argv, which may have the wrong arity (acl_check_cmd), appended to dst
// when the key specs find them, else the getkeys procedure's.
func (m *Meta) AppendKeys(dst []KeyRef, argv [][]byte) (keys []KeyRef) {
	hasSpec, varFlags := m.specKinds()
	if hasSpec && !varFlags {
		if k, ok := appendKeysUsingSpecs(dst, m, argv); ok {
			return k
		}
	}
	proc := getkeysProcs[m.Name]
	if proc == nil {
		return nil
	}
	defer func() {
		if recover() != nil { // a procedure reading past a short argv
			keys = nil
		}
	}()
	return proc(argv)
}

// HasKeys is doesCommandHaveKeys: whether m has a getkeys procedure or a
// key spec that finds keys.
func (m *Meta) HasKeys() bool {
	hasSpec, _ := m.specKinds()
	return hasSpec || getkeysProcs[m.Name] != nil
}

// specKinds says whether a key spec of m finds keys, and whether one has
// variable flags (then the getkeys procedure decides).
func (m *Meta) specKinds() (hasSpec, varFlags bool) {
	for i := range m.KeySpecs {
		hasSpec = hasSpec || !m.KeySpecs[i].Has("not_key")
		varFlags = varFlags || m.KeySpecs[i].Has("variable_flags")
	}
	return hasSpec, varFlags
}

// appendKeysUsingSpecs is getKeysUsingKeySpecs appending to keys; ok is
// false for an invalid or incomplete spec, where Redis falls back to the
// getkeys procedure.
func appendKeysUsingSpecs(keys []KeyRef, m *Meta, argv [][]byte) ([]KeyRef, bool) {
	argc := len(argv)
	for j := range m.KeySpecs {
		sp := &m.KeySpecs[j]
		if sp.Has("not_key") {
			continue
		}
		first := 0
		switch sp.BS {
		case "index":
			first = sp.Index
		case "keyword":
			start, end := sp.StartFrom, 1
			if sp.StartFrom > 0 {
				end = argc - 1
			} else {
				start = argc + sp.StartFrom
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if rstring.EqualFold(argv[i], sp.Keyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue // keyword not found: no keys from this spec
			}
		default:
			return nil, false
		}
		var last, step int
		switch sp.FK {
		case "range":
			step = sp.KeyStep
			switch {
			case sp.LastKey >= 0:
				last = first + sp.LastKey
			case sp.Limit == 0:
				last = argc + sp.LastKey
			default:
				last = first + ((argc-first)/sp.Limit + sp.LastKey)
			}
		case "keynum":
			step = sp.KeyStep
			if first+sp.KeyNumIdx >= argc {
				return nil, false
			}
			n, isInt := rstring.String2ll(argv[first+sp.KeyNumIdx])
			if !isInt || n < 0 || n > int64(argc) {
				return nil, false
			}
			first += sp.FirstKey
			last = first + int(n) - 1
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, false // out of bounds: a syntax error
		}
		for i := first; i <= last; i += step {
			keys = append(keys, KeyRef{Pos: i, Flags: sp.Flags})
		}
		if sp.Has("incomplete") {
			return nil, false
		}
	}
	return keys, true
}

// getkeysProcs are Redis's getkeys_proc functions (db.c), used when a
// command's key specs are incomplete, have variable flags or do not fit
// the arguments.
var getkeysProcs = map[string]func(argv [][]byte) []KeyRef{
	"zunion":            func(a [][]byte) []KeyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zinter":            func(a [][]byte) []KeyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zdiff":             func(a [][]byte) []KeyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zunionstore":       func(a [][]byte) []KeyRef { return genericGetKeys(1, 2, 3, 1, a) },
	"zinterstore":       func(a [][]byte) []KeyRef { return genericGetKeys(1, 2, 3, 1, a) },
	"zdiffstore":        func(a [][]byte) []KeyRef { return genericGetKeys(1, 2, 3, 1, a) },
	"eval":              func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"evalsha":           func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"eval_ro":           func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"evalsha_ro":        func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"fcall":             func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"fcall_ro":          func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"lmpop":             func(a [][]byte) []KeyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"blmpop":            func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"zmpop":             func(a [][]byte) []KeyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"bzmpop":            func(a [][]byte) []KeyRef { return genericGetKeys(0, 2, 3, 1, a) },
	"sintercard":        func(a [][]byte) []KeyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"zintercard":        func(a [][]byte) []KeyRef { return genericGetKeys(0, 1, 2, 1, a) },
	"sort":              sortGetKeys,
	"sort_ro":           func([][]byte) []KeyRef { return []KeyRef{{1, keyFlagsRO}} },
	"migrate":           migrateGetKeys,
	"georadius":         georadiusGetKeys,
	"georadiusbymember": georadiusGetKeys,
	"xread":             xreadGetKeys,
	"xreadgroup":        xreadGetKeys,
	"set":               setGetKeys,
	"bitfield":          bitfieldGetKeys,
}

var (
	keyFlagsRO       = []string{"RO", "access"}
	keyFlagsOW       = []string{"OW", "update"}
	keyFlagsRWUpdate = []string{"RW", "access", "update"}
)

// genericGetKeys finds "[destkey] numkeys key [key ...]" keys; like Redis
// it reads numkeys with atoi (glibc's: strtol cut to an int) and returns
// the keys without flags.
func genericGetKeys(storeKeyOfs, keyCountOfs, firstKeyOfs, keyStep int, argv [][]byte) []KeyRef {
	num := int(int32(rstring.Atoll(argv[keyCountOfs])))
	if num < 1 || num > (len(argv)-firstKeyOfs)/keyStep {
		return nil
	}
	keys := make([]KeyRef, 0, num+1)
	for i := 0; i < num; i++ {
		keys = append(keys, KeyRef{Pos: firstKeyOfs + i*keyStep})
	}
	if storeKeyOfs != 0 {
		keys = append(keys, KeyRef{Pos: storeKeyOfs})
	}
	return keys
}

func sortGetKeys(argv [][]byte) []KeyRef {
	keys := []KeyRef{{1, keyFlagsRO}}
	store := 0
	for i := 2; i < len(argv); i++ {
		switch {
		case rstring.EqualFold(argv[i], "limit"):
			i += 2
		case rstring.EqualFold(argv[i], "get"), rstring.EqualFold(argv[i], "by"):
			i++
		case rstring.EqualFold(argv[i], "store") && i+1 < len(argv):
			store = i + 1 // the last STORE wins, as in SORT
		}
	}
	if store > 0 {
		keys = append(keys, KeyRef{store, keyFlagsOW})
	}
	return keys
}

func migrateGetKeys(argv [][]byte) []KeyRef {
	first, num := 3, 1
	if len(argv) > 6 {
	scan:
		for i := 6; i < len(argv); i++ {
			switch {
			case rstring.EqualFold(argv[i], "keys"):
				if len(argv[3]) > 0 {
					return nil // "Cannot use MIGRATE KEYS option when key name is not empty"
				}
				first, num = i+1, len(argv)-i-1
				break scan
			case rstring.EqualFold(argv[i], "auth"):
				i++
			case rstring.EqualFold(argv[i], "auth2"):
				i += 2
			}
		}
	}
	flags := []string{"RW", "access", "delete"}
	keys := make([]KeyRef, num)
	for i := range keys {
		keys[i] = KeyRef{first + i, flags}
	}
	return keys
}

func georadiusGetKeys(argv [][]byte) []KeyRef {
	stored := -1
	for i := 5; i < len(argv); i++ {
		if (rstring.EqualFold(argv[i], "store") || rstring.EqualFold(argv[i], "storedist")) && i+1 < len(argv) {
			stored = i + 1 // the last one wins, as in GEORADIUS
			i++
		}
	}
	keys := []KeyRef{{1, keyFlagsRO}}
	if stored >= 0 {
		keys = append(keys, KeyRef{stored, keyFlagsOW})
	}
	return keys
}

func xreadGetKeys(argv [][]byte) []KeyRef {
	streams := -1
scan:
	for i := 1; i < len(argv); i++ {
		switch {
		case rstring.EqualFold(argv[i], "block"), rstring.EqualFold(argv[i], "count"):
			i++
		case rstring.EqualFold(argv[i], "group"):
			i += 2
		case rstring.EqualFold(argv[i], "noack"):
		case rstring.EqualFold(argv[i], "streams"):
			streams = i
			break scan
		default:
			break scan
		}
	}
	num := len(argv) - streams - 1
	if streams == -1 || num == 0 || num%2 != 0 {
		return nil
	}
	num /= 2
	keys := make([]KeyRef, num)
	for i := range keys {
		keys[i] = KeyRef{streams + 1 + i, keyFlagsRO}
	}
	return keys
}

func setGetKeys(argv [][]byte) []KeyRef {
	for _, a := range argv[3:] {
		if rstring.EqualFold(a, "get") {
			return []KeyRef{{1, keyFlagsRWUpdate}}
		}
	}
	return []KeyRef{{1, keyFlagsOW}}
}

func bitfieldGetKeys(argv [][]byte) []KeyRef {
	readonly := true
scan:
	for i := 2; i < len(argv); i++ {
		rem := len(argv) - i - 1
		switch {
		case rstring.EqualFold(argv[i], "get") && rem >= 2:
			i += 2
		case (rstring.EqualFold(argv[i], "set") || rstring.EqualFold(argv[i], "incrby")) && rem >= 3:
			readonly = false
			break scan
		case rstring.EqualFold(argv[i], "overflow") && rem >= 1:
			i++
		default:
			readonly = false // a syntax error: safer to assume a write
			break scan
		}
	}
	if readonly {
		return []KeyRef{{1, keyFlagsRO}}
	}
	return []KeyRef{{1, keyFlagsRWUpdate}}
}
