package config

// Sensitive reports whether name (or an alias) is a directive whose value is
// a secret (Redis SENSITIVE_CONFIG: requirepass, masterauth, ...): CONFIG SET
// shows it as "(redacted)" in SLOWLOG.
func Sensitive(name string) bool {
	d, _ := lookup(name)
	return d != nil && d.flags&fSensitive != 0
}
