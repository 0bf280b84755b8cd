package lualib

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// StrFormat is Lua 5.1's string.format (lstrlib.c str_format): each
// conversion formatted as C's sprintf formats it (gopher-lua's hands the
// format to Go's fmt, which prints "%!d(string=x)" where Lua raises).
func StrFormat(L *lua.LState) int {
	const fname = "format"
	frm := CheckString(L, 1, fname)
	top := L.GetTop()
	arg := 1
	var b strings.Builder
	for i := 0; i < len(frm); i++ {
		c := frm[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i++; i < len(frm) && frm[i] == '%' {
			b.WriteByte('%')
			continue
		}
		if arg++; arg > top {
			ArgError(L, arg, fname, "no value")
		}
		// scanformat: flags, two digits of width, two of precision
		start := i
		for i < len(frm) && strings.IndexByte("-+ #0", frm[i]) >= 0 {
			i++
		}
		if i-start >= len("-+ #0")+1 {
			Error(L, "invalid format (repeated flags)")
		}
		flags := frm[start:i]
		digits := func(n int) {
			for ; n > 0 && i < len(frm) && frm[i] >= '0' && frm[i] <= '9'; n-- {
				i++
			}
		}
		wStart := i
		digits(2)
		width := frm[wStart:i]
		prec, hasPrec := "", false
		if i < len(frm) && frm[i] == '.' {
			i++
			pStart := i
			digits(2)
			prec, hasPrec = frm[pStart:i], true
		}
		if i < len(frm) && frm[i] >= '0' && frm[i] <= '9' {
			Error(L, "invalid format (width or precision too long)")
		}
		conv := byte(0)
		if i < len(frm) {
			conv = frm[i]
		}
		spec := func(flags string, verb byte) string {
			s := "%" + flags + width
			if hasPrec {
				s += "." + prec
			}
			return s + string(verb)
		}
		switch conv {
		case 'c':
			b.WriteString(cPad(flags, width, string([]byte{byte(NumToInt(luaCCheckNumber(L, arg, fname)))})))
		case 'd', 'i':
			f := luaCCheckNumber(L, arg, fname)
			b.WriteString(fmt.Sprintf(spec(flags, 'd'), NumToInt(f)))
		case 'o', 'u', 'x', 'X':
			f := luaCCheckNumber(L, arg, fname)
			u := uint64(NumToInt(f)) // (unsigned long) of a double, as x86-64 converts it
			if f >= 9.223372036854775807e18 && f < 1.8446744073709551615e19 {
				u = uint64(f)
			}
			// the sign flags mean nothing for unsigned conversions; '#'
			// prefixes nothing to a zero
			fl := strings.NewReplacer("+", "", " ", "").Replace(flags)
			if u == 0 {
				fl = strings.ReplaceAll(fl, "#", "")
			}
			verb := conv
			if verb == 'u' {
				verb = 'd'
			}
			b.WriteString(fmt.Sprintf(spec(fl, verb), u))
		case 'e', 'E', 'f', 'g', 'G':
			f := luaCCheckNumber(L, arg, fname)
			if math.IsInf(f, 0) || math.IsNaN(f) {
				s := "inf"
				if math.IsNaN(f) {
					s = "nan"
				}
				if conv == 'E' || conv == 'G' {
					s = strings.ToUpper(s)
				}
				switch {
				case math.Signbit(f):
					s = "-" + s
				case strings.Contains(flags, "+"):
					s = "+" + s
				case strings.Contains(flags, " "):
					s = " " + s
				}
				b.WriteString(cPad(strings.ReplaceAll(flags, "0", ""), width, s))
				continue
			}
			if (conv == 'g' || conv == 'G') && !hasPrec {
				// C's default precision; Go's is the shortest exact one
				prec, hasPrec = "6", true
			}
			b.WriteString(fmt.Sprintf(spec(flags, conv), f))
		case 'q':
			s := CheckString(L, arg, fname)
			b.WriteByte('"')
			for j := 0; j < len(s); j++ {
				switch ch := s[j]; ch {
				case '"', '\\', '\n':
					b.WriteByte('\\')
					b.WriteByte(ch)
				case '\r':
					b.WriteString(`\r`)
				case 0:
					b.WriteString(`\000`)
				default:
					b.WriteByte(ch)
				}
			}
			b.WriteByte('"')
		case 's':
			s := CheckString(L, arg, fname)
			if !hasPrec && len(s) >= 100 {
				b.WriteString(s) // kept whole, as Lua does
				continue
			}
			if k := strings.IndexByte(s, 0); k >= 0 {
				s = s[:k] // sprintf reads a C string
			}
			if hasPrec {
				n := 0
				for _, d := range prec {
					n = n*10 + int(d-'0')
				}
				if n < len(s) {
					s = s[:n]
				}
			}
			b.WriteString(cPad(flags, width, s))
		default:
			opt := string(conv)
			if conv == 0 {
				opt = "" // the format's end: luaO_pushfstring's %c of a NUL
			}
			Error(L, "invalid option '%"+opt+"' to 'format'")
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// cPad pads s to the width (spaces; on the right with the '-' flag), in
// bytes as C counts them.
func cPad(flags, width string, s string) string {
	w := 0
	for _, d := range width {
		w = w*10 + int(d-'0')
	}
	if len(s) >= w {
		return s
	}
	pad := strings.Repeat(" ", w-len(s))
	if strings.Contains(flags, "-") {
		return s + pad
	}
	return pad + s
}
