package lualib

// lua51HashOrder returns the order in which Lua 5.1 (Redis's interpreter)
// walks a table whose keys are the given strings, inserted in this order
// one by one into an empty table (lua_newtable + lua_settable, as Redis
// builds the tables of a RESP3 map or set reply): lua_next visits the node
// array by index, and a node's index depends on the string hash, on
// collisions (the free position is searched from the end) and on the
// rehashes the table went through while growing. gopher-lua walks in
// insertion order; this replays ltable.c's placement to get Redis's order.
// A table built by a constructor ({a=1, b=2}) is presized in Lua 5.1 and
// may be walked in another order than this incremental replay.
func lua51HashOrder(keys []string) []int {
	hash := make([]uint32, len(keys))
	for i, k := range keys {
		h := uint32(len(k))
		step := (len(k) >> 5) + 1
		for l1 := len(k); l1 >= step; l1 -= step {
			h ^= (h << 5) + (h >> 2) + uint32(k[l1-1])
		}
		hash[i] = h
	}
	type node struct{ key, next int } // key: index in keys, -1 when free
	var nodes []node                  // empty: Lua's dummy node
	lastfree := 0
	mainpos := func(k int) int { return int(hash[k] & uint32(len(nodes)-1)) }
	var set func(k int)
	rehash := func(k int) {
		used := 1 // the key being inserted
		for _, n := range nodes {
			if n.key >= 0 {
				used++
			}
		}
		size := 1
		for size < used {
			size <<= 1
		}
		old := nodes
		nodes = make([]node, size)
		for i := range nodes {
			nodes[i] = node{-1, -1}
		}
		lastfree = size
		for i := len(old) - 1; i >= 0; i-- {
			if old[i].key >= 0 {
				set(old[i].key)
			}
		}
	}
	getfree := func() int {
		for lastfree > 0 {
			lastfree--
			if nodes[lastfree].key < 0 {
				return lastfree
			}
		}
		return -1
	}
	set = func(k int) {
		if len(nodes) == 0 {
			rehash(k)
			set(k)
			return
		}
		mp := mainpos(k)
		if nodes[mp].key >= 0 {
			n := getfree()
			if n < 0 {
				rehash(k)
				set(k)
				return
			}
			if other := mainpos(nodes[mp].key); other != mp {
				// the colliding node is out of its main position: move it
				for nodes[other].next != mp {
					other = nodes[other].next
				}
				nodes[other].next = n
				nodes[n] = nodes[mp]
				nodes[mp] = node{-1, -1}
			} else {
				nodes[n].next = nodes[mp].next
				nodes[mp].next = n
				mp = n
			}
		}
		nodes[mp].key = k
	}
	for k := range keys {
		set(k)
	}
	order := make([]int, 0, len(keys))
	for _, n := range nodes {
		if n.key >= 0 {
			order = append(order, n.key)
		}
	}
	return order
}
