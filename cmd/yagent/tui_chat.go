package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"crypto/sha256"
	"encoding/hex"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/internal/termsafe"
	"github.com/yagent/yagent/internal/ttyask"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/tui"
)

// transcriptTurns is how many turns a resumed session shows (/history: all).
const transcriptTurns = 5

// w is where commands print: the TUI's buffer, else stderr.
func (c *chat) w() io.Writer {
	if c.out != nil {
		return c.out
	}
	return c.f.IO.ErrOut
}

// useTUI reports whether interactive mode draws the Bubble Tea program:
// stdin and stdout are terminals and TERM is not dumb (plain lines then).
func useTUI(f *Factory) bool {
	_, in := f.IO.In.(*os.File)
	_, out := f.IO.Out.(*os.File)
	return in && out && f.IO.InTTY && f.IO.OutTTY && f.Getenv("TERM") != "dumb"
}

// newestHere is this directory's newest session with a turn (-c).
func newestHere(ctx context.Context, f *Factory, opts *chatOptions) (string, error) {
	st, err := f.Sessions(ctx)
	if err != nil {
		return "", err
	}
	cwd, err := workspaceDir(f, &opts.Agent)
	if err != nil {
		return "", err
	}
	in, err := st.Last(ctx, cwd)
	if err != nil {
		return "", err
	}
	return in.ID, nil
}

// tuiRun is interactive mode on a terminal: the Bubble Tea program.
func tuiRun(ctx context.Context, f *Factory, opts *chatOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	dir, err := workspaceDir(f, &opts.Agent)
	if err != nil {
		return err
	}
	b := &tuiBackend{}
	prog := tui.New(tui.Options{
		Backend: b, In: f.IO.In, Out: f.IO.Out, Env: os.Environ(), Context: ctx,
		Workspace: dir, HistoryPath: promptHistoryPath(cfg.Home, dir), Commands: chatCommands(), Now: f.Now,
		Intro: func() string { return b.c.intro(ctx) },
	})
	c, err := newTUIChat(ctx, f, opts, prog.Sink(), prog.Asker())
	if err != nil {
		return err
	}
	b.c = c
	prev := f.OnInterrupt(prog.Interrupt)
	defer func() { f.OnInterrupt(prev) }()
	runErr := prog.Run()
	return errors.Join(runErr, c.leave(ctx))
}

// newTUIChat opens the session of a TUI chat (events and approvals go to
// the program).
func newTUIChat(ctx context.Context, f *Factory, opts *chatOptions, sink *tui.Sink, ask *tui.Asker) (*chat, error) {
	ask.Preview = ttyask.Preview
	c := &chat{f: f, opts: opts, sink: sink, ask: ask}
	s, err := openSession(ctx, f, &opts.Agent, sessionRequest{Kind: memory.KindInteractive, Resume: opts.Resume, Sink: sink, Ask: ask})
	if err != nil {
		return nil, err
	}
	c.s = s
	return c, nil
}

// leave closes the session: one without a turn is not kept; otherwise
// the command that resumes it is printed.
func (c *chat) leave(ctx context.Context) error {
	id := c.s.sess.ID()
	c.s.close()
	st, err := c.f.Sessions(ctx)
	if err != nil {
		return err
	}
	in, err := st.Get(ctx, id)
	if err != nil {
		return err
	}
	if in.Turns == 0 {
		if _, err := st.Delete(ctx, in.ID); err != nil {
			return fmt.Errorf("drop the empty session %s: %w", in.ID, err)
		}
		return nil
	}
	ref := in.ID
	if in.Name != "" {
		ref = in.Name
	}
	fmt.Fprintf(c.f.IO.ErrOut, "resume this session with: yagent resume %s\n", ref)
	return nil
}

// promptHistoryPath is the prompt history of a directory.
func promptHistoryPath(home, dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(home, "prompts", hex.EncodeToString(sum[:8])+".jsonl")
}

// intro is the greeting, with the transcript's last turns on resume.
func (c *chat) intro(ctx context.Context) string {
	var b bytes.Buffer
	c.out = &b
	defer func() { c.out = nil }()
	c.greet()
	if c.s.sess.Info().Turns > 0 {
		writeTranscript(&b, c.s.sess.History(), transcriptTurns)
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeTranscript prints the last n turns of a history (n <= 0: all): the
// person's prompts and the answers, tools summed up, rendered for the
// terminal (termsafe).
func writeTranscript(w io.Writer, history []llm.Message, n int) {
	var starts []int
	for i, m := range history {
		if m.Role == llm.RoleUser {
			starts = append(starts, i)
		}
	}
	from := 0
	if n > 0 && len(starts) > n {
		from = starts[len(starts)-n]
		fmt.Fprintf(w, "… %d earlier turns (/history shows them)\n", len(starts)-n)
	}
	for _, m := range history[from:] {
		switch m.Role {
		case llm.RoleUser:
			fmt.Fprintf(w, "› %s\n", strings.ReplaceAll(termsafe.Text(strings.TrimSpace(m.Content)), "\n", "\n  "))
		case llm.RoleAssistant:
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(w, "  ▸ %s\n", termsafe.Line(tc.Name))
			}
			if t := strings.TrimSpace(m.Content); t != "" {
				fmt.Fprintf(w, "%s\n", termsafe.Text(t))
			}
		}
	}
}

// status is the TUI's view of the session: model and context use.
func (c *chat) status() tui.Status {
	st := tui.Status{Session: c.s.sess.ID(), Model: c.s.sess.Info().Model, ContextPct: -1}
	cfg, err := c.f.Config()
	if err != nil {
		return st
	}
	key := "default"
	if _, ok := cfg.Models[c.opts.Agent.Model]; ok {
		key = c.opts.Agent.Model
	} else if c.opts.Agent.Model != "" {
		st.Model = c.opts.Agent.Model
	}
	if mc, ok := cfg.Models[key]; ok {
		if st.Model == "" {
			st.Model = mc.Model
		}
		if mc.ContextWindow > 0 {
			st.ContextPct = c.s.d.Measure() * 100 / mc.ContextWindow
		}
		if p := app.ModelPrice(cfg, c.opts.Agent.Model); p != nil {
			st.Price = &tui.Price{Input: p.Input, Cached: p.CachedInput, Output: p.Output}
		}
	}
	return st
}

// tuiBackend runs the TUI's turns and commands on the chat.
type tuiBackend struct{ c *chat }

func (b *tuiBackend) Turn(ctx context.Context, prompt string) error {
	return b.c.turn(ctx, prompt)
}

func (b *tuiBackend) Command(ctx context.Context, line string) (string, bool, error) {
	var buf bytes.Buffer
	b.c.out = &buf
	defer func() { b.c.out = nil }()
	fields := strings.Fields(line)
	if fields[0] == "/resume" && !hasRef(fields[1:]) {
		rows, err := listSessions(ctx, b.c.f, hasFlag(fields[1:], "--all"), 20)
		if err != nil {
			return "", false, err
		}
		tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		printSessions(tw, rows, false)
		tw.Flush()
		buf.WriteString("/resume ID or NAME reopens one\n")
		return buf.String(), false, nil
	}
	quit, err := b.c.command(ctx, line)
	return buf.String(), quit, err
}

func (b *tuiBackend) Status() tui.Status { return b.c.status() }

// Sessions implements tui.Sessions: the /resume picker's rows.
func (b *tuiBackend) Sessions(ctx context.Context, all bool) ([]tui.Session, error) {
	rows, err := listSessions(ctx, b.c.f, all, 50)
	if err != nil {
		return nil, err
	}
	return pickRows(rows, b.c.s.sess.ID()), nil
}

// pickRows are sessions as the picker shows them; current is marked.
func pickRows(rows []sessionRow, current string) []tui.Session {
	out := make([]tui.Session, 0, len(rows))
	for _, r := range rows {
		out = append(out, tui.Session{ID: r.ID, Name: r.Name, Title: r.Title, Dir: r.Cwd, Updated: r.Updated, Turns: r.Turns, Current: r.ID == current})
	}
	return out
}

func hasRef(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			return true
		}
	}
	return false
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}

// pickSession is `yagent resume` without an id on a terminal: the picker.
func pickSession(ctx context.Context, f *Factory, rows []sessionRow, all bool) (string, string, error) {
	ref, err := tui.Pick(ctx, tui.Options{In: f.IO.In, Out: f.IO.Out, Env: os.Environ()}, pickRows(rows, ""), all)
	if errors.Is(err, tui.ErrNoSessions) {
		fmt.Fprintln(f.IO.ErrOut, "no sessions to resume here (--all shows every directory)")
		return "", "", nil
	}
	return ref, "", err
}
