// Package chat is interactive mode: a person talking to a session's
// director, in plain lines (Run) or on the terminal UI (RunTUI), with the
// slash commands both dispatch through one table (slash.go). The command
// line only decides which to start and how a session is opened
// (Options.Open).
package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/internal/lineedit"
	"github.com/yagent/yagent/memory"
)

// Intro is the help of interactive mode before its commands' lines.
const Intro = `Type a request and press Enter; Shift+Enter or Ctrl-J starts a new line, a
paste is one piece of the request however long. Esc interrupts the running
step; Ctrl-C clears the input, and on an empty input a second Ctrl-C (or
Ctrl-D) leaves. Up and Down recall this directory's earlier prompts, Tab
completes commands and @path mentions (the file is attached), Ctrl-G edits
the request in $EDITOR, Ctrl-O shows whole the last diff, output or reasoning
shown collapsed. Approvals: y, n, a (always) or t (no, and tell it what to do
instead); Esc or Ctrl-C is no.
Without a terminal (or with TERM=dumb) the session reads plain lines.`

// ErrBadPick is a picker's answer that names no listed session: the
// person's mistake.
var ErrBadPick = errors.New("pick a number")

// Session is an open session: its run and director, and what ends a
// turn's printing.
type Session struct {
	*director.Run
	// Finish, when set, ends a turn's printing (the plain printer's).
	Finish func()
}

// Request says which session Options.Open opens.
type Request struct {
	// Resume is the session to reopen ("" = a new one).
	Resume string
	// Model is the model its turns use ("" = models.default).
	Model string
	// Reopen: the chat opened a session before (/model, /resume), so what
	// it announced then (the sandbox) is not said again.
	Reopen bool
	// Sink and Ask, when set, take its events and approvals (the TUI's);
	// otherwise the standard printers and the terminal prompt.
	Sink agents.Sink
	Ask  agents.Asker
}

// Options are what interactive mode works with.
type Options struct {
	Config *config.Config
	// Model is --model ("" = models.default); /model changes it.
	Model string
	// Resume is the session to reopen ("" = a new one).
	Resume string
	// Open opens an interactive session.
	Open func(ctx context.Context, r Request) (*Session, error)
	// List lists sessions, this directory's (all: every directory's),
	// newest first.
	List func(ctx context.Context, all bool, limit int) ([]Row, error)
	// Sessions opens the session store; Board the notes root.
	Sessions func(ctx context.Context) (*memory.Store, error)
	Board    func() (*blackboard.Store, error)
	In       io.Reader
	Out      io.Writer
	ErrOut   io.Writer
	// Terminal: stdin and stdout are terminals (line editing).
	Terminal bool
	// OnInterrupt sets what SIGINT does and returns the previous handler.
	OnInterrupt func(func() bool) func() bool
	// Dir is the workspace; Env the process's environment (the TUI).
	Dir string
	Env []string
	Now func() time.Time
}

// Chat is an interactive session in the terminal.
type Chat struct {
	o     Options
	model string
	s     *Session
	in    *lineedit.Input

	// out, when set, takes what commands print (the TUI shows it);
	// sink and ask are the TUI's, for sessions /resume opens.
	out  io.Writer
	sink agents.Sink
	ask  agents.Asker

	// custom are the person's and the trusted workspace's commands
	// (LoadCustom), loaded once as the chat starts; customWarn what was
	// skipped, said at the greeting.
	custom     []CustomCommand
	customWarn []string

	mu         sync.Mutex
	turnCancel context.CancelFunc
	// turnDone is closed when the running turn has ended (closeSession
	// waits for it).
	turnDone   chan struct{}
	cancelling bool
	lastCtrlC  bool
}

// Run is interactive mode in plain lines.
func Run(ctx context.Context, o Options) (err error) {
	c := &Chat{o: o, model: o.Model, in: lineedit.New(o.In, o.Out, o.ErrOut, o.Terminal, filepath.Join(o.Config.Home, "history"))}
	c.custom, c.customWarn = LoadCustom(o.Config, o.Dir)
	if c.s, err = o.Open(ctx, Request{Resume: o.Resume, Model: c.model}); err != nil {
		return err
	}
	defer func() { c.s.Close() }()
	prev := o.OnInterrupt(c.interrupt)
	defer func() { o.OnInterrupt(prev) }()
	c.greet()
	for {
		line, err := c.in.ReadLine()
		switch {
		case errors.Is(err, lineedit.ErrInterrupted):
			if c.lastCtrlC {
				return nil
			}
			c.lastCtrlC = true
			fmt.Fprintln(o.ErrOut, "(Ctrl-C again or /quit to leave)")
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		c.lastCtrlC = false
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			quit, err := c.command(ctx, line)
			if err != nil {
				fmt.Fprintf(o.ErrOut, "error: %v\n", err)
			}
			if quit {
				return nil
			}
			continue
		}
		if err := c.turn(ctx, line); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, context.Canceled) {
				fmt.Fprintln(o.ErrOut, "⏹ cancelled")
				continue
			}
			fmt.Fprintf(o.ErrOut, "error: %v\n", err)
		}
	}
}

func (c *Chat) greet() {
	in := c.s.Session.Info()
	verb := "new session"
	if in.Turns > 0 {
		verb = fmt.Sprintf("resumed session (%s)", agents.Count(in.Turns, "turn", "turns"))
	}
	fmt.Fprintf(c.w(), "yagent — %s %s · board %s · /help for commands\n", verb, in.ID, in.BoardID)
	for _, w := range c.customWarn {
		fmt.Fprintln(c.w(), w)
	}
	c.customWarn = nil
}

// w is where commands print: the TUI's buffer, else stderr.
func (c *Chat) w() io.Writer {
	if c.out != nil {
		return c.out
	}
	return c.o.ErrOut
}

// turn runs one turn; Ctrl-C cancels it (see interrupt).
func (c *Chat) turn(ctx context.Context, prompt string) error {
	prompt, err := c.mcpAttach(ctx, prompt)
	if err != nil {
		return err
	}
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	c.mu.Lock()
	c.turnCancel, c.cancelling, c.turnDone = cancel, false, done
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.turnCancel, c.turnDone = nil, nil
		c.mu.Unlock()
		cancel()
		close(done)
	}()
	_, err = c.s.Director.Turn(tctx, prompt)
	if c.s.Finish != nil {
		c.s.Finish()
	}
	// A session open for long becomes due for its tool curation while it
	// is open: check after every turn (in memory), so it sleeps between
	// turns and the next one gets the curated list.
	c.s.Director.CheckSleep()
	return err
}

// closeSession closes the open session once no turn runs: a running one
// is cancelled and waited for, so nothing it still writes (its end, its
// checkpoint) lands after the session and its files are closed.
func (c *Chat) closeSession() {
	c.mu.Lock()
	cancel, done := c.turnCancel, c.turnDone
	c.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	c.s.Close()
}

// interrupt is the SIGINT handler while the chat runs: the first Ctrl-C
// cancels the running step, a second one (while it winds down, or with no
// step running) leaves.
func (c *Chat) interrupt() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.turnCancel != nil && !c.cancelling {
		c.cancelling = true
		c.turnCancel()
		fmt.Fprintln(c.o.ErrOut, "\n⏹ cancelling the step… (Ctrl-C again to exit)")
		return true
	}
	return false
}

// command runs a slash command (slashCommands); it reports whether to
// quit.
func (c *Chat) command(ctx context.Context, line string) (bool, error) {
	fields := strings.Fields(line)
	if cmd, ok := findSlash(fields[0]); ok {
		return cmd.run(c, ctx, fields[1:])
	}
	if prompt, note, ok := c.expand(line); ok {
		if note != "" {
			fmt.Fprintln(c.w(), note)
		}
		return false, c.turn(ctx, prompt)
	}
	if ok, err := c.mcpPrompt(ctx, fields); ok {
		return false, err
	}
	return false, fmt.Errorf("unknown command %s; the commands are: %s", fields[0], strings.Join(append(Commands(), CustomNames(c.custom)...), " "))
}

// pick returns the session to resume: the argument, or the person's choice
// from a numbered list (this directory's sessions first).
func (c *Chat) pick(ctx context.Context, args []string) (string, error) {
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			return a, nil
		}
	}
	rows, err := c.o.List(ctx, slices.Contains(args, "--all"), 20)
	if err != nil {
		return "", err
	}
	return PickFrom(c.o.ErrOut, rows, c.in)
}

// PickFrom asks on w which of rows to resume, reading the answer from in:
// a number, an id or a name ("" when the person picked none).
func PickFrom(w io.Writer, rows []Row, in *lineedit.Input) (string, error) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no sessions to resume here (--all shows every directory)")
		return "", nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	PrintSessions(tw, rows, true)
	if err := tw.Flush(); err != nil {
		return "", err
	}
	fmt.Fprint(w, "resume which? (number, id or name; empty to cancel) ")
	line, err := in.ReadLine()
	if errors.Is(err, io.EOF) || errors.Is(err, lineedit.ErrInterrupted) {
		return "", nil // the person left the picker
	}
	if err != nil {
		return "", err
	}
	line = strings.TrimSpace(line)
	if n, err := strconv.Atoi(line); err == nil {
		if n < 1 || n > len(rows) {
			return "", fmt.Errorf("%w from 1 to %d", ErrBadPick, len(rows))
		}
		return rows[n-1].ID, nil
	}
	return line, nil
}
