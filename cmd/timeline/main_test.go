package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

// TestTimelinePictures runs the tool briefly against aofserver (built from
// this checkout) and redis-server and checks each picture is a PNG of the
// promised size: one server's column, or both side by side. What they show
// is for people to look at; this only proves the tool produces them.
func TestTimelinePictures(t *testing.T) {
	redis := testsrv.NeedRedis(t)
	dir := t.TempDir()
	ours := testsrv.Build(t, "aofserver", "github.com/aofserver/aofserver/cmd/server")
	mix, _ := parseMix("set=8,incr=1,lpush=1")
	o := options{
		aofserverBin: ours, redisBin: redis,
		clients: 2, pipeline: 2, mix: mix, keyspace: 1000, valueSize: 16, preload: 5000,
		job: "bgrewriteaof", duration: 800 * time.Millisecond, triggerAt: 200 * time.Millisecond,
		appendsync: "always", out: filepath.Join(dir, "out"),
		width: 320, height: 400, sampleInt: 50 * time.Millisecond, window: 100 * time.Millisecond,
	}
	files, err := run(o, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{
		"timeline-aofserver.png": {o.width, o.height},
		"timeline-redis.png":     {o.width, o.height},
		"timeline.png":           {2 * o.width, o.height},
	}
	if len(files) != len(want) {
		t.Fatalf("files %v, want %d", files, len(want))
	}
	for _, f := range files {
		size, ok := want[filepath.Base(f)]
		if !ok {
			t.Fatalf("unexpected picture %s", f)
		}
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
			t.Fatalf("%s is %dx%d, want %dx%d", f, b.Dx(), b.Dy(), size[0], size[1])
		}
	}
}
