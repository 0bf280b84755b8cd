package server

import (
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

// alExchange writes input in one go on a fresh connection and reads until
// the server closes it (every case ends with QUIT or a protocol error).
// The deadline only bounds a failure.
func alExchange(t *testing.T, addr string, input []byte) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	go c.Write(input) // the server may close before reading it all
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%.60q: %v after %q", input, err, out)
	}
	return string(out)
}

func alCmd(args ...string) string { return string(appendMultibulk(nil, args...)) }

// Redis 7.0.15 limits a client that must still authenticate to 10
// arguments of 16384 bytes, checking each command as it comes to it: a
// command pipelined after AUTH, HELLO AUTH or RESET is judged by the state
// they leave. Same bytes and same close as the real server, with the
// network loop and with a goroutine per connection.
func TestUnauthLimitsSameAsRedis(t *testing.T) {
	big := strings.Repeat("x", 20000)
	args11 := []string{"MSET"}
	for i := 0; i < 5; i++ {
		args11 = append(args11, "k", "v")
	}
	quit := alCmd("QUIT")
	// A case the server ends with a protocol error stops at the header it
	// refuses: bytes left unread would make the close a reset.
	bigHeader := "*2\r\n$4\r\nECHO\r\n$20000\r\n"
	tenArgs := "*10\r\n$4\r\nPING\r\n" + strings.Repeat("$1\r\nx\r\n", 9)
	cases := []struct{ name, in string }{
		{"mbulk 11", "*11\r\n"},
		{"mbulk 10", tenArgs + quit},
		{"mbulk 11 after a command", alCmd("PING") + "*11\r\n"},
		{"bulk 16385", "*2\r\n$4\r\nECHO\r\n$16385\r\n"},
		{"bulk 16384", "*2\r\n$4\r\nECHO\r\n$16384\r\n" + strings.Repeat("y", 16384) + "\r\n" + quit},
		{"mbulk 11 after AUTH", alCmd("AUTH", "s3cret") + alCmd(args11...) + alCmd("GET", "k") + quit},
		{"inline AUTH then mbulk 11", "AUTH s3cret\r\n" + alCmd(args11...) + quit},
		{"bulk after AUTH", alCmd("AUTH", "s3cret") + alCmd("ECHO", big) + quit},
		{"bulk after wrong AUTH", alCmd("AUTH", "nope") + bigHeader},
		{"mbulk 11 after wrong AUTH", alCmd("AUTH", "nope") + "*11\r\n"},
		{"bulk after HELLO AUTH", alCmd("HELLO", "2", "AUTH", "default", "s3cret") + alCmd("ECHO", big) + quit},
		{"bulk after wrong HELLO AUTH", alCmd("HELLO", "3", "AUTH", "default", "nope") + bigHeader},
		{"mbulk 11 after RESET", alCmd("AUTH", "s3cret") + alCmd("RESET") + "*11\r\n"},
		{"AUTH twice then bulk", alCmd("AUTH", "s3cret") + alCmd("AUTH", "nope") + alCmd("ECHO", big) + quit},
		{"HELLO without AUTH", alCmd("HELLO") + alCmd("HELLO", "3") + alCmd("HELLO", "3", "SETNAME", "x") + quit},
	}
	// HELLO's map carries the client id, which differs between servers.
	id := regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)
	run := func(t *testing.T, ours ...string) {
		srv := biServers{ours: biStartOurs(t, append([]string{"--requirepass", "s3cret"}, ours...)...),
			redis: biStartRedis(t, "--requirepass", "s3cret")}
		for _, c := range cases {
			want := id.ReplaceAllString(alExchange(t, srv.redis, []byte(c.in)), "id:N")
			got := id.ReplaceAllString(alExchange(t, srv.ours, []byte(c.in)), "id:N")
			if got != want {
				t.Errorf("%s:\nours  %.300q\nredis %.300q", c.name, got, want)
			}
		}
	}
	t.Run("netloop", func(t *testing.T) { run(t) })
	t.Run("goroutines", func(t *testing.T) { run(t, "--netloop", "no") })
}
