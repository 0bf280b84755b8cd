package dict

// prefetch asks the CPU to bring addr's cache line in, without waiting for
// it: a hint, which never faults.
//
//go:noescape
func prefetch(addr uintptr)
