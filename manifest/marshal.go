package manifest

import (
	"strconv"

	"github.com/aofserver/aofserver/rstring"
)

// Marshal returns the manifest text exactly as Redis writes it
// (getAofManifestAsString): the base line, history lines, then incr lines.
func (m *Manifest) Marshal() []byte { return m.AppendText(nil) }

// AppendText appends the manifest text to dst.
func (m *Manifest) AppendText(dst []byte) []byte {
	if m == nil {
		return dst
	}
	if m.Base != nil {
		dst = appendLine(dst, *m.Base)
	}
	for _, f := range m.History {
		dst = appendLine(dst, f)
	}
	for _, f := range m.Incrs {
		dst = appendLine(dst, f)
	}
	return dst
}

// appendLine is aofInfoFormat: "file %s seq %lld type %c\n".
func appendLine(dst []byte, f File) []byte {
	dst = append(dst, "file "...)
	if needsRepr(f.Name) {
		dst = appendRepr(dst, f.Name)
	} else {
		dst = append(dst, f.Name...)
	}
	dst = append(dst, " seq "...)
	dst = strconv.AppendInt(dst, f.Seq, 10)
	dst = append(dst, " type "...)
	dst = append(dst, byte(f.Type), '\n')
	return dst
}

// needsRepr is sdsneedsrepr, plus the empty name and ' (see package doc):
// Redis writes those bare and cannot read them back.
func needsRepr(s string) bool {
	if s == "" {
		return true
	}
	for i := range len(s) {
		c := s[i]
		if c == '\\' || c == '"' || c == '\'' || c < 0x20 || c > 0x7e || rstring.IsSpace(c) {
			return true
		}
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendRepr is sdscatrepr.
func appendRepr(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := range len(s) {
		switch c := s[i]; c {
		case '\\', '"':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '\a':
			dst = append(dst, `\a`...)
		case '\b':
			dst = append(dst, `\b`...)
		default:
			if c >= 0x20 && c <= 0x7e {
				dst = append(dst, c)
			} else {
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
			}
		}
	}
	return append(dst, '"')
}
