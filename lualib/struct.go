package lualib

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library Redis bundles (lua_struct.c, Roberto Ierusalimschy's
// struct 0.2 with Redis's fixes): struct.pack, struct.unpack, struct.size
// on x86-64 (long and size_t are 8 bytes, native order little endian).

const (
	structMaxIntSize = 32
	structMaxAlign   = 8 // MAXALIGN: the padding before a double
)

type structHeader struct {
	little bool
	align  int
}

// structGetNum is getnum: the digits at fmt[*i:], or df.
func structGetNum(L *lua.LState, f string, i *int, df int) int {
	if *i >= len(f) || f[*i] < '0' || f[*i] > '9' {
		return df
	}
	a := 0
	for *i < len(f) && f[*i] >= '0' && f[*i] <= '9' {
		d := int(f[*i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			Error(L, "integral size overflow")
		}
		a = a*10 + d
		*i++
	}
	return a
}

// structOptSize is optsize: an option's size (0 for the control options).
func structOptSize(L *lua.LState, opt byte, f string, i *int) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return structGetNum(L, f, i, 1)
	case 'i', 'I':
		sz := structGetNum(L, f, i, 4)
		if sz > structMaxIntSize {
			Error(L, fmt.Sprintf("integral size %d is larger than limit of %d", sz, structMaxIntSize))
		}
		return sz
	}
	return 0
}

// structToAlign is gettoalign.
func structToAlign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

// structControl is controloptions.
func structControl(L *lua.LState, fname string, opt byte, f string, i *int, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := structGetNum(L, f, i, structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			Error(L, fmt.Sprintf("alignment %d is not a power of 2", a))
		}
		h.align = a
	default:
		ArgError(L, 1, fname, fmt.Sprintf("invalid format option '%c'", opt))
	}
}

// Struct builds the struct table (luaopen_struct) for L.
func Struct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

func structPack(L *lua.LState) int {
	f := CheckString(L, 1, "pack")
	h := structHeader{little: true, align: 1}
	arg := 2
	var b []byte
	for i := 0; i < len(f) && f[i] != 0; {
		opt := f[i]
		i++
		size := structOptSize(L, opt, f, &i)
		pad := structToAlign(len(b), &h, opt, size)
		for ; pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := luaCCheckNumber(L, arg, "pack")
			arg++
			var v uint64
			if n < 0 {
				v = uint64(NumToInt(n))
			} else if n >= 1.8446744073709552e19 || math.IsNaN(n) {
				v = 1 << 63 // out of range: x86's conversion result
			} else {
				v = uint64(n)
			}
			buf := make([]byte, size)
			for k := 0; k < size; k++ {
				idx := size - 1 - k
				if h.little {
					idx = k
				}
				buf[idx] = byte(v)
				v >>= 8
			}
			b = append(b, buf...)
		case 'x':
			b = append(b, 0)
		case 'f':
			bits := math.Float32bits(float32(luaCCheckNumber(L, arg, "pack")))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint32(b, bits)
			} else {
				b = binary.BigEndian.AppendUint32(b, bits)
			}
		case 'd':
			bits := math.Float64bits(luaCCheckNumber(L, arg, "pack"))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint64(b, bits)
			} else {
				b = binary.BigEndian.AppendUint64(b, bits)
			}
		case 'c', 's':
			s := CheckString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				ArgError(L, arg, "pack", "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
			}
		default:
			structControl(L, "pack", opt, f, &i, &h)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

func structUnpack(L *lua.LState) int {
	f := CheckString(L, 1, "unpack")
	data := CheckString(L, 2, "unpack")
	pos := 1
	if L.Get(3) != lua.LNil {
		pos = int(CheckInt(L, 3, "unpack"))
	}
	if pos <= 0 {
		ArgError(L, 3, "unpack", "offset must be 1 or greater")
	}
	pos--
	h := structHeader{little: true, align: 1}
	var out []lua.LValue
	ld := len(data)
	for i := 0; i < len(f) && f[i] != 0; {
		opt := f[i]
		i++
		size := structOptSize(L, opt, f, &i)
		pos += structToAlign(pos, &h, opt, size)
		if size > ld || pos > ld-size {
			ArgError(L, 2, "unpack", "data string too short")
		}
		CheckStack(L, L.GetTop()+len(out), 2, "too many results") // the item and the position
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			var v uint64
			for k := 0; k < size; k++ {
				idx := k
				if h.little {
					idx = size - 1 - k
				}
				v = v<<8 | uint64(data[pos+idx])
			}
			if opt >= 'a' { // signed
				if size < 8 && v&(1<<(uint(size)*8-1)) != 0 {
					v |= ^uint64(0) << (uint(size)*8 - 1)
				}
				out = append(out, lua.LNumber(float64(int64(v))))
			} else {
				out = append(out, lua.LNumber(float64(v)))
			}
		case 'x':
		case 'f':
			var bits uint32
			if h.little {
				bits = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				bits = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			out = append(out, lua.LNumber(math.Float32frombits(bits)))
		case 'd':
			var bits uint64
			if h.little {
				bits = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				bits = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			out = append(out, lua.LNumber(math.Float64frombits(bits)))
		case 'c':
			if size == 0 {
				var prev float64
				ok := false
				if len(out) > 0 {
					prev, ok = ToNumber(out[len(out)-1])
				}
				if !ok {
					Error(L, "format 'c0' needs a previous size")
				}
				size = int(prev)
				out = out[:len(out)-1]
				if size > ld || pos > ld-size {
					ArgError(L, 2, "unpack", "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				Error(L, "unfinished string in data")
			}
			size = e + 1
			out = append(out, lua.LString(data[pos:pos+e]))
		default:
			structControl(L, "unpack", opt, f, &i, &h)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(out) + 1
}

func structSize(L *lua.LState) int {
	f := CheckString(L, 1, "size")
	h := structHeader{little: true, align: 1}
	pos := 0
	for i := 0; i < len(f) && f[i] != 0; {
		opt := f[i]
		i++
		size := structOptSize(L, opt, f, &i)
		pos += structToAlign(pos, &h, opt, size)
		if opt == 's' || (opt == 'c' && size == 0) {
			ArgError(L, 1, "size", "options 's' and 'c0' have variable size")
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
