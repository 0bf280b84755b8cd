package rstring

// Match reports whether str matches the glob pattern exactly as Redis
// 7.0.15's stringmatchlen (util.c) decides: '*', '?', '[...]' classes with
// '^' negation, 'a-z' ranges (either way round), '\' escapes, an
// unterminated class running to the end of the pattern, and nocase folding
// ASCII letters only. KEYS, SCAN MATCH, PSUBSCRIBE, PUBSUB CHANNELS, CONFIG
// GET, COMMAND LIST FILTERBY PATTERN and FUNCTION LIST LIBRARYNAME all go
// through it. It never allocates and its work is bounded by about
// len(pattern)*len(str) steps whatever the pattern.
//
// Its quirks are Redis's: "*" does not match "" (the loop stops on an
// empty string before a star can match nothing), a star nested more than
// 1000 deep never matches, and range ends compare as signed chars (x86), so
// "[a-\xff]" means "\xff"..'a' and matches '0' but not "\xc3".
func Match[P, S ~string | ~[]byte](pattern P, str S, nocase bool) bool {
	var st state
	return match(pattern, str, nocase, &st, 0)
}

// maxNesting is Redis's protection against abusive patterns (CVE-2024-31228,
// in Debian's 7.0.15): past it a '*' simply fails to match.
const maxNesting = 1000

// state is shared by one Match call's recursions.
type state struct {
	// skipLongerMatches is CVE-2022-36021's fix: once a '*' has tried the
	// rest of the pattern at every remaining position of the string and
	// failed, no enclosing '*' can do better by consuming more, since that
	// would need the same rest to match starting even later.
	skipLongerMatches bool
	// steps counts loop iterations, for the tests' bound on the work done.
	steps int
}

// at is pattern[i] with C's NUL terminator past the end, which
// stringmatchlen reads at a few places (its patterns are sds strings).
func at[P ~string | ~[]byte](p P, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

// lower is C's tolower in the C locale (Redis never sets LC_CTYPE).
func lower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// match is stringmatchlen_impl line for line, with indexes p and s in place
// of the advancing pointers: patternLen is len(pattern)-p.
func match[P, S ~string | ~[]byte](pattern P, str S, nocase bool, st *state, nesting int) bool {
	st.steps++
	if nesting > maxNesting {
		return false
	}
	p, s := 0, 0
	for p < len(pattern) && s < len(str) {
		st.steps++
		switch pattern[p] {
		case '*':
			for at(pattern, p+1) == '*' {
				p++
			}
			if len(pattern)-p == 1 {
				return true
			}
			for s < len(str) {
				st.steps++
				if match(pattern[p+1:], str[s:], nocase, st, nesting+1) {
					return true
				}
				if st.skipLongerMatches {
					return false
				}
				s++
			}
			st.skipLongerMatches = true
			return false
		case '?':
			s++
		case '[':
			p++
			not := at(pattern, p) == '^'
			if not {
				p++
			}
			matched := false
			for {
				st.steps++
				if at(pattern, p) == '\\' && len(pattern)-p >= 2 {
					p++
					if pattern[p] == str[s] {
						matched = true
					}
				} else if at(pattern, p) == ']' {
					break
				} else if p == len(pattern) {
					// Unterminated class: step back so that the p++ below
					// lands on the end of the pattern.
					p--
					break
				} else if len(pattern)-p >= 3 && pattern[p+1] == '-' {
					// Redis reads the ends into ints from (signed) chars.
					start, end, c := int(int8(pattern[p])), int(int8(pattern[p+2])), int(int8(str[s]))
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					p += 2
					if c >= start && c <= end {
						matched = true
					}
				} else if nocase {
					if lower(int(pattern[p])) == lower(int(str[s])) {
						matched = true
					}
				} else if pattern[p] == str[s] {
					matched = true
				}
				p++
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			s++
		case '\\':
			if len(pattern)-p >= 2 {
				p++
			}
			fallthrough
		default:
			if nocase {
				if lower(int(pattern[p])) != lower(int(str[s])) {
					return false
				}
			} else if pattern[p] != str[s] {
				return false
			}
			s++
		}
		p++
		if s == len(str) {
			for at(pattern, p) == '*' {
				p++
			}
			break
		}
	}
	return p == len(pattern) && s == len(str)
}
