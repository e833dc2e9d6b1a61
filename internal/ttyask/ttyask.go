// Package ttyask asks the person at the terminal: the approval question
// of a command, a write or an MCP tool (one key in raw mode, type-ahead
// discarded, the terminal restored) and a yes/no question (workspace
// trust). Preview is what the TUI's modal shows under the same question.
package ttyask

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/linediff"
	"github.com/yagent/yagent/internal/termsafe"
)

// Asker asks the person on the terminal (questions on out, the answer
// from in). On a terminal the answer is one key read in raw mode: y, n or a
// (always, when offered); Ctrl-C, Esc, Enter and anything else mean no at
// once, without a signal cancelling the step. Keys typed before the
// question appeared are discarded (type-ahead never answers a question),
// and only the answer's own keypress is read, so the line typed next
// reaches the prompt whole. The terminal is restored before Ask returns.
type Asker struct {
	mu  sync.Mutex
	in  io.Reader
	out io.Writer
}

var (
	_ agents.Instructed = (*Asker)(nil)
	_ agents.LineAsker  = (*Asker)(nil)
)

// New returns an asker reading answers from in and writing questions to
// out (stdin and stderr).
func New(in io.Reader, out io.Writer) *Asker { return &Asker{in: in, out: out} }

// Ask implements agents.Asker; one question at a time (parallel tool
// calls and sub-agents wait their turn).
func (a *Asker) Ask(ctx context.Context, q agents.Question) (agents.Answer, error) {
	ans, _, err := a.ask(ctx, q, false)
	return ans, err
}

// AskInstead is Ask with a fourth answer, t: no, and a line the person
// types saying what the model should do instead (agents.Instructed: the
// tools' approvals; a budget's question has nobody to tell).
func (a *Asker) AskInstead(ctx context.Context, q agents.Question) (agents.Answer, string, error) {
	return a.ask(ctx, q, true)
}

func (a *Asker) ask(ctx context.Context, q agents.Question, tell bool) (agents.Answer, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Every line of the action (a command exactly as it will run), none
	// cut, none able to move the cursor; the others under a gutter.
	for i, l := range termsafe.Lines(q.Action) {
		if i == 0 {
			fmt.Fprintf(a.out, "? %s\n", l)
		} else {
			fmt.Fprintf(a.out, "  │ %s\n", l)
		}
	}
	if q.Why != "" {
		fmt.Fprintf(a.out, "  protected path: %s\n", termsafe.Line(q.Why))
	}
	if q.Path != "" {
		for l := range strings.Lines(linediff.Unified(q.Path, q.Old, q.New, q.Created)) {
			fmt.Fprintf(a.out, "  %s", l)
		}
	}
	if q.Args != "" { // an MCP tool's arguments, whole
		for _, l := range termsafe.Lines(q.Args) {
			fmt.Fprintf(a.out, "  %s\n", l)
		}
	}
	prefix := termsafe.Line(q.Prefix)
	choices := "[y]es / [n]o"
	if q.Prefix != "" {
		choices += fmt.Sprintf(" / [a]lways `%s …` this session", prefix)
	}
	if tell {
		choices += " / [t]ell it what to do instead"
	}
	key, err := a.readKey(ctx, "  allow? "+choices+": ")
	if err != nil {
		fmt.Fprintln(a.out)
		return agents.Deny, "", err
	}
	switch {
	case key == 'y' || key == 'Y':
		fmt.Fprintln(a.out, "yes")
		return agents.Allow, "", nil
	case (key == 'a' || key == 'A') && q.Prefix != "":
		fmt.Fprintf(a.out, "always `%s …`\n", prefix)
		return agents.AllowPrefix, "", nil
	case tell && (key == 't' || key == 'T'):
		fmt.Fprintln(a.out, "no")
		fmt.Fprint(a.out, "  tell it what to do instead: ")
		line, err := readLine(a.in)
		return agents.Deny, strings.TrimSpace(line), err
	case key == 3:
		fmt.Fprintln(a.out, "no (Ctrl-C)")
	default:
		fmt.Fprintln(a.out, "no")
	}
	return agents.Deny, "", nil
}

// readKey prints prompt and returns the key the person presses (0 for an
// empty line or the end of input when in is not a terminal).
func (a *Asker) readKey(ctx context.Context, prompt string) (rune, error) {
	f, ok := a.in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(a.out, prompt)
		return readLineKey(a.in)
	}
	fd := int(f.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return 0, fmt.Errorf("approval question: %w", err)
	}
	defer term.Restore(fd, old)
	// Raw before the prompt shows, so a key pressed on seeing it is read
	// here, never turned into SIGINT or left to the line discipline.
	if err := discardPending(fd); err != nil {
		return 0, fmt.Errorf("approval question: %w", err)
	}
	fmt.Fprint(a.out, prompt)
	key, err := waitKey(ctx, fd)
	if rerr := term.Restore(fd, old); rerr != nil && err == nil {
		err = fmt.Errorf("restore the terminal: %w", rerr)
	}
	return key, err
}

// pollEvery is how often a wait for a key looks at the context.
const pollEvery = 100

// waitKey waits for one keypress on a raw terminal and returns its first
// rune. One read takes the whole keypress (an escape sequence or a
// multi-byte character arrives at once) and nothing after it.
func waitKey(ctx context.Context, fd int) (rune, error) {
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, pollEvery)
		if errors.Is(err, unix.EINTR) || err == nil && n == 0 {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("approval question: %w", err)
		}
		var buf [32]byte
		m, err := unix.Read(fd, buf[:])
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("approval question: %w", err)
		}
		if m == 0 {
			return 4, nil // end of input: Ctrl-D
		}
		r, _ := utf8.DecodeRune(buf[:m])
		return r, nil
	}
}

// discardPending drops what was typed before the question (type-ahead).
func discardPending(fd int) error {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return err
		}
		var buf [256]byte
		if m, err := unix.Read(fd, buf[:]); err != nil || m == 0 {
			return err
		}
	}
}

// readLineKey reads one line byte by byte (never more, so nothing after it
// is taken from in) and returns its first non-space rune.
func readLineKey(in io.Reader) (rune, error) {
	line, err := readLine(in)
	if err != nil {
		return 0, err
	}
	s := strings.TrimLeftFunc(line, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return 0, nil
	}
	return r, nil
}

// readLine reads one line byte by byte (never more: what follows stays in
// in), without its newline; the terminal's line discipline edits it.
func readLine(in io.Reader) (string, error) {
	var line []byte
	var b [1]byte
	for {
		n, err := in.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return strings.TrimSuffix(string(line), "\r"), nil
}

// AskLine implements agents.LineAsker: prompt on out, a line read from
// in a byte at a time (nothing past the newline is consumed, so the next
// prompt gets its line whole), control characters dropped.
func (a *Asker) AskLine(ctx context.Context, prompt string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Fprintf(a.out, "  %s: ", termsafe.Line(prompt))
	var line []byte
	b := make([]byte, 1)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := a.in.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			if b[0] >= 0x20 && b[0] != 0x7f || b[0] >= 0x80 {
				line = append(line, b[0])
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				fmt.Fprintln(a.out)
				break
			}
			return "", err
		}
	}
	return strings.TrimSpace(string(line)), nil
}

// Confirm asks a yes/no question; only y answers yes.
func (a *Asker) Confirm(ctx context.Context, question string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	key, err := a.readKey(ctx, question+" [y]es / [n]o: ")
	if err != nil {
		fmt.Fprintln(a.out)
		return false, err
	}
	if key == 'y' || key == 'Y' {
		fmt.Fprintln(a.out, "yes")
		return true, nil
	}
	fmt.Fprintln(a.out, "no")
	return false, nil
}

// Preview is what the TUI's approval modal shows under a question: a
// write's unified diff, an MCP tool's arguments (the same as the prompt
// shows).
func Preview(q agents.Question) string {
	switch {
	case q.Path != "":
		return linediff.Unified(q.Path, q.Old, q.New, q.Created)
	case q.Args != "":
		return q.Args
	}
	return ""
}
