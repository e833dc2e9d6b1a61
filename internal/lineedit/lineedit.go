// Package lineedit reads the person's lines in the plain interactive
// mode: with line editing and a prompt history kept in a file on a
// terminal (raw mode only while a line is read, so Ctrl-C during a turn
// stays a signal), plain lines otherwise.
package lineedit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/term"
)

// ErrInterrupted is returned by ReadLine when the person pressed Ctrl-C at
// the prompt.
var ErrInterrupted = errors.New("interrupted")

// Input reads the person's lines: with line editing and history on a
// terminal (raw mode only while a line is read, so Ctrl-C during a turn is
// a signal), plain lines otherwise.
type Input struct {
	tty     *term.Terminal
	fd      int
	scanner *bufio.Scanner
	ctrlC   bool
	history *fileHistory
}

// New reads lines from stdin; tty says stdin and stdout are both
// terminals (line editing, and the history kept in historyPath). What the
// history cannot save is reported once on errOut.
func New(stdin io.Reader, stdout, errOut io.Writer, tty bool, historyPath string) *Input {
	in := &Input{}
	if f, ok := stdin.(*os.File); ok && tty {
		in.fd = int(f.Fd())
		in.history = loadHistory(historyPath, errOut)
		in.tty = term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{f, stdout}, "› ")
		in.tty.History = in.history
		in.tty.AutoCompleteCallback = func(line string, pos int, key rune) (string, int, bool) {
			if key == 3 { // Ctrl-C
				in.ctrlC = true
			}
			return "", 0, false
		}
		return in
	}
	in.scanner = bufio.NewScanner(stdin)
	in.scanner.Buffer(make([]byte, 64<<10), 1<<20)
	return in
}

// ReadLine returns the next line; io.EOF at the end (Ctrl-D),
// ErrInterrupted for Ctrl-C at the prompt.
func (in *Input) ReadLine() (string, error) {
	if in.tty == nil {
		if !in.scanner.Scan() {
			if err := in.scanner.Err(); err != nil {
				return "", err
			}
			return "", io.EOF
		}
		return in.scanner.Text(), nil
	}
	old, err := term.MakeRaw(in.fd)
	if err != nil {
		return "", err
	}
	in.ctrlC = false
	line, err := in.tty.ReadLine()
	if rerr := term.Restore(in.fd, old); rerr != nil {
		return "", fmt.Errorf("restore the terminal: %w", rerr)
	}
	if in.ctrlC {
		return "", ErrInterrupted
	}
	return line, err
}

// fileHistory is the prompt history, kept in $YAGENT_HOME/history. The
// first line it cannot save is reported on errOut (once): the chat goes
// on, the history stays in memory.
type fileHistory struct {
	mu     sync.Mutex
	path   string
	lines  []string
	errOut io.Writer
	failed bool
}

const historyMax = 1000

func loadHistory(path string, errOut io.Writer) *fileHistory {
	h := &fileHistory{path: path, errOut: errOut}
	if data, err := os.ReadFile(path); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" {
				h.lines = append(h.lines, l)
			}
		}
		if len(h.lines) > historyMax {
			h.lines = h.lines[len(h.lines)-historyMax:]
		}
	}
	return h
}

// Add implements term.History and appends the line to the file.
func (h *fileHistory) Add(entry string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if entry == "" || len(h.lines) > 0 && h.lines[len(h.lines)-1] == entry {
		return
	}
	h.lines = append(h.lines, entry)
	if h.path == "" || strings.Contains(entry, "\n") {
		return
	}
	if err := h.save(entry); err != nil && !h.failed {
		h.failed = true
		fmt.Fprintf(h.errOut, "yagent: warning: the prompt history is not saved: %v\n", err)
	}
}

func (h *fileHistory) save(entry string) error {
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(entry + "\n")
	return errors.Join(err, f.Close())
}

// Len implements term.History.
func (h *fileHistory) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lines)
}

// At implements term.History: 0 is the newest entry.
func (h *fileHistory) At(idx int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lines[len(h.lines)-1-idx]
}
