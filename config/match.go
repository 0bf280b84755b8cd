package config

// stringMatch is Redis's glob matcher (util.c stringmatchlen) in its
// case-insensitive form, as CONFIG GET uses it: * ? [abc] [^a-z] and \x.
func stringMatch(pattern, s string) bool {
	return matchFrom(pattern, s, 0)
}

// matchFrom recurses only on '*', and bounds nesting so that a hostile
// pattern cannot blow the stack.
func matchFrom(p, s string, depth int) bool {
	if depth > 1000 {
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if matchFrom(p[1:], s, depth+1) {
					return true
				}
				s = s[1:]
			}
			return matchFrom(p[1:], s, depth+1)
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			found := false
			for {
				if len(p) == 0 {
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if lower(p[0]) == lower(s[0]) {
						found = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					start, end := lower(p[0]), lower(p[2])
					if start > end {
						start, end = end, start
					}
					c := lower(s[0])
					if c >= start && c <= end {
						found = true
					}
					p = p[2:]
				} else if lower(p[0]) == lower(s[0]) {
					found = true
				}
				p = p[1:]
			}
			if len(p) == 0 {
				// Unterminated class: Redis steps back onto the last char.
				p = " "
			}
			if not {
				found = !found
			}
			if !found {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if lower(p[0]) != lower(s[0]) {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}
