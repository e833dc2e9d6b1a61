package sandbox

import (
	"fmt"
	"io"
	"os"
)

// Exit codes of a helper that could not run the command (as a shell's).
const (
	exitCannotConfine = 126
	exitNotFound      = 127
)

// MaybeRunHelper turns this process into a sandbox helper when its first
// argument is HelperArg: it confines itself and execs the command, or exits
// with a message on stderr. Otherwise it returns at once. Call it first in
// main, and in the TestMain of any test binary that runs confined commands
// (the binary re-executes itself as the helper).
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	os.Exit(runHelper(os.Args[2:], os.Stderr))
}

// runHelper returns only when the command could not be started.
func runHelper(args []string, stderr io.Writer) int {
	r, argv, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "yagent sandbox: bad helper arguments: %v\n", err)
		return exitCannotConfine
	}
	code, err := confineAndExec(r, argv)
	fmt.Fprintf(stderr, "yagent sandbox: %v\n", err)
	return code
}
