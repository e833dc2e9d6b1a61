package tui

import (
	"strings"

	"github.com/yagent/yagent/agents"
)

// Scrollback is the transcript the interactive view prints above the
// composer, without a terminal or a program: the lines a turn's events
// leave in the scrollback, in a plain frame (no colour). cmd/yagent's
// renderer tests compare it with the plain and batch printers'.
type Scrollback struct{ m *model }

// NewScrollback returns a transcript as wide as a terminal of width
// columns.
func NewScrollback(width int) *Scrollback {
	return &Scrollback{m: newModel(Options{Width: width, Env: []string{"NO_COLOR=1"}}, &Sink{})}
}

// Emit folds e into the view and returns what it printed, each line ended
// by a newline.
func (s *Scrollback) Emit(e agents.Event) string {
	s.m.event(e)
	out := s.m.out
	s.m.out = nil
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}
