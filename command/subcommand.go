package command

import (
	"strings"

	"github.com/aofserver/aofserver/rstring"
)

// SubcommandSyntaxError is Redis's addReplySubcommandSyntaxError text for
// argv, a container command with a subcommand it does not take.
func SubcommandSyntaxError(argv [][]byte) string {
	return "ERR unknown subcommand or wrong number of arguments for '" + string(rstring.CString(argv[1])) + "'. Try " + strings.ToUpper(string(argv[0])) + " HELP."
}
