package server

import (
	"runtime"
	"strconv"
)

func init() {
	register(&command{name: "memory|stats", arity: 2, proc: memoryStatsCommand, group: "server",
		summary: "Show memory usage details", since: "4.0.0", acl: []string{"@slow"}})
}

// Sizes Redis 7.0's getMemoryOverheadData counts per key (64-bit).
const (
	sizeofDictEntry = 24 // dictEntry
	sizeofPointer   = 8  // a bucket of the table
	sizeofRobj      = 16 // the robj of a value
)

// memoryStatsCommand is MEMORY STATS over the figures INFO memory shows:
// used memory is the estimate maxmemory compares with (evict.go), each
// non-empty database's table overhead is counted as Redis does from its
// key and bucket counts, and the allocator figures are the Go heap's.
func memoryStatsCommand(c *client, argv [][]byte) {
	s := c.srv
	used, startup := s.usedMemoryEstimate(), int64(memStartup)
	peak := s.usedMemoryPeak(used)
	clientsNormal, aofBuf := s.normalClientsMemory(), s.aofBufferLength()
	const luaCaches, functionsCaches = 0, 184 // INFO's used_memory_scripts_eval, used_memory_functions
	type dbOverhead struct {
		id            int
		main, expires int64
	}
	var dbs []dbOverhead
	keys := int64(0)
	for _, db := range s.dbs {
		n := int64(db.keys.Len())
		if n == 0 {
			continue
		}
		keys += n
		o := dbOverhead{id: db.id,
			main:    n*sizeofDictEntry + db.keys.Slots()*sizeofPointer + n*sizeofRobj,
			expires: int64(db.expires.Len())*sizeofDictEntry + db.expires.Slots()*sizeofPointer,
		}
		dbs = append(dbs, o)
	}
	// dataset.bytes and overhead.total are INFO's used_memory_dataset and
	// used_memory_overhead: our used memory estimate leaves the clients'
	// buffers out, so the parts above may add up to more than it.
	dataset := s.datasetBytes()
	overhead := used - dataset
	net := used - startup
	perKey := int64(0)
	if keys > 0 {
		perKey = net / keys
	}
	if net <= 0 {
		net = 1
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss := rssBytes()
	frag := 1.0
	if used > 0 {
		frag = float64(rss) / float64(used)
	}
	// Redis keeps the ratios as C floats.
	ratio := func(f float64) float64 { return float64(float32(f)) }

	c.mapLen(27 + len(dbs))
	num := func(name string, v int64) { c.bulkString(name); c.integer(v) }
	dbl := func(name string, v float64) { c.bulkString(name); c.double(ratio(v)) }
	num("peak.allocated", peak)
	num("total.allocated", used)
	num("startup.allocated", startup)
	num("replication.backlog", 0)
	num("clients.slaves", 0)
	num("clients.normal", clientsNormal)
	num("cluster.links", 0)
	num("aof.buffer", aofBuf)
	num("lua.caches", luaCaches)
	num("functions.caches", functionsCaches)
	for _, o := range dbs {
		c.bulkString("db." + strconv.Itoa(o.id))
		c.mapLen(3)
		num("overhead.hashtable.main", o.main)
		num("overhead.hashtable.expires", o.expires)
		num("overhead.hashtable.slot-to-keys", 0)
	}
	num("overhead.total", overhead)
	num("keys.count", keys)
	num("keys.bytes-per-key", perKey)
	num("dataset.bytes", dataset)
	dbl("dataset.percentage", float64(dataset)*100/float64(net))
	dbl("peak.percentage", float64(used)*100/float64(peak))
	num("allocator.allocated", int64(ms.HeapAlloc))
	num("allocator.active", int64(ms.HeapInuse))
	num("allocator.resident", int64(ms.HeapSys))
	dbl("allocator-fragmentation.ratio", 1)
	num("allocator-fragmentation.bytes", 0)
	dbl("allocator-rss.ratio", 1)
	num("allocator-rss.bytes", 0)
	dbl("rss-overhead.ratio", 1)
	num("rss-overhead.bytes", 0)
	dbl("fragmentation", frag)
	num("fragmentation.bytes", rss-used)
}
