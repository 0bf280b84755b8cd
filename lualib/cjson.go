package lualib

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/aofserver/aofserver/rstring"
)

// The lua-cjson 2.1.0 library Redis bundles, with its configuration
// functions, its tokenizer's error messages ("Expected value but found
// T_END at character 6") and its number handling (strtod, "%.14g").

// cjsonConfig is one cjson instance's settings (json_config_t); they last
// as long as the Lua state (SCRIPT FLUSH resets the EVAL one).
type cjsonConfig struct {
	sparseConvert  bool
	sparseRatio    int64
	sparseSafe     int64
	encodeMaxDepth int64
	decodeMaxDepth int64
	precision      int64
	encodeInvalid  int // 0 off, 1 on, 2 null
	decodeInvalid  bool
	keepBuffer     bool
	null           lua.LValue
}

// CJSON builds the cjson table (luaopen_cjson) for L.
func CJSON(L *lua.LState) *lua.LTable {
	cfg := &cjsonConfig{sparseRatio: 2, sparseSafe: 10, encodeMaxDepth: 1000, decodeMaxDepth: 1000,
		precision: 14, decodeInvalid: true, keepBuffer: true, null: L.NewUserData()}
	t := L.NewTable()
	fn := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	fn("encode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			ArgError(L, 1, "encode", "expected 1 argument")
		}
		L.Push(lua.LString(cfg.encode(L, nil, L.Get(1), 0)))
		return 1
	})
	fn("decode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			ArgError(L, 1, "decode", "expected 1 argument")
		}
		L.Push(cfg.decode(L, CheckString(L, 1, "decode")))
		return 1
	})
	fn("encode_sparse_array", func(L *lua.LState) int {
		cjsonArgs(L, 3, "encode_sparse_array")
		cjsonBoolOption(L, 1, "encode_sparse_array", &cfg.sparseConvert)
		cjsonIntOption(L, 2, "encode_sparse_array", &cfg.sparseRatio, 0, math.MaxInt32)
		cjsonIntOption(L, 3, "encode_sparse_array", &cfg.sparseSafe, 0, math.MaxInt32)
		return 3
	})
	fn("encode_max_depth", func(L *lua.LState) int {
		cjsonArgs(L, 1, "encode_max_depth")
		cjsonIntOption(L, 1, "encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
		return 1
	})
	fn("decode_max_depth", func(L *lua.LState) int {
		cjsonArgs(L, 1, "decode_max_depth")
		cjsonIntOption(L, 1, "decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
		return 1
	})
	fn("encode_number_precision", func(L *lua.LState) int {
		cjsonArgs(L, 1, "encode_number_precision")
		cjsonIntOption(L, 1, "encode_number_precision", &cfg.precision, 1, 14)
		return 1
	})
	fn("encode_keep_buffer", func(L *lua.LState) int {
		cjsonArgs(L, 1, "encode_keep_buffer")
		cjsonBoolOption(L, 1, "encode_keep_buffer", &cfg.keepBuffer)
		return 1
	})
	fn("encode_invalid_numbers", func(L *lua.LState) int {
		cjsonArgs(L, 1, "encode_invalid_numbers")
		opts := []string{"off", "on", "null"}
		if v := L.Get(1); v != lua.LNil {
			if b, ok := v.(lua.LBool); ok {
				cfg.encodeInvalid = 0
				if b {
					cfg.encodeInvalid = 1
				}
			} else {
				cfg.encodeInvalid = luaCCheckOption(L, 1, "encode_invalid_numbers", opts)
			}
		}
		if cfg.encodeInvalid <= 1 {
			L.Push(lua.LBool(cfg.encodeInvalid == 1))
		} else {
			L.Push(lua.LString(opts[cfg.encodeInvalid]))
		}
		return 1
	})
	fn("decode_invalid_numbers", func(L *lua.LState) int {
		cjsonArgs(L, 1, "decode_invalid_numbers")
		cjsonBoolOption(L, 1, "decode_invalid_numbers", &cfg.decodeInvalid)
		return 1
	})
	fn("new", func(L *lua.LState) int {
		L.Push(CJSON(L))
		return 1
	})
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	t.RawSetString("null", cfg.null)
	return t
}

// cjsonArgs is json_arg_init: at most n arguments, the missing ones nil.
func cjsonArgs(L *lua.LState, n int, fname string) {
	if L.GetTop() > n {
		ArgError(L, n+1, fname, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// cjsonIntOption is json_integer_option.
func cjsonIntOption(L *lua.LState, i int, fname string, setting *int64, lo, hi int64) {
	if L.Get(i) != lua.LNil {
		v := CheckInt(L, i, fname)
		if v < lo || v > hi {
			ArgError(L, 1, fname, fmt.Sprintf("expected integer between %d and %d", lo, hi))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
}

// cjsonBoolOption is json_enum_option with the "off"/"on" options.
func cjsonBoolOption(L *lua.LState, i int, fname string, setting *bool) {
	if v := L.Get(i); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok {
			*setting = bool(b)
		} else {
			*setting = luaCCheckOption(L, i, fname, []string{"off", "on"}) == 1
		}
	}
	L.Push(lua.LBool(*setting))
}

// luaCCheckOption is luaL_checkoption without a default.
func luaCCheckOption(L *lua.LState, i int, fname string, opts []string) int {
	s := CheckString(L, i, fname)
	for n, o := range opts {
		if o == s {
			return n
		}
	}
	ArgError(L, i, fname, "invalid option '"+s+"'")
	return 0
}

func (cfg *cjsonConfig) exception(L *lua.LState, v lua.LValue, reason string) {
	Error(L, "Cannot serialise "+v.Type().String()+": "+reason)
}

func (cfg *cjsonConfig) number(L *lua.LState, b []byte, v lua.LNumber) []byte {
	f := float64(v)
	switch cfg.encodeInvalid {
	case 0:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			cfg.exception(L, v, "must not be NaN or Inf")
		}
	case 1:
		if math.IsNaN(f) {
			return append(b, "nan"...)
		}
	default:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return append(b, "null"...)
		}
	}
	if math.IsInf(f, 0) {
		if f > 0 {
			return append(b, "inf"...)
		}
		return append(b, "-inf"...)
	}
	return AppendFloatG(b, f, int(cfg.precision))
}

// encode is json_append_data.
func (cfg *cjsonConfig) encode(L *lua.LState, b []byte, v lua.LValue, depth int64) []byte {
	if v == cfg.null {
		return append(b, "null"...)
	}
	switch x := v.(type) {
	case *lua.LNilType:
		return append(b, "null"...)
	case lua.LBool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case lua.LNumber:
		return cfg.number(L, b, x)
	case lua.LString:
		return cjsonString(b, string(x))
	case *lua.LTable:
		depth++
		if depth > cfg.encodeMaxDepth {
			Error(L, fmt.Sprintf("Cannot serialise, excessive nesting (%d)", depth))
		}
		pairs := NextOrder(x)
		if n := cfg.arrayLength(L, x, pairs); n > 0 {
			b = append(b, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					b = append(b, ',')
				}
				b = cfg.encode(L, b, x.RawGetInt(i), depth)
			}
			return append(b, ']')
		}
		b = append(b, '{')
		for i, kv := range pairs {
			if i > 0 {
				b = append(b, ',')
			}
			switch k := kv[0].(type) {
			case lua.LNumber:
				b = append(b, '"')
				b = cfg.number(L, b, k)
				b = append(b, '"', ':')
			case lua.LString:
				b = cjsonString(b, string(k))
				b = append(b, ':')
			default:
				cfg.exception(L, k, "table key must be a number or string")
			}
			b = cfg.encode(L, b, kv[1], depth)
		}
		return append(b, '}')
	}
	cfg.exception(L, v, "type not supported")
	return b
}

// arrayLength is lua_array_length: the largest key when every key is a
// positive integer, -1 otherwise (or for an excessively sparse array when
// converting is on).
func (cfg *cjsonConfig) arrayLength(L *lua.LState, t *lua.LTable, pairs [][2]lua.LValue) int {
	maxKey, items := 0.0, 0
	for _, kv := range pairs {
		k, ok := kv[0].(lua.LNumber)
		if !ok || k == 0 || math.Floor(float64(k)) != float64(k) || k < 1 {
			return -1
		}
		if float64(k) > maxKey {
			maxKey = float64(k)
		}
		items++
	}
	if cfg.sparseRatio > 0 && maxKey > float64(items)*float64(cfg.sparseRatio) && maxKey > float64(cfg.sparseSafe) {
		if !cfg.sparseConvert {
			cfg.exception(L, t, "excessively sparse array")
		}
		return -1
	}
	return int(maxKey)
}

// JSON tokens (json_token_type_t) and their names in error messages.
const (
	jtObjBegin = iota
	jtObjEnd
	jtArrBegin
	jtArrEnd
	jtString
	jtNumber
	jtBoolean
	jtNull
	jtColon
	jtComma
	jtEnd
	jtWhitespace
	jtError
	jtUnknown
)

var jsonTokenNames = []string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER",
	"T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

var jsonCh2Token = func() (t [256]int) {
	for i := range t {
		t[i] = jtError
	}
	for c, tok := range map[byte]int{'{': jtObjBegin, '}': jtObjEnd, '[': jtArrBegin, ']': jtArrEnd, ',': jtComma,
		':': jtColon, 0: jtEnd, ' ': jtWhitespace, '\t': jtWhitespace, '\n': jtWhitespace, '\r': jtWhitespace} {
		t[c] = tok
	}
	for _, c := range []byte("fiInNt\"+-0123456789") {
		t[c] = jtUnknown
	}
	return
}()

type jsonToken struct {
	typ   int
	index int
	str   string // T_STRING value, or the T_ERROR message
	num   float64
	b     bool
}

type jsonParser struct {
	cfg   *cjsonConfig
	L     *lua.LState
	data  string
	ptr   int
	depth int64
}

// at is the byte at i, NUL past the end (the C string's terminator).
func (p *jsonParser) at(i int) byte {
	if i < len(p.data) {
		return p.data[i]
	}
	return 0
}

func (cfg *cjsonConfig) decode(L *lua.LState, s string) lua.LValue {
	p := &jsonParser{cfg: cfg, L: L, data: s}
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		Error(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	var tok jsonToken
	p.next(&tok)
	v := p.value(&tok)
	p.next(&tok)
	if tok.typ != jtEnd {
		p.parseError("the end", &tok)
	}
	return v
}

func (p *jsonParser) parseError(expected string, tok *jsonToken) {
	found := jsonTokenNames[tok.typ]
	if tok.typ == jtError {
		found = tok.str
	}
	Error(p.L, fmt.Sprintf("Expected %s but found %s at character %d", expected, found, tok.index+1))
}

func (p *jsonParser) tokenError(tok *jsonToken, msg string) {
	tok.typ, tok.index, tok.str = jtError, p.ptr, msg
}

// isInvalidNumber is json_is_invalid_number: what strict JSON refuses
// (leading +, hex, leading zeros, inf, nan).
func (p *jsonParser) isInvalidNumber() bool {
	i := p.ptr
	if p.at(i) == '+' {
		return true
	}
	if p.at(i) == '-' {
		i++
	}
	if c := p.at(i); c == '0' {
		c2 := p.at(i + 1)
		return c2|0x20 == 'x' || (c2 >= '0' && c2 <= '9')
	} else if c <= '9' {
		return false
	}
	rest := p.data[i:min(len(p.data), i+3)]
	return len(rest) == 3 && (rstring.EqualFold(rest, "inf") || rstring.EqualFold(rest, "nan"))
}

func (p *jsonParser) hasPrefix(s string) bool {
	return len(p.data)-p.ptr >= len(s) && p.data[p.ptr:p.ptr+len(s)] == s
}

// next is json_next_token.
func (p *jsonParser) next(tok *jsonToken) {
	var ch byte
	for {
		ch = p.at(p.ptr)
		tok.typ = jsonCh2Token[ch]
		if tok.typ != jtWhitespace {
			break
		}
		p.ptr++
	}
	tok.index = p.ptr
	switch tok.typ {
	case jtError:
		p.tokenError(tok, "invalid token")
		return
	case jtEnd:
		return
	case jtUnknown:
	default:
		p.ptr++
		return
	}
	switch {
	case ch == '"':
		p.stringToken(tok)
	case ch == '-' || (ch >= '0' && ch <= '9'):
		if !p.cfg.decodeInvalid && p.isInvalidNumber() {
			p.tokenError(tok, "invalid number")
			return
		}
		p.numberToken(tok)
	case p.hasPrefix("true"):
		tok.typ, tok.b = jtBoolean, true
		p.ptr += 4
	case p.hasPrefix("false"):
		tok.typ, tok.b = jtBoolean, false
		p.ptr += 5
	case p.hasPrefix("null"):
		tok.typ = jtNull
		p.ptr += 4
	case p.cfg.decodeInvalid && p.isInvalidNumber():
		p.numberToken(tok)
	default:
		p.tokenError(tok, "invalid token")
	}
}

func (p *jsonParser) numberToken(tok *jsonToken) {
	// strtod stops at the C string's NUL
	end := len(p.data)
	for i := p.ptr; i < len(p.data); i++ {
		if p.data[i] == 0 {
			end = i
			break
		}
	}
	f, n := cStrtodPrefix(p.data[p.ptr:end])
	if n == 0 {
		p.tokenError(tok, "invalid number")
		return
	}
	tok.typ, tok.num = jtNumber, f
	p.ptr += n
}

var jsonEscape2Char = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'u': 'u'}

func (p *jsonParser) hex4(i int) int {
	v := 0
	for j := 0; j < 4; j++ {
		c := p.at(i + j)
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			d = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | d
	}
	return v
}

// stringToken is json_next_string_token.
func (p *jsonParser) stringToken(tok *jsonToken) {
	p.ptr++
	var buf []byte
	for {
		ch := p.at(p.ptr)
		if ch == '"' {
			break
		}
		if ch == 0 {
			p.tokenError(tok, "unexpected end of string")
			return
		}
		if ch == '\\' {
			esc := jsonEscape2Char[p.at(p.ptr+1)]
			if esc == 'u' {
				n, ok := p.unicodeEscape(buf)
				if !ok {
					p.tokenError(tok, "invalid unicode escape code")
					return
				}
				buf = n
				continue
			}
			if esc == 0 {
				p.tokenError(tok, "invalid escape code")
				return
			}
			p.ptr++
			ch = esc
		}
		buf = append(buf, ch)
		p.ptr++
	}
	p.ptr++
	tok.typ, tok.str = jtString, string(buf)
}

// unicodeEscape is json_append_unicode_escape (surrogate pairs joined).
func (p *jsonParser) unicodeEscape(buf []byte) ([]byte, bool) {
	escLen := 6
	cp := p.hex4(p.ptr + 2)
	if cp < 0 {
		return buf, false
	}
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 {
			return buf, false
		}
		if p.at(p.ptr+escLen) != '\\' || p.at(p.ptr+escLen+1) != 'u' {
			return buf, false
		}
		low := p.hex4(p.ptr + 2 + escLen)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return buf, false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		escLen = 12
	}
	switch {
	case cp <= 0x7F:
		buf = append(buf, byte(cp))
	case cp <= 0x7FF:
		buf = append(buf, byte(0xC0|cp>>6), byte(0x80|cp&0x3F))
	case cp <= 0xFFFF:
		buf = append(buf, byte(0xE0|cp>>12), byte(0x80|(cp>>6)&0x3F), byte(0x80|cp&0x3F))
	default:
		buf = append(buf, byte(0xF0|cp>>18), byte(0x80|(cp>>12)&0x3F), byte(0x80|(cp>>6)&0x3F), byte(0x80|cp&0x3F))
	}
	p.ptr += escLen
	return buf, true
}

func (p *jsonParser) descend() {
	p.depth++
	if p.depth > p.cfg.decodeMaxDepth {
		Error(p.L, fmt.Sprintf("Found too many nested data structures (%d) at character %d", p.depth, p.ptr))
	}
}

// value is json_process_value.
func (p *jsonParser) value(tok *jsonToken) lua.LValue {
	switch tok.typ {
	case jtString:
		return lua.LString(tok.str)
	case jtNumber:
		return lua.LNumber(tok.num)
	case jtBoolean:
		return lua.LBool(tok.b)
	case jtNull:
		return p.cfg.null
	case jtObjBegin:
		p.descend()
		t := p.L.NewTable()
		p.next(tok)
		if tok.typ == jtObjEnd {
			p.depth--
			return t
		}
		for {
			if tok.typ != jtString {
				p.parseError("object key string", tok)
			}
			k := tok.str
			p.next(tok)
			if tok.typ != jtColon {
				p.parseError("colon", tok)
			}
			p.next(tok)
			t.RawSetString(k, p.value(tok))
			p.next(tok)
			if tok.typ == jtObjEnd {
				p.depth--
				return t
			}
			if tok.typ != jtComma {
				p.parseError("comma or object end", tok)
			}
			p.next(tok)
		}
	case jtArrBegin:
		p.descend()
		t := p.L.NewTable()
		p.next(tok)
		if tok.typ == jtArrEnd {
			p.depth--
			return t
		}
		for i := 1; ; i++ {
			t.RawSetInt(i, p.value(tok))
			p.next(tok)
			if tok.typ == jtArrEnd {
				p.depth--
				return t
			}
			if tok.typ != jtComma {
				p.parseError("comma or array end", tok)
			}
			p.next(tok)
		}
	}
	p.parseError("value", tok)
	return lua.LNil
}

// cjsonString quotes s as lua-cjson does (it also escapes '/').
func cjsonString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '/':
			b = append(b, `\/`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if ch < 0x20 || ch == 0x7f {
				b = append(b, fmt.Sprintf("\\u%04x", ch)...)
			} else {
				b = append(b, ch)
			}
		}
	}
	return append(b, '"')
}
