package latency

import (
	"strings"
	"testing"
)

// The ring keeps one sample per second, the worst, and 160 seconds.
func TestTimeSeriesRing(t *testing.T) {
	var m Monitor
	m.add("e", 10, 1000)
	m.add("e", 30, 1000)
	m.add("e", 20, 1000)
	ts := m.events["e"]
	if s := ts.ordered(); len(s) != 1 || s[0].Ms != 30 || ts.max != 30 {
		t.Fatalf("same second: %+v max %d", s, ts.max)
	}
	// Older seconds, as if recorded earlier: the ring keeps the last 160.
	for i := 0; i < 200; i++ {
		ts.samples[ts.idx] = Sample{Time: int64(i + 1), Ms: int64(i)}
		ts.idx = (ts.idx + 1) % TSLen
	}
	s := m.History("e")
	if len(s) != TSLen || s[0].Ms != 40 || s[len(s)-1].Ms != 199 {
		t.Fatalf("ring: %d samples, first %+v last %+v", len(s), s[0], s[len(s)-1])
	}
	g := graph("e", &series{idx: 2, max: 9, samples: [TSLen]Sample{{100, 1}, {130, 9}}}, 190)
	want := "e - high 9 ms, low 1 ms (all time high 9 ms)\n" + strings.Repeat("-", 80) + "\n" +
		" #\n |\n |\n_|\n  \n11\nmm\n"
	if g != want {
		t.Fatalf("graph:\n%q\nwant\n%q", g, want)
	}
	if n := m.Reset([][]byte{[]byte("E")}); n != 1 || len(m.Latest()) != 0 {
		t.Fatalf("RESET E: %d dropped, %d left", n, len(m.Latest()))
	}
}
