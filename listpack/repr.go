package listpack

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"strconv"
	"unsafe"
)

// Entry decodes the listpack entry at lp[i]: its header size, encoded
// size (header and data, no backlen) and value as lpGet renders it.
func Entry(lp []byte, i int) (hdr, size int, val []byte) {
	b := lp[i]
	le := func(n int) int64 { // n-byte little-endian two's complement
		var u uint64
		for j := n - 1; j >= 0; j-- {
			u = u<<8 | uint64(lp[i+1+j])
		}
		shift := 64 - 8*uint(n)
		return int64(u<<shift) >> shift
	}
	switch {
	case b&0x80 == 0: // 7-bit uint
		return 1, 1, strconv.AppendInt(nil, int64(b&0x7f), 10)
	case b&0xc0 == 0x80: // 6-bit string
		l := int(b & 0x3f)
		return 1, 1 + l, lp[i+1 : i+1+l]
	case b&0xe0 == 0xc0: // 13-bit int
		v := int64(b&0x1f)<<8 | int64(lp[i+1])
		if v >= 1<<12 {
			v -= 1 << 13
		}
		return 1, 2, strconv.AppendInt(nil, v, 10)
	case b&0xf0 == 0xe0: // 12-bit string
		l := int(b&0x0f)<<8 | int(lp[i+1])
		return 2, 2 + l, lp[i+2 : i+2+l]
	case b == 0xf0: // 32-bit string
		l := int(binary.LittleEndian.Uint32(lp[i+1:]))
		return 5, 5 + l, lp[i+5 : i+5+l]
	case b == 0xf1:
		return 1, 3, strconv.AppendInt(nil, le(2), 10)
	case b == 0xf2:
		return 1, 4, strconv.AppendInt(nil, le(3), 10)
	case b == 0xf3:
		return 1, 5, strconv.AppendInt(nil, le(4), 10)
	case b == 0xf4:
		return 1, 9, strconv.AppendInt(nil, le(8), 10)
	}
	return 1, 1, nil
}

// Count walks the listpack (its header count saturates at 65535).
func Count(lp []byte) int {
	n := 0
	for i := 6; i < len(lp) && lp[i] != 0xff; n++ {
		_, size, _ := Entry(lp, i)
		i += size + BacklenSize(size)
	}
	return n
}

// Repr is Redis's lpRepr (DEBUG LISTPACK): one block per entry, the
// address being that of our copy of the bytes.
func Repr(w *bufio.Writer, lp []byte) {
	if len(lp) < 7 {
		return
	}
	fmt.Fprintf(w, "{total bytes %d} {num entries %d}\n", binary.LittleEndian.Uint32(lp), Count(lp))
	base := uintptr(unsafe.Pointer(&lp[0]))
	for i, index := 6, 0; i < len(lp) && lp[i] != 0xff; index++ {
		hdr, size, val := Entry(lp, i)
		back := BacklenSize(size)
		fmt.Fprintf(w, "{\n\taddr: 0x%08x,\n\tindex: %2d,\n\toffset: %1d,\n\thdr+entrylen+backlen: %2d,\n\thdrlen: %3d,\n\tbacklen: %2d,\n\tpayload: %1d\n",
			base+uintptr(i), index, i, size+back, hdr, back, size-hdr)
		w.WriteString("\tbytes: ")
		for _, b := range lp[i : i+size+back] {
			fmt.Fprintf(w, "%02x|", b)
		}
		w.WriteString("\n\t[str]")
		if len(val) > 40 {
			w.Write(val[:40])
			w.WriteString("...")
		} else {
			w.Write(val)
		}
		w.WriteString("\n}\n")
		i += size + back
	}
	w.WriteString("{end}\n\n")
}
