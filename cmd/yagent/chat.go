package main

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

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/lineedit"
	"github.com/yagent/yagent/memory"
)

// chatIntro is the help of interactive mode before its commands' lines.
const chatIntro = `Type a request and press Enter; Shift+Enter or Ctrl-J starts a new line, a
paste is one piece of the request however long. Esc interrupts the running
step; Ctrl-C clears the input, and on an empty input a second Ctrl-C (or
Ctrl-D) leaves. Up and Down recall this directory's earlier prompts, Tab
completes commands and @path mentions (the file is attached), Ctrl-G edits
the request in $EDITOR. Approvals: y, n or a (always); Esc or Ctrl-C is no.
Without a terminal (or with TERM=dumb) the session reads plain lines.`

// chatOptions are the inputs of `yagent chat` (and of bare `yagent`).
type chatOptions struct {
	Agent  agentFlags
	Resume string // the session to reopen ("" = a new one)
	// Continue reopens this directory's newest session (-c).
	Continue bool
}

// register registers the flags of chat and of bare yagent.
func (o *chatOptions) register(fl *pflag.FlagSet) {
	o.Agent.register(fl)
	fl.BoolVarP(&o.Continue, "continue", "c", false, "reopen this directory's newest session")
}

// NewCmdChat builds `yagent chat` (also what bare `yagent` runs).
func NewCmdChat(f *Factory) *cobra.Command {
	opts := &chatOptions{}
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Start an interactive session (the default command)",
		Long:  "Start an interactive session with the director.\n\n" + chatHelp(),
		Example: `  # A new interactive session in this directory
  yagent chat

  # Ask before every command and file write, in another workspace
  yagent chat --approval untrusted --cd ~/src/app

  # Offline, against the bundled scripted model
  yagent chat --replay demo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return chatRun(cmd.Context(), f, opts) },
	}
	opts.register(cmd.Flags())
	return cmd
}

// chat is an interactive session in the terminal.
type chat struct {
	f    *Factory
	opts *chatOptions
	s    *session
	in   *lineedit.Input

	// out, when set, takes what commands print (the TUI shows it);
	// sink and ask are the TUI's, for sessions /resume opens.
	out  io.Writer
	sink agents.Sink
	ask  agents.Asker

	mu         sync.Mutex
	turnCancel context.CancelFunc
	cancelling bool
	lastCtrlC  bool
}

func chatRun(ctx context.Context, f *Factory, opts *chatOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if opts.Continue && opts.Resume == "" {
		if opts.Resume, err = newestHere(ctx, f, opts); err != nil {
			return err
		}
	}
	if useTUI(f) {
		return tuiRun(ctx, f, opts)
	}
	c := &chat{f: f, opts: opts, in: lineedit.New(f.IO.In, f.IO.Out, f.IO.ErrOut, f.IO.InTTY && f.IO.OutTTY, filepath.Join(cfg.Home, "history"))}
	if c.s, err = openSession(ctx, f, &opts.Agent, sessionRequest{Kind: memory.KindInteractive, Resume: opts.Resume}); err != nil {
		return err
	}
	defer func() { c.s.close() }()
	prev := f.OnInterrupt(c.interrupt)
	defer func() { f.OnInterrupt(prev) }()
	c.greet()
	for {
		line, err := c.in.ReadLine()
		switch {
		case errors.Is(err, lineedit.ErrInterrupted):
			if c.lastCtrlC {
				return nil
			}
			c.lastCtrlC = true
			fmt.Fprintln(f.IO.ErrOut, "(Ctrl-C again or /quit to leave)")
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
				fmt.Fprintf(f.IO.ErrOut, "error: %v\n", err)
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
				fmt.Fprintln(f.IO.ErrOut, "⏹ cancelled")
				continue
			}
			fmt.Fprintf(f.IO.ErrOut, "error: %v\n", err)
		}
	}
}

func (c *chat) greet() {
	in := c.s.sess.Info()
	verb := "new session"
	if in.Turns > 0 {
		verb = fmt.Sprintf("resumed session (%d turns)", in.Turns)
	}
	fmt.Fprintf(c.w(), "yagent — %s %s · board %s · /help for commands\n", verb, in.ID, in.BoardID)
}

// turn runs one turn; Ctrl-C cancels it (see interrupt).
func (c *chat) turn(ctx context.Context, prompt string) error {
	tctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.turnCancel, c.cancelling = cancel, false
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.turnCancel = nil
		c.mu.Unlock()
		cancel()
	}()
	_, err := c.s.turn(tctx, prompt)
	// A session open for long becomes due for its tool curation while it
	// is open: check after every turn (in memory), so it sleeps between
	// turns and the next one gets the curated list.
	c.s.d.CheckSleep()
	return err
}

// interrupt is the SIGINT handler while the chat runs: the first Ctrl-C
// cancels the running step, a second one (while it winds down, or with no
// step running) leaves.
func (c *chat) interrupt() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.turnCancel != nil && !c.cancelling {
		c.cancelling = true
		c.turnCancel()
		fmt.Fprintln(c.f.IO.ErrOut, "\n⏹ cancelling the step… (Ctrl-C again to exit)")
		return true
	}
	return false
}

// command runs a slash command (slashCommands); it reports whether to
// quit.
func (c *chat) command(ctx context.Context, line string) (bool, error) {
	fields := strings.Fields(line)
	if cmd, ok := findSlash(fields[0]); ok {
		return cmd.run(c, ctx, fields[1:])
	}
	return false, fmt.Errorf("unknown command %s; the commands are: %s", fields[0], strings.Join(chatCommands(), " "))
}

// pick returns the session to resume: the argument, or the person's choice
// from a numbered list (this directory's sessions first).
func (c *chat) pick(ctx context.Context, args []string) (string, error) {
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			return a, nil
		}
	}
	rows, err := listSessions(ctx, c.f, slices.Contains(args, "--all"), 20)
	if err != nil {
		return "", err
	}
	return pickFrom(c.f, rows, c.in)
}

func pickFrom(f *Factory, rows []sessionRow, in *lineedit.Input) (string, error) {
	w := f.IO.ErrOut
	if len(rows) == 0 {
		fmt.Fprintln(w, "no sessions to resume here (--all shows every directory)")
		return "", nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	printSessions(tw, rows, true)
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
			return "", usagef("pick a number from 1 to %d", len(rows))
		}
		return rows[n-1].ID, nil
	}
	return line, nil
}
