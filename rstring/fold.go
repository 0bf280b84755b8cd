package rstring

// EqualFold is strcasecmp(a, b) == 0 in the C locale: ASCII letters fold,
// nothing else does (no Unicode folding, as Redis never sets LC_CTYPE).
func EqualFold[A, B ~string | ~[]byte](a A, b B) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(int(a[i])) != lower(int(b[i])) {
			return false
		}
	}
	return true
}

// CEqualFold is strcasecmp(b, s) == 0 on an argument as C sees it:
// anything after a NUL byte of b is ignored (options Redis compares with
// strcasecmp on the NUL-terminated argument).
func CEqualFold(b []byte, s string) bool { return EqualFold(CString(b), s) }
