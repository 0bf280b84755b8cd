package rstring

// SplitArgs is Redis 7.0.15's sdssplitargs (sds.c), which splits config
// file lines, CONFIG REWRITE's reading of the old file, manifest lines,
// inline commands and Lua shebang lines: arguments are separated by white
// space; "double quoted" arguments understand \n \r \t \b \a, \xHH and
// \<any byte>; 'single quoted' arguments understand \' only; a closing
// quote must be followed by white space or the end. ok is false for
// unbalanced quotes or a quote followed by something else; an empty or
// all-blank line gives no arguments and ok.
//
// Its quirks are Redis's: only ' ', \n, \r, \t end an unquoted argument
// (\v and \f do not, although they are skipped between arguments), a quote
// may open in the middle of an argument (a"b c" is the one argument "ab c"),
// and the line ends at its first NUL byte, since sdssplitargs takes a C
// string.
func SplitArgs[S ~string | ~[]byte](line S) (args []S, ok bool) {
	line = CString(line)
	at := func(i int) byte { // the C string's bytes, NUL past the end
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	// All arguments' bytes go to one buffer, cut into arguments at the end,
	// so that a []byte split allocates twice, whatever the argument count.
	var buf []byte
	var ends []int
	p := 0
	for {
		for p < len(line) && IsSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			break
		}
		inq, insq := false, false
		for done := false; !done; {
			c := at(p)
			switch {
			case inq:
				switch {
				case c == '\\' && at(p+1) == 'x' && IsHex(at(p+2)) && IsHex(at(p+3)):
					buf = append(buf, hexVal(at(p+2))<<4|hexVal(at(p+3)))
					p += 3
				case c == '\\' && at(p+1) != 0:
					p++
					e := at(p)
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					buf = append(buf, e)
				case c == '"':
					if n := at(p + 1); n != 0 && !IsSpace(n) {
						return nil, false
					}
					done = true
				case c == 0:
					return nil, false // unterminated quotes
				default:
					buf = append(buf, c)
				}
			case insq:
				switch {
				case c == '\\' && at(p+1) == '\'':
					p++
					buf = append(buf, '\'')
				case c == '\'':
					if n := at(p + 1); n != 0 && !IsSpace(n) {
						return nil, false
					}
					done = true
				case c == 0:
					return nil, false // unterminated quotes
				default:
					buf = append(buf, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					buf = append(buf, c)
				}
			}
			if c != 0 {
				p++
			}
		}
		ends = append(ends, len(buf))
	}
	args = make([]S, len(ends))
	if len(buf) == 0 {
		buf = []byte{} // empty arguments are empty, never nil
	}
	start := 0
	for i, e := range ends {
		args[i] = S(buf[start:e:e])
		start = e
	}
	return args, true
}

// IsHex reports whether c is an ASCII hex digit (C's isxdigit).
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// AppendRepr appends s quoted as Redis's sdscatrepr (sds.c) does: between
// double quotes, \ and " escaped, \n \r \t \a \b spelled so, other bytes
// outside printable ASCII as \xHH (lower case). MONITOR lines, CONFIG
// REWRITE's values and redis-server's --option arguments use it, and
// SplitArgs reads its output back to s.
func AppendRepr[S ~string | ~[]byte](dst []byte, s S) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f { // isprint in the C locale
				dst = append(dst, c)
			} else {
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			}
		}
	}
	return append(dst, '"')
}

// Repr is AppendRepr as a string.
func Repr[S ~string | ~[]byte](s S) string {
	return string(AppendRepr(make([]byte, 0, len(s)+2), s))
}
