package server

// globMatch matches like Redis's stringmatchlen: * ? [abc] [^a-z] and \
// escapes; nocase folds ASCII.
func globMatch(pattern, str []byte, nocase bool) bool {
	return globMatchDepth(pattern, str, nocase, 0)
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func globMatchDepth(p, s []byte, nocase bool, depth int) bool {
	if depth > 1000 {
		return false
	}
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if globMatchDepth(p[1:], s, nocase, depth+1) {
					return true
				}
				s = s[1:]
			}
			return globMatchDepth(p[1:], s, nocase, depth+1)
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			for {
				if len(p) == 0 {
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						match = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					start, end := p[0], p[2]
					c := s[0]
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lowerByte(start), lowerByte(end), lowerByte(c)
					}
					p = p[2:]
					if c >= start && c <= end {
						match = true
					}
				} else if nocase {
					if lowerByte(p[0]) == lowerByte(s[0]) {
						match = true
					}
				} else if p[0] == s[0] {
					match = true
				}
				p = p[1:]
			}
			if len(p) == 0 {
				// Unterminated [: Redis treats the pattern end as ']'.
				p = []byte{']'}
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(s) == 0 {
				return false
			}
			if nocase {
				if lowerByte(p[0]) != lowerByte(s[0]) {
					return false
				}
			} else if p[0] != s[0] {
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
