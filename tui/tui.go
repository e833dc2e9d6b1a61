// Package tui is yagent's interactive mode on Bubble Tea: a composer, a live
// status line and approval modals drawn inline under the transcript, which
// stays in the terminal's scrollback (no alternate screen).
//
// The package knows nothing of sessions: a Backend runs turns and slash
// commands, and the events of a turn arrive through the Sink the program
// owns. Only cmd/yagent's interactive mode imports it, so `yagent run`
// never initialises it.
package tui

import (
	"context"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Backend runs what the person asks for.
type Backend interface {
	// Turn runs one turn; its events arrive through the program's Sink.
	// Cancelling ctx interrupts the running step.
	Turn(ctx context.Context, prompt string) error
	// Command runs a slash command line ("/board", "/model x") and returns
	// what to show; quit asks the program to leave.
	Command(ctx context.Context, line string) (out string, quit bool, err error)
	// Status is what the status line shows between events.
	Status() Status
}

// Expander is a Backend whose slash commands may stand for a prompt (the
// person's custom commands): Expand returns the turn's prompt and a note
// to show first, or false for a command Command runs.
type Expander interface {
	Expand(line string) (prompt, note string, ok bool)
}

// Prompter is a Backend whose commands may name a prompt kept elsewhere:
// an MCP server's prompt, /server:prompt name=value. Prompt fetches it
// (off the program's loop: it may ask a server); ok false when the line
// names none.
type Prompter interface {
	Prompt(ctx context.Context, line string) (prompt string, ok bool, err error)
}

// Completer is a Backend whose commands grow as the session runs (an
// MCP server's prompts, known once it started): Tab offers them beside
// Options.Commands. It is asked off the program's loop after each turn.
type Completer interface {
	MoreCommands(ctx context.Context) []string
}

// Reporter is a Backend that may ask for a turn of its own while the
// person is idle: background delegations landed (chat's Backend, with
// agents.on_background_done: report). Sink.Nudge says when to ask.
type Reporter interface {
	// Report returns the prompt of the turn to start now, or false.
	Report() (prompt string, ok bool)
}

// Status is the slow-changing part of the status line.
type Status struct {
	Session string
	Model   string
	// ContextPct is the share of the model's window the next request
	// would use, by the measure compaction uses; -1 when unknown.
	ContextPct int
	// Price converts tokens to money; nil hides the cost.
	Price *Price
}

// Price is a model's price per million tokens.
type Price struct {
	Input, Cached, Output float64
}

// Options configure a Program.
type Options struct {
	Backend Backend
	// Context bounds the program and every turn (SIGTERM cancels it).
	Context context.Context
	In      io.Reader
	Out     io.Writer
	// Env is the environment (NO_COLOR, TERM, EDITOR, VISUAL).
	Env []string
	// Workspace is the directory @path mentions are relative to.
	Workspace string
	// HistoryPath keeps the prompt history of this directory ("" = none).
	HistoryPath string
	// Commands are the slash commands, for Tab and for unknown ones.
	Commands []string
	// Intro, when set, gives what is printed first (greeting, transcript).
	Intro func() string
	// Width and Height force a size (tests); 0 = the terminal's.
	Width, Height int
	Now           func() time.Time
}

// Program is a running interactive session.
type Program struct {
	p     *tea.Program
	m     *model
	sink  *Sink
	asker *Asker
}

// New builds the program; Sink and Asker may be handed to the session
// before Run.
func New(o Options) *Program {
	sink := &Sink{}
	asker := &Asker{sink: sink}
	m := newModel(o, sink)
	if o.Context == nil {
		o.Context = context.Background()
	}
	opts := []tea.ProgramOption{
		tea.WithContext(o.Context),
		tea.WithInput(o.In), tea.WithOutput(o.Out), tea.WithEnvironment(o.Env),
		tea.WithoutSignalHandler(),
	}
	if o.Width > 0 {
		opts = append(opts, tea.WithWindowSize(o.Width, o.Height))
	}
	return &Program{p: tea.NewProgram(m, opts...), m: m, sink: sink, asker: asker}
}

// Sink receives the session's events.
func (p *Program) Sink() *Sink { return p.sink }

// Asker asks approvals through the modal.
func (p *Program) Asker() *Asker { return p.asker }

// Model is the Bubble Tea model (tests drive it with teatest).
func (p *Program) Model() tea.Model { return p.m }

// Run runs the program until the person leaves.
func (p *Program) Run() error {
	p.sink.attach(p.p)
	_, err := p.p.Run()
	p.sink.detach()
	p.m.stop()
	return err
}

// Interrupt is what SIGINT does while the program runs (a Ctrl-C the
// terminal did not turn into a key): the same as pressing Ctrl-C.
func (p *Program) Interrupt() bool {
	p.p.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	return true
}

// Attach connects a sink to a program the caller runs itself (tests).
func (s *Sink) Attach(p *tea.Program) { s.attach(p) }

// NewModel builds the model alone, for a caller (a test) that runs it.
func NewModel(o Options) (tea.Model, *Sink, *Asker) {
	sink := &Sink{}
	return newModel(o, sink), sink, &Asker{sink: sink}
}

// getenv looks a name up in env (the last setting wins).
func getenv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// Plain reports whether the terminal should get plain lines only
// (TERM=dumb).
func Plain(env []string) bool { return getenv(env, "TERM") == "dumb" }
