package aof

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/fsx"
)

// TestCheckFixIsDurable: redis-check-aof --fix (in place) and
// --truncate-to-timestamp cut the file through CheckOptions.FS and fsync
// it, so the repair it reports survives a power cut; a failure of the cut
// or of its fsync is Redis's "Failed to truncate" and exit 1.
func TestCheckFixIsDurable(t *testing.T) {
	valid := string(resp("SET a 1")) + "#TS:200\r\n" + string(resp("SET b 2"))
	torn := valid + "*2\r\n$3\r\nDEL\r\n$1"
	for _, tc := range []struct {
		name string
		opt  CheckOptions
		want string
	}{
		{"fix", CheckOptions{Fix: true}, valid},
		{"timestamp", CheckOptions{TruncateToTimestamp: 100}, string(resp("SET a 1"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newFS := func() *fsx.CrashFS {
				c := newCrashDir(t)
				putFile(t, c, "/data/a.aof", []byte(torn))
				return c
			}
			c := newFS()
			opt := tc.opt
			opt.Path, opt.FS = "/data/a.aof", c
			out, code, _ := checkFile(t, opt)
			if code != 0 || !strings.Contains(out, "Successfully truncated AOF") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if got, _ := c.Crash().ReadAll("/data/a.aof"); string(got) != tc.want {
				t.Fatalf("after a power cut the file holds %q, want %q", got, tc.want)
			}
			for _, op := range []fsx.Op{fsx.OpTruncate, fsx.OpSync} {
				c := newFS()
				c.SetInjector(func(o fsx.Op, path string) error {
					if o == op {
						return fmt.Errorf("injected %s failure", o)
					}
					return nil
				})
				opt.FS = c
				out, code, _ := checkFile(t, opt)
				if code != 1 || !strings.Contains(out, "Failed to truncate AOF") || strings.Contains(out, "Successfully truncated") {
					t.Fatalf("%s failing: exit %d:\n%s", op, code, out)
				}
			}
		})
	}
}
