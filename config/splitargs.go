package config

import (
	"strings"
)

// isSpace matches C isspace in the "C" locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// trimLine trims like sdstrim(line, " \t\r\n").
func trimLine(s string) string {
	return strings.Trim(s, " \t\r\n")
}
