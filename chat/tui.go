package chat

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/internal/lineedit"
	"github.com/yagent/yagent/internal/termsafe"
	"github.com/yagent/yagent/internal/ttyask"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/tui"
)

// TranscriptTurns is how many turns a resumed session shows (/history: all).
const TranscriptTurns = 5

// RunTUI is interactive mode on a terminal: the Bubble Tea program.
func RunTUI(ctx context.Context, o Options) error {
	b := &Backend{}
	custom, _ := LoadCustom(o.Config, o.Dir) // OpenTUI loads them again for the chat, and says what was skipped
	prog := tui.New(tui.Options{
		Backend: b, In: o.In, Out: o.Out, Env: o.Env, Context: ctx,
		Workspace: o.Dir, HistoryPath: PromptHistoryPath(o.Config.Home, o.Dir), Commands: append(Commands(), CustomNames(custom)...), Now: o.Now,
		Intro: func() string { return b.Chat.Intro(ctx) },
	})
	c, err := OpenTUI(ctx, o, prog.Sink(), prog.Asker())
	if err != nil {
		return err
	}
	b.Chat = c
	prev := o.OnInterrupt(prog.Interrupt)
	defer func() { o.OnInterrupt(prev) }()
	runErr := prog.Run()
	return errors.Join(runErr, c.Leave(ctx))
}

// OpenTUI opens the session of a TUI chat (events and approvals go to
// the program).
func OpenTUI(ctx context.Context, o Options, sink *tui.Sink, ask *tui.Asker) (*Chat, error) {
	ask.Preview = ttyask.Preview
	c := &Chat{o: o, model: o.Model, sink: sink, ask: ask}
	c.custom, c.customWarn = LoadCustom(o.Config, o.Dir)
	s, err := o.Open(ctx, Request{Resume: o.Resume, Model: c.model, Sink: sink, Ask: ask})
	if err != nil {
		return nil, err
	}
	c.s = s
	// A background delegation that lands wakes the program: idle, it
	// starts a turn that reports it (agents.on_background_done: report).
	s.Director.OnBackgroundDone(func(event.DelegationEvent) { sink.Nudge() })
	return c, nil
}

// Session is the open session.
func (c *Chat) Session() *memory.Session { return c.s.Session }

// Close closes the open session, keeping it.
func (c *Chat) Close() { c.closeSession() }

// Leave closes the session: one without a turn is not kept; otherwise
// the command that resumes it is printed.
func (c *Chat) Leave(ctx context.Context) error {
	id := c.s.Session.ID()
	c.closeSession()
	st, err := c.o.Sessions(ctx)
	if err != nil {
		return err
	}
	in, err := st.Get(ctx, id)
	if err != nil {
		return err
	}
	if in.Turns == 0 {
		if _, err := RemoveSession(ctx, st, in.ID); err != nil {
			return fmt.Errorf("drop the empty session %s: %w", in.ID, err)
		}
		return nil
	}
	ref := in.ID
	if in.Name != "" {
		ref = in.Name
	}
	fmt.Fprintf(c.o.ErrOut, "resume this session with: yagent resume %s\n", ref)
	return nil
}

// PromptHistoryPath is the prompt history of a directory.
func PromptHistoryPath(home, dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(home, "prompts", hex.EncodeToString(sum[:8])+".jsonl")
}

// Intro is the greeting, with the transcript's last turns on resume.
func (c *Chat) Intro(ctx context.Context) string {
	var b bytes.Buffer
	c.out = &b
	defer func() { c.out = nil }()
	c.greet()
	if c.s.Session.Info().Turns > 0 {
		WriteTranscript(&b, c.s.Session.History(), TranscriptTurns)
	}
	return strings.TrimRight(b.String(), "\n")
}

// WriteTranscript prints the last n turns of a history (n <= 0: all): the
// person's prompts and the answers, tools summed up, rendered for the
// terminal (termsafe).
func WriteTranscript(w io.Writer, history []llm.Message, n int) {
	var starts []int
	for i, m := range history {
		if m.Role == llm.RoleUser {
			starts = append(starts, i)
		}
	}
	from := 0
	if n > 0 && len(starts) > n {
		from = starts[len(starts)-n]
		fmt.Fprintf(w, "… %s (/history shows them)\n", agents.Count(len(starts)-n, "earlier turn", "earlier turns"))
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
func (c *Chat) status() tui.Status {
	st := tui.Status{Session: c.s.Session.ID(), Model: c.s.Session.Info().Model, ContextPct: -1}
	if c.s.Run == nil || c.s.Clients == nil {
		return st
	}
	// What the next turn runs on, as Clients resolves it: the name chosen
	// with /model and the id it maps to, never the one the session began
	// with.
	st.Model = c.s.Clients.Label("")
	set, _ := c.s.Clients.Settings("")
	if mc, ok := c.o.Config.Models[set.Entry]; ok {
		if mc.ContextWindow > 0 {
			st.ContextPct = c.s.Director.Measure() * 100 / mc.ContextWindow
		}
		if set.ID == mc.Model && mc.Price != (config.Price{}) {
			st.Price = &tui.Price{Input: mc.Price.Input, Cached: mc.Price.CachedInput, Output: mc.Price.Output}
		}
	}
	return st
}

// Backend runs the TUI's turns and commands on the chat (set Chat once
// it is open: the program exists before the session it shows).
type Backend struct{ Chat *Chat }

func (b *Backend) Turn(ctx context.Context, prompt string) error {
	return b.Chat.turn(ctx, prompt)
}

func (b *Backend) Command(ctx context.Context, line string) (string, bool, error) {
	var buf bytes.Buffer
	b.Chat.out = &buf
	defer func() { b.Chat.out = nil }()
	fields := strings.Fields(line)
	if fields[0] == "/resume" && !hasRef(fields[1:]) {
		rows, err := b.Chat.o.List(ctx, hasFlag(fields[1:], "--all"), 20)
		if err != nil {
			return "", false, err
		}
		tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		PrintSessions(tw, rows, false)
		tw.Flush()
		buf.WriteString("/resume ID or NAME reopens one\n")
		return buf.String(), false, nil
	}
	quit, err := b.Chat.command(ctx, line)
	return buf.String(), quit, err
}

func (b *Backend) Status() tui.Status { return b.Chat.status() }

// Expand implements tui.Expander: a custom command line is the prompt of
// a turn.
func (b *Backend) Expand(line string) (prompt, note string, ok bool) { return b.Chat.expand(line) }

// Prompt implements tui.Prompter: /server:prompt name=value is the text
// of a configured MCP server's prompt (app.MCPPrompt).
func (b *Backend) Prompt(ctx context.Context, line string) (string, bool, error) {
	return b.Chat.serverPrompt(ctx, strings.Fields(line))
}

// MoreCommands implements tui.Completer: the prompts of the MCP servers
// started by now, as /server:prompt.
func (b *Backend) MoreCommands(ctx context.Context) []string {
	servers, err := b.Chat.s.MCPServers()
	if err != nil || servers == nil {
		return nil
	}
	return servers.PromptCommands(ctx)
}

// Report implements tui.Reporter: with agents.on_background_done report,
// a turn that reports the background delegations that finished and that
// no call of the director has shown yet.
func (b *Backend) Report() (string, bool) {
	d := b.Chat.s.Director
	if !d.ReportsBackground() || len(b.Chat.s.Session.Unseen()) == 0 {
		return "", false
	}
	return director.ReportBackgroundPrompt(), true
}

// Sessions implements tui.Sessions: the /resume picker's rows.
func (b *Backend) Sessions(ctx context.Context, all bool) ([]tui.Session, error) {
	rows, err := b.Chat.o.List(ctx, all, 50)
	if err != nil {
		return nil, err
	}
	return pickRows(rows, b.Chat.s.Session.ID()), nil
}

// pickRows are sessions as the picker shows them; current is marked.
func pickRows(rows []Row, current string) []tui.Session {
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

// PickSession is `yagent resume` without an id: the full-screen picker
// when tui, else a numbered list read with line editing (its history
// under home).
func PickSession(ctx context.Context, tui bool, ios PickIO, home string, rows []Row, all bool) (string, error) {
	if tui {
		return Pick(ctx, ios.In, ios.Out, ios.ErrOut, os.Environ(), rows, all)
	}
	return PickFrom(ios.ErrOut, rows, lineedit.New(ios.In, ios.Out, ios.ErrOut, ios.TTY, filepath.Join(home, "history")))
}

// PickIO are the streams a picker uses; TTY: both ends are a terminal.
type PickIO struct {
	In          io.Reader
	Out, ErrOut io.Writer
	TTY         bool
}

// Pick is `yagent resume` without an id on a terminal: the picker ("" when
// the person picked none).
func Pick(ctx context.Context, in io.Reader, out, errOut io.Writer, env []string, rows []Row, all bool) (string, error) {
	ref, err := tui.Pick(ctx, tui.Options{In: in, Out: out, Env: env}, pickRows(rows, ""), all)
	if errors.Is(err, tui.ErrNoSessions) {
		fmt.Fprintln(errOut, "no sessions to resume here (--all shows every directory)")
		return "", nil
	}
	return ref, err
}
