package acl

import (
	"testing"

	"github.com/aofserver/aofserver/cmdmeta"
)

func testRules() *Rules {
	return NewRules(NewCommands(cmdmeta.Redis), func() bool { return false }, func(string) {})
}

func newUser(t *testing.T, r *Rules, rules ...string) *User {
	t.Helper()
	u := r.NewUser("u")
	for _, op := range rules {
		if err := r.Set(u, op); err != nil {
			t.Fatalf("%q: %v", op, err)
		}
	}
	return u
}

// Redis 7.0.15's ACL LIST line of the default user.
func TestDescribeDefault(t *testing.T) {
	r := testRules()
	u := newUser(t, r, "+@all", "~*", "&*", "on", "nopass")
	if got, want := r.Describe(u), "on nopass ~* &* +@all"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !u.Open() {
		t.Error("the default user's rules should skip the check")
	}
}

// The description is canonical: a user made from it describes the same.
func TestDescribeRoundTrip(t *testing.T) {
	r := testRules()
	for _, rules := range [][]string{
		{"on", ">pw", "~a*", "%R~b*", "resetchannels", "&c", "+@read", "-get", "+config|get"},
		{"off", "-@all", "+select|0", "%W~w", "(+set ~k*)"},
		{"on", "nopass", "+@all", "-@dangerous", "+@string", "&*"},
	} {
		u := newUser(t, r, rules...)
		desc := r.Describe(u)
		ops, bad := MergeSelectorArgs(splitSpaces(desc))
		if bad >= 0 {
			t.Fatalf("%q: unmatched selector", desc)
		}
		if again := r.Describe(newUser(t, r, ops...)); again != desc {
			t.Errorf("%v:\n described %q\n then      %q", rules, desc, again)
		}
	}
}

func splitSpaces(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func TestCheck(t *testing.T) {
	r := testRules()
	u := newUser(t, r, "on", "nopass", "+get", "%R~r*", "(+set ~w*)")
	get, set := r.Commands().Lookup("GET"), r.Commands().Lookup("set")
	args := func(a ...string) [][]byte {
		out := make([][]byte, len(a))
		for i, s := range a {
			out[i] = []byte(s)
		}
		return out
	}
	for _, tc := range []struct {
		cmd  *Command
		argv [][]byte
		res  int
		pos  int
	}{
		{get, args("get", "r1"), OK, 0},
		{get, args("get", "x"), DeniedKey, 1},
		{set, args("set", "w1", "v"), OK, 0},
		{set, args("set", "r1", "v"), DeniedKey, 1}, // the root selector may not run SET at all
		{r.Commands().Lookup("del"), args("del", "w1"), DeniedCmd, 0},
	} {
		res, pos := r.Check(u, tc.cmd, tc.argv)
		if res != tc.res || pos != tc.pos {
			t.Errorf("%q: got %d at %d, want %d at %d", tc.argv, res, pos, tc.res, tc.pos)
		}
	}
	if err := r.Set(r.NewUser("x"), "+nosuch"); err != ErrUnknown {
		t.Errorf("+nosuch: %v", err)
	}
}
