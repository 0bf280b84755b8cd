package dict

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"unsafe"
)

// testEntry has the shape of the keyspace value (a pointer plus a word).
type testEntry struct {
	p unsafe.Pointer
	m uint64
}

// checkDict verifies the structural invariants: every node hashes to the
// bucket it sits in, per-table counts match the chains, ht[0] buckets
// before rehashidx are empty, no key appears twice, and the free list only
// holds released slots.
func checkDict[V any](t testing.TB, d *Dict[V]) {
	t.Helper()
	seen := make(map[string]bool, d.Len())
	for ti := 0; ti < 2; ti++ {
		ht := &d.ht[ti]
		if ti == 1 && d.rehashidx < 0 {
			if len(ht.buckets) != 0 || ht.used != 0 {
				t.Fatalf("ht[1] in use while not rehashing: size %d used %d", len(ht.buckets), ht.used)
			}
			break
		}
		size := len(ht.buckets)
		if size != 0 && size&(size-1) != 0 {
			t.Fatalf("ht[%d] size %d is not a power of two", ti, size)
		}
		count := 0
		for i, ref := range ht.buckets {
			if ti == 0 && d.rehashidx >= 0 && i < d.rehashidx && ref != 0 {
				t.Fatalf("ht[0] bucket %d below rehashidx %d is not empty", i, d.rehashidx)
			}
			for steps := 0; ref != 0; steps++ {
				if steps > d.Len() {
					t.Fatalf("ht[%d] bucket %d: chain loops", ti, i)
				}
				n := ht.ar.node(ref)
				if got := int(dictHash(n.Key) & uint64(size-1)); got != i {
					t.Fatalf("key %q in ht[%d] bucket %d, hashes to %d", n.Key, ti, i, got)
				}
				if n.hash != uint32(dictHash(n.Key)) {
					t.Fatalf("key %q: stored hash %#x is stale", n.Key, n.hash)
				}
				if seen[n.Key] {
					t.Fatalf("key %q stored twice", n.Key)
				}
				seen[n.Key] = true
				count++
				ref = n.next
			}
		}
		if count != ht.used {
			t.Fatalf("ht[%d]: used %d, chains hold %d", ti, ht.used, count)
		}
	}
	if d.rehashidx >= 0 && len(d.ht[1].buckets) == 0 {
		t.Fatalf("rehashing into an empty table")
	}
}

func sameDict(t testing.TB, d *Dict[int], model map[string]int) {
	t.Helper()
	checkDict(t, d)
	if d.Len() != len(model) {
		t.Fatalf("Len = %d, model has %d", d.Len(), len(model))
	}
	got := make(map[string]int, len(model))
	d.Range(func(k string, v *int) bool {
		if _, dup := got[k]; dup {
			t.Fatalf("Range visited %q twice", k)
		}
		got[k] = *v
		return true
	})
	if len(got) != len(model) {
		t.Fatalf("Range visited %d keys, want %d", len(got), len(model))
	}
	for k, v := range model {
		if g, ok := got[k]; !ok || g != v {
			t.Fatalf("key %q: Range gave %d,%v want %d", k, g, ok, v)
		}
	}
}

func TestDictModelRandomOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := New[int](0)
	model := map[string]int{}
	var grows, shrinks, maxLen int
	const ops = 100_000
	for i := 0; i < ops; i++ {
		// Phases alternate between filling (mostly sets over a wide key
		// space) and draining (mostly deletes), so the table grows and shrinks
		// many times.
		keySpace := 4000
		if (i/10000)%5 == 4 {
			keySpace = 40 // small tables: collisions and size-4 edge cases
		}
		k := "k" + strconv.Itoa(r.IntN(keySpace))
		prevSize := len(d.ht[0].buckets)
		wasRehashing := d.Rehashing()
		op := r.IntN(100)
		setPct, delPct := 60, 10
		if (i/10000)%2 == 1 {
			setPct, delPct = 2, 60
		}
		switch {
		case op < setPct:
			v := r.Int()
			_, existed := model[k]
			if added := d.Set(k, v); added == existed {
				t.Fatalf("op %d: Set(%q) added=%v, key existed=%v", i, k, added, existed)
			}
			model[k] = v
		case op < setPct+delPct:
			if setPct < delPct && op&1 == 0 {
				for present := range model { // drain: hit a present key
					k = present
					break
				}
			}
			old, ok := d.Delete(k)
			want, wantOK := model[k]
			if ok != wantOK || old != want {
				t.Fatalf("op %d: Delete(%q) = %d,%v want %d,%v", i, k, old, ok, want, wantOK)
			}
			delete(model, k)
		case op < setPct+delPct+8:
			p := d.GetPtr(k)
			want, wantOK := model[k]
			if (p != nil) != wantOK || (p != nil && *p != want) {
				t.Fatalf("op %d: GetPtr(%q) mismatch", i, k)
			}
			if p != nil {
				*p = want + 1
				model[k] = want + 1
			}
		case op < 98:
			v, ok := d.Get(k)
			want, wantOK := model[k]
			if ok != wantOK || v != want {
				t.Fatalf("op %d: Get(%q) = %d,%v want %d,%v", i, k, v, ok, want, wantOK)
			}
		default:
			d.RehashStep(1 + r.IntN(8))
		}
		if !wasRehashing && d.Rehashing() {
			if len(d.ht[1].buckets) > prevSize {
				grows++
			} else {
				shrinks++
			}
		}
		maxLen = max(maxLen, d.Len())
		if d.Len() != len(model) {
			t.Fatalf("op %d: Len = %d, model %d", i, d.Len(), len(model))
		}
		if i%997 == 0 {
			sameDict(t, d, model)
		}
	}
	sameDict(t, d, model)
	if grows < 20 || shrinks < 5 {
		t.Fatalf("only %d grows and %d shrinks: the test does not exercise resizing", grows, shrinks)
	}
	t.Logf("grows=%d shrinks=%d maxLen=%d", grows, shrinks, maxLen)
	for k := range model {
		if _, ok := d.Delete(k); !ok {
			t.Fatalf("final Delete(%q) missed", k)
		}
	}
	for d.RehashStep(100) {
	}
	if d.Len() != 0 || len(d.ht[0].buckets) != dictInitSize {
		t.Fatalf("emptied dict: len %d size %d", d.Len(), len(d.ht[0].buckets))
	}
}

func TestDictSetKeepsStoredKey(t *testing.T) {
	d := New[int](0)
	k1 := string([]byte("same-key"))
	k2 := string([]byte("same-key"))
	if !d.Set(k1, 1) {
		t.Fatal("first Set did not add")
	}
	if d.Set(k2, 2) {
		t.Fatal("second Set added a duplicate")
	}
	var stored string
	d.Range(func(k string, v *int) bool {
		stored = k
		if *v != 2 {
			t.Fatalf("value = %d, want 2", *v)
		}
		return true
	})
	if unsafe.StringData(stored) != unsafe.StringData(k1) {
		t.Fatal("Set replaced the stored key string")
	}
}

func TestDictEmpty(t *testing.T) {
	for _, d := range []*Dict[int]{New[int](0), New[int](100)} {
		if _, ok := d.Get("x"); ok {
			t.Fatal("Get on empty dict found a key")
		}
		if d.GetPtr("x") != nil {
			t.Fatal("GetPtr on empty dict found a key")
		}
		if _, ok := d.Delete("x"); ok {
			t.Fatal("Delete on empty dict found a key")
		}
		if c := d.Scan(0, func(string, *int) { t.Fatal("Scan emitted on empty dict") }); c != 0 {
			t.Fatalf("Scan on empty dict returned cursor %d", c)
		}
		if _, _, ok := d.RandomKey(nil); ok {
			t.Fatal("RandomKey on empty dict returned a key")
		}
		if d.RehashStep(10) {
			t.Fatal("RehashStep on empty dict reports work")
		}
		d.Range(func(string, *int) bool { t.Fatal("Range visited on empty dict"); return false })
	}
	d := New[int](0)
	d.Set("a", 1)
	d.Clear()
	if d.Len() != 0 || d.GetPtr("a") != nil {
		t.Fatal("Clear left entries")
	}
	d.Set("a", 2)
	if v, ok := d.Get("a"); !ok || v != 2 {
		t.Fatal("dict unusable after Clear")
	}
}

func TestDictSizeHint(t *testing.T) {
	for _, c := range []struct{ hint, size int }{{1, 4}, {4, 4}, {5, 8}, {1000, 1024}, {1024, 1024}} {
		d := New[int](c.hint)
		if got := len(d.ht[0].buckets); got != c.size {
			t.Errorf("newDict(%d): %d buckets, want %d", c.hint, got, c.size)
		}
		for i := 0; i < c.hint; i++ {
			d.Set(strconv.Itoa(i), i)
		}
		if d.Rehashing() || len(d.ht[0].buckets) != c.size {
			t.Errorf("newDict(%d): resized while filling to the hint", c.hint)
		}
	}
}

// TestDictResizePolicy checks Redis's thresholds: grow when used reaches
// size, shrink when used falls under 10% of size.
func TestDictResizePolicy(t *testing.T) {
	d := New[int](0)
	for i := 0; i < 8; i++ {
		d.Set(strconv.Itoa(i), i)
	}
	// The 4->8 grow may still be in progress, depending on the seed.
	for d.RehashStep(1) {
	}
	if d.Rehashing() || len(d.ht[0].buckets) != 8 {
		t.Fatalf("8 keys: size %d rehashing %v, want 8 buckets and stable", len(d.ht[0].buckets), d.Rehashing())
	}
	d.Set("8", 8) // used == size before this insert: grow to 16
	if !d.Rehashing() || len(d.ht[1].buckets) != 16 {
		t.Fatalf("9th key: want rehash to 16, got rehashing=%v size=%d", d.Rehashing(), len(d.ht[1].buckets))
	}
	for d.RehashStep(1) {
	}
	for i := 0; i < 1000; i++ {
		d.Set(strconv.Itoa(i), i)
	}
	for d.RehashStep(100) {
	}
	if len(d.ht[0].buckets) != 1024 {
		t.Fatalf("1000 keys: size %d want 1024", len(d.ht[0].buckets))
	}
	// 103 keys is 10.05% of 1024: no shrink; 102 keys is under 10%.
	for i := 1000 - 1; i >= 103; i-- {
		d.Delete(strconv.Itoa(i))
	}
	if d.Rehashing() {
		t.Fatalf("shrinking at %d/1024 keys", d.Len())
	}
	d.Delete("102")
	if !d.Rehashing() || len(d.ht[1].buckets) != 128 {
		t.Fatalf("102/1024 keys: want shrink to 128, got rehashing=%v size=%d", d.Rehashing(), len(d.ht[1].buckets))
	}
	checkDict(t, d)
}

func TestDictScanCursorOrder(t *testing.T) {
	d := New[int](8)
	for i := 0; i < 8; i++ {
		d.Set(strconv.Itoa(i), i)
	}
	// Reverse-binary increments over 3 bits, as Redis's SCAN on 8 buckets.
	want := []uint64{4, 2, 6, 1, 5, 3, 7, 0}
	c := uint64(0)
	for i, w := range want {
		c = d.Scan(c, func(string, *int) {})
		if c != w {
			t.Fatalf("step %d: cursor %d want %d", i, c, w)
		}
	}
}

func TestDictScanStaticExactlyOnce(t *testing.T) {
	for _, n := range []int{1, 5, 100, 1000, 4096, 5000} {
		d := New[int](0)
		for i := 0; i < n; i++ {
			d.Set("key:"+strconv.Itoa(i), i)
		}
		for d.RehashStep(100) {
		}
		seen := map[string]int{}
		calls := 0
		var ahead ScanAhead
		var nears []uint64 // where PrefetchScan aims next, per call
		var cursors []uint64
		for c := uint64(0); ; {
			cursors = append(cursors, c)
			d.PrefetchScan(c, &ahead)
			nears = append(nears, ahead.near)
			c = d.Scan(c, func(k string, v *int) {
				if *v != mustAtoi(t, k[4:]) {
					t.Fatalf("key %q has value %d", k, *v)
				}
				seen[k]++
			})
			calls++
			if c == 0 {
				break
			}
			if calls > 1<<20 {
				t.Fatalf("n=%d: scan did not terminate", n)
			}
		}
		if calls != len(d.ht[0].buckets) {
			t.Fatalf("n=%d: %d Scan calls for %d buckets", n, calls, len(d.ht[0].buckets))
		}
		// The hints are for the buckets Scan visits scanAheadK calls later.
		for i := 0; i+scanAheadK+1 < len(cursors); i++ {
			if nears[i] != cursors[i+scanAheadK+1] {
				t.Fatalf("n=%d: after cursor %d PrefetchScan aims at %d, Scan goes to %d", n, i, nears[i], cursors[i+scanAheadK+1])
			}
		}
		if len(seen) != n {
			t.Fatalf("n=%d: scan returned %d distinct keys", n, len(seen))
		}
		for k, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: key %q returned %d times", n, k, c)
			}
		}
	}
}

func mustAtoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDictScanGuarantee scans while, between Scan calls, other keys are
// inserted and deleted so that the table grows and shrinks (and is often
// mid-rehash when Scan runs). Every stable key must be returned.
func TestDictScanGuarantee(t *testing.T) {
	var callsGrowing, callsShrinking, resizes int
	for trial := 0; trial < 30; trial++ {
		r := rand.New(rand.NewPCG(uint64(trial), 7))
		d := New[int](0)
		stable := 20 + r.IntN(300)
		for i := 0; i < stable; i++ {
			d.Set("s"+strconv.Itoa(i), i)
		}
		var churn []string
		next := 0
		seen := make(map[string]bool, stable)
		c := uint64(0)
		var ahead ScanAhead
		for calls := 0; ; calls++ {
			if calls > 1<<20 {
				t.Fatalf("trial %d: scan did not terminate", trial)
			}
			if d.Rehashing() {
				if len(d.ht[1].buckets) > len(d.ht[0].buckets) {
					callsGrowing++
				} else {
					callsShrinking++
				}
			}
			d.PrefetchScan(c, &ahead) // a hint: must hold through resizes and rehashing
			c = d.Scan(c, func(k string, v *int) {
				if k[0] == 's' {
					if *v != mustAtoi(t, k[1:]) {
						t.Fatalf("key %q value %d", k, *v)
					}
					seen[k] = true
				}
			})
			if c == 0 {
				break
			}
			before := len(d.ht[0].buckets)
			switch r.IntN(10) {
			case 0, 1: // burst of inserts: forces growth
				for j := r.IntN(4 * stable); j > 0; j-- {
					k := "c" + strconv.Itoa(next)
					next++
					d.Set(k, -1)
					churn = append(churn, k)
				}
			case 2, 3: // burst of deletes: forces shrinking
				for j := r.IntN(len(churn) + 1); j > 0; j-- {
					i := r.IntN(len(churn))
					d.Delete(churn[i])
					churn[i] = churn[len(churn)-1]
					churn = churn[:len(churn)-1]
				}
			case 4:
				d.RehashStep(r.IntN(50))
			case 5: // reads also step the rehash
				for j := 0; j < 20; j++ {
					d.Get("s" + strconv.Itoa(r.IntN(stable)))
				}
			}
			if len(d.ht[0].buckets) != before {
				resizes++
			}
		}
		checkDict(t, d)
		for i := 0; i < stable; i++ {
			if k := "s" + strconv.Itoa(i); !seen[k] {
				t.Fatalf("trial %d: stable key %q not returned by scan", trial, k)
			}
		}
	}
	if callsGrowing < 100 || callsShrinking < 100 || resizes < 100 {
		t.Fatalf("weak coverage: %d scan calls while growing, %d while shrinking, %d resizes",
			callsGrowing, callsShrinking, resizes)
	}
	t.Logf("scan calls while growing=%d shrinking=%d, resizes=%d", callsGrowing, callsShrinking, resizes)
}

func TestDictRandomKey(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	d := New[int](0)
	for i := 0; i < 1000; i++ {
		d.Set("r"+strconv.Itoa(i), i)
	}
	for d.RehashStep(100) {
	}
	hits := map[string]int{}
	for i := 0; i < 20000; i++ {
		k, v, ok := d.RandomKey(r)
		if !ok {
			t.Fatal("RandomKey failed on a non-empty dict")
		}
		if got, ok := d.Get(k); !ok || got != *v {
			t.Fatalf("RandomKey returned %q=%d, dict has %d,%v", k, *v, got, ok)
		}
		hits[k]++
	}
	if len(hits) <= 500 {
		t.Fatalf("20000 draws hit only %d of 1000 keys", len(hits))
	}
	t.Logf("20000 draws hit %d of 1000 keys", len(hits))

	// While rehashing in both directions, only live keys come back, from
	// both tables.
	for _, shrink := range []bool{false, true} {
		d := New[int](0)
		n := 1024
		for i := 0; i < n; i++ {
			d.Set("r"+strconv.Itoa(i), i)
		}
		for d.RehashStep(100) {
		}
		live := map[string]bool{}
		if shrink {
			for i := 0; i < n; i++ {
				if i%16 == 0 {
					live["r"+strconv.Itoa(i)] = true
				} else {
					d.Delete("r" + strconv.Itoa(i))
				}
			}
		} else {
			for i := 0; i < n; i++ {
				live["r"+strconv.Itoa(i)] = true
			}
			d.Set("extra", 0)
			live["extra"] = true
		}
		if !d.Rehashing() {
			t.Fatalf("shrink=%v: expected a rehash in progress", shrink)
		}
		d.RehashStep(4)
		if !d.Rehashing() {
			t.Fatalf("shrink=%v: rehash ended too early", shrink)
		}
		fromOld := 0
		for i := 0; i < 2000; i++ {
			k, v, ok := d.RandomKey(r)
			if !ok || !live[k] || v == nil {
				t.Fatalf("shrink=%v: RandomKey returned %q,%v (live=%v)", shrink, k, ok, live[k])
			}
			if p := d.GetPtr(k); p != v {
				t.Fatalf("shrink=%v: RandomKey pointer differs from GetPtr", shrink)
			}
			if d.Rehashing() && dictInTable(d, 0, k) {
				fromOld++
			}
		}
		if d.Rehashing() && fromOld == 0 {
			t.Fatalf("shrink=%v: RandomKey never picked from the old table", shrink)
		}
	}
}

// dictInTable reports whether key currently sits in d.ht[t].
func dictInTable[V any](d *Dict[V], t int, key string) bool {
	ht := &d.ht[t]
	if len(ht.buckets) == 0 {
		return false
	}
	for ref := ht.buckets[dictHash(key)&uint64(len(ht.buckets)-1)]; ref != 0; {
		n := ht.ar.node(ref)
		if n.Key == key {
			return true
		}
		ref = n.next
	}
	return false
}

func TestDictRange(t *testing.T) {
	d := New[int](0)
	for i := 0; i < 3000; i++ {
		d.Set(strconv.Itoa(i), i)
	}
	// 3000 keys leave a grow in progress until stepped; test mid-rehash too.
	for _, steps := range []int{0, 100, 1 << 20} {
		d.RehashStep(steps)
		got := map[string]int{}
		d.Range(func(k string, v *int) bool {
			got[k]++
			if *v != mustAtoi(t, k) {
				t.Fatalf("key %q value %d", k, *v)
			}
			return true
		})
		if len(got) != 3000 {
			t.Fatalf("Range visited %d keys", len(got))
		}
		for k, c := range got {
			if c != 1 {
				t.Fatalf("Range visited %q %d times", k, c)
			}
		}
	}
	n := 0
	d.Range(func(string, *int) bool { n++; return n < 10 })
	if n != 10 {
		t.Fatalf("Range did not stop: %d calls", n)
	}
}

// TestDictPointersSurviveLookups checks the contract the keyspace relies on:
// a GetPtr pointer stays valid across other lookups, even while a shrink is
// relocating nodes.
func TestDictPointersSurviveLookups(t *testing.T) {
	d := New[int](0)
	for i := 0; i < 4096; i++ {
		d.Set(strconv.Itoa(i), i)
	}
	for d.RehashStep(100) {
	}
	for i := 0; i < 4096; i++ {
		if i%32 != 0 {
			d.Delete(strconv.Itoa(i))
		}
	}
	if !d.Rehashing() || !d.relocating() {
		t.Fatal("expected a shrinking rehash in progress")
	}
	p := d.GetPtr("0")
	for i := 0; i < 4096; i += 32 {
		d.Get(strconv.Itoa(i))
		d.GetPtr(strconv.Itoa(i))
		d.RandomKey(nil)
	}
	*p = 12345
	if v, _ := d.Get("0"); v != 12345 {
		t.Fatalf("write through GetPtr lost after lookups: got %d", v)
	}
	for d.RehashStep(1) {
	}
	if v, _ := d.Get("0"); v != 12345 {
		t.Fatalf("value lost across relocation: %d", v)
	}
	checkDict(t, d)
}

func TestDictShrinkReleasesMemory(t *testing.T) {
	d := New[testEntry](0)
	for i := 0; i < 100_000; i++ {
		d.Set(strconv.Itoa(i), testEntry{m: uint64(i)})
	}
	full := d.MemoryUsage()
	for i := 10; i < 100_000; i++ {
		d.Delete(strconv.Itoa(i))
	}
	for d.RehashStep(100) {
	}
	small := d.MemoryUsage()
	if small > 4096 || small*100 > full {
		t.Fatalf("memory after deleting all but 10 of 100000 keys: %d bytes (full: %d)", small, full)
	}
	for i := 0; i < 10; i++ {
		if v, ok := d.Get(strconv.Itoa(i)); !ok || v.m != uint64(i) {
			t.Fatalf("key %d lost in shrink", i)
		}
	}
	// Freed slots are reused: churn does not grow the node pages.
	before := d.MemoryUsage()
	for i := 0; i < 1000; i++ {
		d.Set("x", testEntry{})
		d.Delete("x")
	}
	if after := d.MemoryUsage(); after != before {
		t.Fatalf("set/delete churn grew memory from %d to %d", before, after)
	}
}

func TestDictArenaLocate(t *testing.T) {
	// Walk every index through the page boundaries: pages must tile the
	// index space with no gaps or overlaps.
	var page, off uint32
	for i := uint32(0); i < dictGeoEnd+3*(1<<dictPageMaxShift); i++ {
		p, o := dictLocate(i)
		if i > 0 {
			if p == page {
				if o != off+1 {
					t.Fatalf("index %d: offset %d after %d in page %d", i, o, off, p)
				}
			} else if p != page+1 || o != 0 || int(off)+1 != dictPageSize(int(page)) {
				t.Fatalf("index %d: page %d off %d after page %d off %d (size %d)", i, p, o, page, off, dictPageSize(int(page)))
			}
		}
		page, off = p, o
	}
}

func TestDictGetDoesNotAllocate(t *testing.T) {
	d := New[testEntry](0)
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
		d.Set(keys[i], testEntry{m: uint64(i)})
	}
	miss := "absent-key"
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		d.Get(keys[i%len(keys)])
		d.GetPtr(keys[(i+1)%len(keys)])
		d.Get(miss)
		i++
	})
	if allocs != 0 {
		t.Fatalf("Get/GetPtr allocate %.1f times per run", allocs)
	}
	allocs = testing.AllocsPerRun(1000, func() {
		d.Set(keys[i%len(keys)], testEntry{m: 1}) // replace in place
		i++
	})
	if allocs != 0 {
		t.Fatalf("Set of an existing key allocates %.1f times per run", allocs)
	}
}

// heapInuse returns HeapInuse after a full collection.
func heapInuse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// bytesPerKey measures the table overhead (keys preallocated, so only the
// structure is counted) of storing n keys.
func bytesPerKey(n int, fill func(keys []string) any) float64 {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("key:%08d", i)
	}
	base := heapInuse()
	table := fill(keys)
	used := heapInuse() - base
	runtime.KeepAlive(table)
	runtime.KeepAlive(keys)
	return float64(used) / float64(n)
}

func fillDict(keys []string) any {
	d := New[testEntry](0)
	for i, k := range keys {
		d.Set(k, testEntry{m: uint64(i)})
	}
	return d
}

func fillMap(keys []string) any {
	m := make(map[string]testEntry)
	for i, k := range keys {
		m[k] = testEntry{m: uint64(i)}
	}
	return m
}

// TestDictBytesPerKey compares the memory held per key by dict[testEntry]
// and map[string]testEntry at 1M keys (key bytes excluded from both).
func TestDictBytesPerKey(t *testing.T) {
	const n = 1_000_000
	dictB := bytesPerKey(n, fillDict)
	mapB := bytesPerKey(n, fillMap)
	t.Logf("bytes/key at 1M keys: dict[testEntry] %.1f, map[string]testEntry %.1f", dictB, mapB)
	// Node 40 B + 4 B bucket (2^20 buckets for 1M keys) + part-filled page.
	if dictB > 50 {
		t.Fatalf("dict uses %.1f bytes/key, want <= 50", dictB)
	}
	if dictB >= mapB {
		t.Fatalf("dict (%.1f B/key) is not smaller than a Go map (%.1f B/key)", dictB, mapB)
	}
}

// FuzzDictOps runs a byte-coded op sequence against a map model.
func FuzzDictOps(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 2, 2, 3, 5})
	f.Add([]byte("\x00\x10\x00\x11\x00\x12\x00\x13\x00\x14\x01\x10\x01\x11\x01\x12\x04\x00"))
	seq := make([]byte, 0, 600)
	for i := 0; i < 200; i++ {
		seq = append(seq, 0, byte(i))
	}
	for i := 0; i < 195; i++ {
		seq = append(seq, 1, byte(i))
	}
	f.Add(seq)
	f.Fuzz(func(t *testing.T, ops []byte) {
		d := New[int](0)
		model := map[string]int{}
		cursor := uint64(0)
		for i := 0; i+1 < len(ops); i += 2 {
			k := strconv.Itoa(int(ops[i+1]))
			switch ops[i] % 6 {
			case 0:
				d.Set(k, i)
				model[k] = i
			case 1:
				old, ok := d.Delete(k)
				want, wantOK := model[k]
				if ok != wantOK || old != want {
					t.Fatalf("Delete(%q) = %d,%v want %d,%v", k, old, ok, want, wantOK)
				}
				delete(model, k)
			case 2:
				v, ok := d.Get(k)
				want, wantOK := model[k]
				if ok != wantOK || v != want {
					t.Fatalf("Get(%q) = %d,%v want %d,%v", k, v, ok, want, wantOK)
				}
			case 3:
				d.RehashStep(int(ops[i+1]))
			case 4:
				cursor = d.Scan(cursor, func(k string, v *int) {
					if want, ok := model[k]; !ok || want != *v {
						t.Fatalf("Scan returned %q=%d, model %d,%v", k, *v, want, ok)
					}
				})
			case 5:
				if k, v, ok := d.RandomKey(nil); ok != (len(model) > 0) || (ok && model[k] != *v) {
					t.Fatalf("RandomKey = %q,%v", k, ok)
				}
			}
		}
		sameDict(t, d, model)
	})
}

func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
	}
	rand.New(rand.NewPCG(5, 6)).Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

const benchN = 1 << 20

// BenchmarkDictSet inserts into a dict growing to 1M keys (restarted every
// 1M ops), so growth and rehashing are included.
func BenchmarkDictSet(b *testing.B) {
	keys := benchKeys(benchN)
	d := New[testEntry](0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i&(benchN-1) == 0 && i > 0 {
			d.Clear()
		}
		d.Set(keys[i&(benchN-1)], testEntry{m: uint64(i)})
	}
}

func BenchmarkGoMapSet(b *testing.B) {
	keys := benchKeys(benchN)
	m := map[string]testEntry{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i&(benchN-1) == 0 && i > 0 {
			m = map[string]testEntry{}
		}
		m[keys[i&(benchN-1)]] = testEntry{m: uint64(i)}
	}
}

func BenchmarkDictGet(b *testing.B) {
	keys := benchKeys(benchN)
	d := fillDict(keys).(*Dict[testEntry])
	for d.RehashStep(1000) {
	}
	b.ReportAllocs()
	b.ResetTimer()
	var sum uint64
	for i := 0; i < b.N; i++ {
		v, _ := d.Get(keys[i&(benchN-1)])
		sum += v.m
	}
	runtime.KeepAlive(sum)
}

func BenchmarkGoMapGet(b *testing.B) {
	keys := benchKeys(benchN)
	m := fillMap(keys).(map[string]testEntry)
	b.ReportAllocs()
	b.ResetTimer()
	var sum uint64
	for i := 0; i < b.N; i++ {
		sum += m[keys[i&(benchN-1)]].m
	}
	runtime.KeepAlive(sum)
}

// BenchmarkDictBytesPerKey reports table bytes per key at 1M keys for both
// structures as custom metrics.
func BenchmarkDictBytesPerKey(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.ReportMetric(bytesPerKey(1_000_000, fillDict), "dict-B/key")
		b.ReportMetric(bytesPerKey(1_000_000, fillMap), "map-B/key")
	}
}

// BenchmarkDictScanWalk walks 1M keys as a snapshot does (each node's
// value read and written), with and without PrefetchScan.
func BenchmarkDictScanWalk(b *testing.B) {
	keys := benchKeys(benchN)
	d := New[testEntry](0)
	for i, k := range keys {
		d.Set(k, testEntry{m: uint64(i)})
	}
	for _, pf := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "prefetch"}[pf], func(b *testing.B) {
			var sum uint64
			for i := 0; i < b.N; i++ {
				var ahead ScanAhead
				for c := uint64(0); ; {
					if pf {
						d.PrefetchScan(c, &ahead)
					}
					c = d.Scan(c, func(k string, v *testEntry) {
						sum += v.m
						v.m ^= 1 << 40
					})
					if c == 0 {
						break
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchN, "ns/key")
			_ = sum
		})
	}
}
