package rstring

// CloneArgv copies a command's arguments into one new buffer, for argv that
// must outlive the read buffer it points into (MULTI's queue, blocked
// clients, propagation, the AOF loader's MULTI). Each argument's capacity
// is clipped so that appending to one cannot overwrite the next.
func CloneArgv(argv [][]byte) [][]byte {
	n := 0
	for _, a := range argv {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(argv))
	for i, a := range argv {
		s := len(buf)
		buf = append(buf, a...)
		out[i] = buf[s:len(buf):len(buf)]
	}
	return out
}
