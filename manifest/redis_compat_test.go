package manifest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aofserver/aofserver/internal/testsrv"
)

const checkAOF = testsrv.RedisBinDir + "/redis-check-aof"

func needCheckAOF(t *testing.T) {
	t.Helper()
	testsrv.Need(t, checkAOF)
}

// redisVerdict is what Redis's own aofLoadManifestFromFile (run inside
// redis-check-aof) says about a manifest.
type redisVerdict struct {
	multiPart bool // redis-check-aof treated the input as a manifest
	fatal     bool
	msg       string
	line      int
	text      string
}

var (
	reAtLine = regexp.MustCompile(`Reading the manifest file, at line (\d+)`)
	reText   = regexp.MustCompile(`(?s)# >>> '(.*?)'\n`)
	reMsg    = regexp.MustCompile(`(?m)^\d+:C [^#]*# (.+)$`)
)

func runCheckAOF(t *testing.T, dir string, content []byte) redisVerdict {
	t.Helper()
	p := filepath.Join(dir, "appendonly.aof.manifest")
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, checkAOF, p).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("redis-check-aof timed out: %s", out)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("redis-check-aof: %v", err)
	}
	s := string(out)
	v := redisVerdict{multiPart: strings.Contains(s, "Start checking Multi Part AOF")}
	i := strings.Index(s, "*** FATAL AOF MANIFEST FILE ERROR ***")
	if i < 0 {
		return v
	}
	v.fatal = true
	s = s[i:]
	if m := reAtLine.FindStringSubmatch(s); m != nil {
		v.line, _ = strconv.Atoi(m[1])
	}
	if m := reText.FindStringSubmatch(s); m != nil {
		v.text = m[1]
	}
	msgs := reMsg.FindAllStringSubmatch(s, -1)
	for _, m := range msgs {
		if !strings.HasPrefix(m[1], ">>> ") && !strings.HasPrefix(m[1], "Reading the manifest") {
			v.msg = strings.TrimSpace(m[1])
		}
	}
	if v.msg == "" {
		t.Fatalf("cannot find Redis's message in %q", s)
	}
	return v
}

// compareWithRedis checks that Parse agrees with Redis on in. It returns false
// when redis-check-aof did not treat in as a manifest (no line starts with
// "file"), so nothing was compared.
func compareWithRedis(t *testing.T, dir string, in []byte) bool {
	t.Helper()
	v := runCheckAOF(t, dir, in)
	if !v.multiPart {
		return false
	}
	m, err := Parse(strings.NewReader(string(in)))
	if !v.fatal {
		if err != nil {
			t.Errorf("Redis accepts %q, Parse says %v", in, err)
		}
		return true
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("Redis refuses %q (%q line %d), Parse = %s, %v", in, v.msg, v.line, dumpOrNil(m), err)
		return true
	}
	if pe.Msg != v.msg || pe.Line != v.line || (v.line > 0 && pe.Text != v.text) {
		t.Errorf("%q: Redis says {line %d %q %q}, Parse says {line %d %q %q}", in, v.line, v.text, v.msg, pe.Line, pe.Text, pe.Msg)
	}
	return true
}

func dumpOrNil(m *Manifest) string {
	if m == nil {
		return "<nil>"
	}
	return dump(m)
}

// TestAgainstRedis runs every table case through Redis 7.0.15's own manifest
// loader. Inputs redis-check-aof would not recognise as a manifest get a
// leading "file" history line so they are compared too.
func TestAgainstRedis(t *testing.T) {
	needCheckAOF(t)
	dir := t.TempDir()
	var inputs []string
	for _, c := range errCases {
		inputs = append(inputs, c.in)
	}
	for _, c := range okCases {
		inputs = append(inputs, c.in)
	}
	compared := 0
	for _, in := range inputs {
		if compareWithRedis(t, dir, []byte(in)) || (in != "" && compareWithRedis(t, dir, []byte("file p seq 1 type h\n"+in))) {
			compared++
		}
	}
	if want := len(inputs) - 1; compared < want { // only the empty input cannot be compared
		t.Fatalf("compared %d of %d cases with Redis", compared, len(inputs))
	}
}

// TestAgainstRedisRandom compares Parse with Redis on random mutations of
// valid manifests, biased towards the bytes the grammar cares about.
func TestAgainstRedisRandom(t *testing.T) {
	needCheckAOF(t)
	seeds := []string{
		"file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
		"file \"my aof.1.base.rdb\" seq 1 type b\nfile 'x' seq 2 type h\nfile i seq 3 type i\n",
	}
	const alphabet = " \t\r\n\v\"'\\x0aF#/bhi019-+\x00\xff"
	n := 120
	if testing.Short() {
		n = 24
	}
	// Four workers with their own directory: the time goes into process start-up.
	for w := range 4 {
		t.Run(fmt.Sprint("worker", w), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			rng := rand.New(rand.NewPCG(1, uint64(w)))
			for range n / 4 {
				b := mutate(rng, []byte(seeds[rng.IntN(len(seeds))]), alphabet)
				if !compareWithRedis(t, dir, b) {
					compareWithRedis(t, dir, append([]byte("file p seq 1 type h\n"), b...))
				}
			}
		})
	}
}

func mutate(rng *rand.Rand, b []byte, alphabet string) []byte {
	for range 1 + rng.IntN(4) {
		pos := rng.IntN(len(b) + 1)
		switch rng.IntN(3) {
		case 0: // insert
			b = append(b[:pos], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[pos:]...)...)
		case 1: // delete
			if pos < len(b) {
				b = append(b[:pos], b[pos+1:]...)
			}
		default: // replace
			if pos < len(b) {
				b[pos] = alphabet[rng.IntN(len(alphabet))]
			}
		}
	}
	return b
}
