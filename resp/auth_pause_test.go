package resp

import (
	"reflect"
	"strings"
	"testing"
)

func cmdStr(args ...string) string { return string(encodeMultibulk(args...)) }

// The reader pauses, not fails, at a header over an unauthenticated limit
// once a command that may change the authentication was parsed in the
// batch; parsing again after the batch ran judges it by the new state.
func TestReaderUnauthPause(t *testing.T) {
	authed := false
	r := NewReader()
	r.AuthState = func() (bool, bool) { return true, authed }
	in := []byte(cmdStr("PING") + cmdStr("auth", "pw") + "*11\r\n")
	got, err := feedReader(r, in, whole)
	if err != nil || !r.MorePaused() || !reflect.DeepEqual(got, [][]string{{"PING"}, {"auth", "pw"}}) {
		t.Fatalf("got %q err %v paused %v", got, err, r.MorePaused())
	}
	r.Reset()
	// Still not authenticated (AUTH failed): now it is an error.
	if err := r.Parse(); protoMsg(err) != "unauthenticated multibulk length" || r.MorePaused() {
		t.Fatalf("err %v paused %v", err, r.MorePaused())
	}

	// A bulk header, mid-command: the pause keeps the command's start.
	authed = false
	r = NewReader()
	r.AuthState = func() (bool, bool) { return true, authed }
	in = []byte(cmdStr("HELLO", "3", "AUTH", "default", "pw") + "*2\r\n$4\r\nECHO\r\n$16385\r\n")
	buf, _ := r.Space()
	r.end += copy(buf, in)
	if err := r.Parse(); err != nil || !r.MorePaused() || r.NCmds() != 1 {
		t.Fatalf("HELLO: err %v paused %v cmds %d", err, r.MorePaused(), r.NCmds())
	}
	authed = true // HELLO AUTH succeeded
	r.Reset()
	if err := r.Parse(); err != nil || r.MorePaused() || r.NCmds() != 0 {
		t.Fatalf("after HELLO: err %v paused %v cmds %d", err, r.MorePaused(), r.NCmds())
	}
	value := strings.Repeat("z", 16385)
	got, err = feedReader(r, []byte(value+"\r\n"), whole)
	if err != nil || !reflect.DeepEqual(got, [][]string{{"ECHO", value}}) {
		t.Fatalf("after HELLO: got %d commands, err %v", len(got), err)
	}

	// No password: nothing is limited and nothing pauses.
	r = NewReader()
	r.AuthState = func() (bool, bool) { return false, false }
	got, err = feedReader(r, []byte(cmdStr("AUTH", "x")+cmdStr(args12()...)), whole)
	if err != nil || r.MorePaused() || len(got) != 2 {
		t.Fatalf("no password: got %d err %v paused %v", len(got), err, r.MorePaused())
	}
}

func args12() []string {
	a := []string{"MSET"}
	for i := 0; i < 11; i++ {
		a = append(a, "k")
	}
	return a
}
