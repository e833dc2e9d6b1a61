// Package iostreams is a command's standard streams and whether each is
// a terminal, which decides what is drawn and who can be asked.
package iostreams

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the standard streams and whether each is a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: isTerminal(os.Stdin), OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr),
	}
}

// CanAsk reports whether a person can answer a question now: the question
// goes to stderr and the answer comes from stdin, so both must be terminals.
// It is the one test of "somebody is there" for approvals in every command
// (run, resume, chat, batch and the sub-agents they start).
func (s *IOStreams) CanAsk() bool { return s.InTTY && s.ErrTTY }

// isTerminal asks the terminal driver (an ioctl on the descriptor), never
// the file mode: /dev/null is a character device but nobody types into it.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
