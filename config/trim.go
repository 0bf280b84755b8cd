package config

import (
	"strings"
)

// trimLine trims like sdstrim(line, " \t\r\n").
func trimLine(s string) string {
	return strings.Trim(s, " \t\r\n")
}
