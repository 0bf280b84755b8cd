package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aofserver/aofserver/config"
)

// A config file's user lines are checked as they are read, with Redis
// 7.0.15's FATAL CONFIG FILE ERROR texts (its quirk included: the word
// named is the line's word at the rule's index); unknown commands wait for
// the start, which logs them.
func TestConfigUserLineErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{"user bob on foo\n", "Error in user declaration 'bob': Syntax error"},
		{"user bob on >x ~a %Z~b\n", "Error in user declaration '>x': Syntax error"},
		{"user bob on\nuser bob off\n", "Error in user declaration 'bob': Duplicate user found. A user can only be defined once in config files"},
		{"user bob on ~* ~a\n", "Error in user declaration 'on': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"},
		{"user bob on +nosuch\n", ""},
		{"user bob on (+get ~x) >p\n", ""},
	} {
		path := filepath.Join(dir, "redis.conf")
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := config.Load(path, nil, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.body, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want %q", tc.body, err, tc.want)
		}
	}
}

// An unknown command in a config file's user line ends the start-up with
// Redis's lines, logged after "Server initialized" (ACLStartup).
func TestConfigUserUnknownCommand(t *testing.T) {
	cfg, err := config.Load("", []string{"--user", "bob", "on", "+nosuch"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	s, err := New(cfg, NewLogger(logs, "notice", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ACLStartup(); err == nil || err.Error() != "Critical error while loading ACLs. Exiting." {
		t.Fatalf("ACLStartup: %v", err)
	}
	if want := "Error loading ACL rule '+nosuch' for the user named 'bob': Unknown command or category name in ACL"; !strings.Contains(logs.String(), want) {
		t.Fatalf("log %q lacks %q", logs.String(), want)
	}
}
