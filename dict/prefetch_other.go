//go:build !amd64

package dict

// prefetch is a hint only amd64 acts on (prefetch_amd64.s).
func prefetch(addr uintptr) {}
