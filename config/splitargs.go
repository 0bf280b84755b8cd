package config

import (
	"strconv"
	"strings"
)

// splitArgs splits a configuration line the way Redis's sdssplitargs does:
// arguments are separated by blanks; "double quoted" arguments understand
// \n \r \t \b \a \\ \" and \xHH escapes; 'single quoted' arguments only
// understand \'. A closing quote must be followed by a blank or the end of
// the line. ok is false for unbalanced quotes.
func splitArgs(line string) (args []string, ok bool) {
	i, n := 0, len(line)
	for {
		for i < n && isSpace(line[i]) {
			i++
		}
		if i >= n {
			return args, true
		}
		var cur strings.Builder
		inDQ, inSQ, done := false, false, false
		for !done {
			switch {
			case inDQ:
				if i >= n {
					return nil, false // unterminated quotes
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < n && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					b, _ := strconv.ParseUint(line[i+2:i+4], 16, 8)
					cur.WriteByte(byte(b))
					i += 3
				case c == '\\' && i+1 < n:
					i++
					switch line[i] {
					case 'n':
						cur.WriteByte('\n')
					case 'r':
						cur.WriteByte('\r')
					case 't':
						cur.WriteByte('\t')
					case 'b':
						cur.WriteByte('\b')
					case 'a':
						cur.WriteByte('\a')
					default:
						cur.WriteByte(line[i])
					}
				case c == '"':
					// The closing quote must be followed by a space or end.
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur.WriteByte(c)
				}
			case inSQ:
				if i >= n {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < n && line[i+1] == '\'':
					i++
					cur.WriteByte('\'')
				case c == '\'':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur.WriteByte(c)
				}
			default:
				if i >= n {
					done = true
					break
				}
				switch c := line[i]; c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDQ = true
				case '\'':
					inSQ = true
				default:
					cur.WriteByte(c)
				}
			}
			if i < n {
				i++
			}
		}
		args = append(args, cur.String())
	}
}

// isSpace matches C isspace in the "C" locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// repr quotes s the way sdscatrepr does, so that splitArgs reads it back.
func repr(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				b.WriteString(`\x`)
				const hexd = "0123456789abcdef"
				b.WriteByte(hexd[c>>4])
				b.WriteByte(hexd[c&15])
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// trimLine trims like sdstrim(line, " \t\r\n").
func trimLine(s string) string {
	return strings.Trim(s, " \t\r\n")
}
