// Package iostreams is a command's standard streams and whether each is
// a terminal, which decides what is drawn and who can be asked.
package iostreams

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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

// ErrEmptyPrompt is a prompt read from stdin that holds nothing but space.
var ErrEmptyPrompt = errors.New("the prompt on stdin is empty: pipe one in (echo \"…\" | yagent run -) or give it as an argument")

// ReadPrompt reads a whole prompt from stdin (`yagent run -`), trimmed; on
// a terminal it first says how to end it.
func (s *IOStreams) ReadPrompt() (string, error) {
	if s.InTTY {
		fmt.Fprintln(s.ErrOut, "reading the prompt from the terminal: end it with Ctrl-D on a line of its own")
	}
	data, err := io.ReadAll(s.In)
	if err != nil {
		return "", fmt.Errorf("read the prompt from stdin: %w", err)
	}
	if p := strings.TrimSpace(string(data)); p != "" {
		return p, nil
	}
	return "", ErrEmptyPrompt
}

// isTerminal asks the terminal driver (an ioctl on the descriptor), never
// the file mode: /dev/null is a character device but nobody types into it.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
