package scripting

import "sync"

// rand48 is Redis's rand.c (the drand48 generator), which math.random and
// math.randomseed use in scripts: one sequence for the whole process.
type rand48 struct{ x uint64 }

var scriptRand = struct {
	sync.Mutex
	r rand48
}{r: rand48{x: 0x1234ABCD330E}}

const rand48Max = 2147483647 // REDIS_LRAND48_MAX

func (r *rand48) seed(v int32) { r.x = uint64(uint32(v))<<16 | 0x330E }

func (r *rand48) next() int32 {
	r.x = (r.x*0x5DEECE66D + 0xB) & (1<<48 - 1)
	return int32(r.x >> 17)
}
