package tui

import (
	"context"
	"errors"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/termsafe"
)

// eventMsg carries one event of the running turn into the model.
type eventMsg struct{ e agents.Event }

// Sink forwards a session's events to the program; events before the
// program starts are kept and shown first.
type Sink struct {
	mu    sync.Mutex
	p     *tea.Program
	early []agents.Event
	ended bool
}

var _ agents.Sink = (*Sink)(nil)

// Emit implements agents.Sink.
func (s *Sink) Emit(e agents.Event) {
	s.mu.Lock()
	p := s.p
	if p == nil {
		if !s.ended {
			s.early = append(s.early, e)
		}
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	p.Send(eventMsg{e})
}

func (s *Sink) attach(p *tea.Program) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.p = p
}

func (s *Sink) detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.p, s.ended = nil, true
}

// takeEarly returns the events kept before the start, once.
func (s *Sink) takeEarly() []agents.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.early
	s.early = nil
	return e
}

// nudgeMsg asks the program whether its Backend wants a turn of its own
// (Reporter).
type nudgeMsg struct{}

// Nudge tells the running program that something finished in the
// background (a background delegation landed): idle, it asks its
// Backend's Report for a turn. Before the program runs it does nothing
// (the session's first call lists what finished).
func (s *Sink) Nudge() { s.send(nudgeMsg{}) }

// send delivers a message to the running program; false when none runs.
func (s *Sink) send(msg tea.Msg) bool {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p == nil {
		return false
	}
	p.Send(msg)
	return true
}

// decision is the person's answer in the approval modal.
type decision int

const (
	decideNo decision = iota
	decideYes
	decideAlways
)

// reply is the modal's answer: a decision and, with a "no", what the
// person said the model should do instead.
type reply struct {
	d       decision
	instead string
}

// askMsg opens the approval modal. Everything in it is rendered for the
// terminal already (termsafe).
type askMsg struct {
	// question is what is asked, one entry per line (a command exactly as
	// it will run, every line of it).
	question []string
	preview  string
	// prefix is the command prefix "always" approves ("" = not offered).
	prefix string
	// whole shows the preview whole, wrapped, never cut (an MCP tool's
	// arguments: what the person approves); a diff shows its first lines.
	whole bool
	// tell offers "no, and tell it what to do instead" (a tool's
	// approval: AskInstead); telling is the person typing instead.
	tell    bool
	telling bool
	instead []rune
	reply   chan reply
}

// askDoneMsg closes a modal whose question was withdrawn (the step was
// cancelled while it waited).
type askDoneMsg struct{ reply chan reply }

// errNoProgram is returned when an approval is asked with no program
// running to show it.
var errNoProgram = errors.New("the interactive session is not running: nobody can be asked")

// Asker implements agents.Asker with the approval modal: y, n, or a
// (this command prefix for the rest of the session, when the question
// offers one; the shell tool keeps the prefix); Ctrl-C or Esc is no. As
// agents.Instructed it offers t too: no, and a line of text the model
// gets as the refusal's reason.
type Asker struct {
	sink *Sink
	mu   sync.Mutex
	// Preview renders what a question shows under it (a write's diff, an
	// MCP tool's arguments); nil shows nothing more than the question.
	Preview func(agents.Question) string
}

var _ agents.Instructed = (*Asker)(nil)

// modal is what the modal shows of q. What the model chose is shown,
// never obeyed: every line of the action, none cut, control characters
// visible (termsafe), the preview and the prefix alike.
func (a *Asker) modal(q agents.Question) askMsg {
	lines := termsafe.Lines(q.Action)
	if q.Why != "" {
		lines[len(lines)-1] += " (protected path: " + termsafe.Line(q.Why) + ")"
	}
	preview := ""
	if a.Preview != nil {
		preview = termsafe.Text(a.Preview(q))
	}
	return askMsg{question: lines, preview: preview, prefix: termsafe.Line(q.Prefix), whole: q.Args != ""}
}

// Ask implements agents.Asker. One question at a time: parallel
// sub-agents queue.
func (a *Asker) Ask(ctx context.Context, q agents.Question) (agents.Answer, error) {
	ans, _, err := a.ask(ctx, q, false)
	return ans, err
}

// AskInstead implements agents.Instructed: Ask, offering t.
func (a *Asker) AskInstead(ctx context.Context, q agents.Question) (agents.Answer, string, error) {
	return a.ask(ctx, q, true)
}

func (a *Asker) ask(ctx context.Context, q agents.Question, tell bool) (agents.Answer, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	msg := a.modal(q)
	msg.tell = tell
	ch := make(chan reply, 1)
	msg.reply = ch
	if !a.sink.send(msg) {
		return agents.Deny, "", errNoProgram
	}
	select {
	case r := <-ch:
		switch {
		case r.d == decideAlways && q.Prefix != "":
			return agents.AllowPrefix, "", nil
		case r.d == decideYes:
			return agents.Allow, "", nil
		}
		return agents.Deny, r.instead, nil
	case <-ctx.Done():
		a.sink.send(askDoneMsg{reply: ch})
		return agents.Deny, "", ctx.Err()
	}
}
