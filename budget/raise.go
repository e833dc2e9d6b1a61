package budget

import (
	"context"
	"fmt"
	"sync"
)

// Raise asks a person whether to go on past a spent budget with the caps
// to; true raises it (an interactive session's approval prompt).
type Raise func(ctx context.Context, ex *Exceeded, to Limits) bool

// Raiser keeps the caps a person raised during a session, one per scope
// key, and asks at most one question at a time: parallel callers stopped
// by the same budget wait for the one answer. A headless run has none and
// stops at its budget.
type Raiser struct {
	mu       sync.Mutex
	ask      Raise
	raised   map[string]Limits
	declined map[string]Limits
}

// NewRaiser returns a Raiser asking through ask.
func NewRaiser(ask Raise) *Raiser {
	return &Raiser{ask: ask, raised: map[string]Limits{}, declined: map[string]Limits{}}
}

// Forget drops the person's refusals (a new turn asks again); the raised
// caps stay.
func (r *Raiser) Forget() {
	r.mu.Lock()
	r.declined = map[string]Limits{}
	r.mu.Unlock()
}

// limits are scope's caps, as raised.
func (r *Raiser) limits(s Scope) Limits {
	if r == nil {
		return s.Limits
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.raised[s.Key]; ok {
		return l
	}
	return s.Limits
}

// raise asks to go on past ex; true when the caps were raised (by this
// question or by another caller's meanwhile).
func (r *Raiser) raise(ctx context.Context, ex *Exceeded) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	current := ex.Scope.Limits
	if l, ok := r.raised[ex.Scope.Key]; ok && l != current {
		return true // raised while this caller waited
	}
	if l, ok := r.declined[ex.Scope.Key]; ok && l == current {
		return false // asked and refused this turn
	}
	to := Raised(current, ex.Spent)
	if !r.ask(ctx, ex, to) {
		r.declined[ex.Scope.Key] = current
		return false
	}
	r.raised[ex.Scope.Key] = to
	return true
}

// Raised proposes caps past spent: each reached cap doubled (or spent
// plus the cap, when that is more).
func Raised(l Limits, spent Spend) Limits {
	if l.MaxCost > 0 && spent.Cost >= l.MaxCost {
		l.MaxCost = max(2*l.MaxCost, spent.Cost+l.MaxCost)
	}
	if l.MaxTokens > 0 && spent.Tokens >= l.MaxTokens {
		l.MaxTokens = max(2*l.MaxTokens, spent.Tokens+l.MaxTokens)
	}
	return l
}

// Question is what a person is asked at ex's limit: "raise the budget
// of --max-cost (max_cost $0.5000, spent $0.5100) to max_cost $1.0000".
func (e *Exceeded) Question(to Limits) string {
	name := e.Scope.Name
	if name == "" {
		name = "the budget"
	}
	return fmt.Sprintf("%s is spent (%s; spent %s and %d tokens): raise it to %s and go on", name, e.Scope.Limits, FormatCost(e.Spent.Cost), e.Spent.Tokens, to)
}

type raiserKey struct{}

// WithRaiser returns ctx whose model calls, at a spent budget, ask r
// whether to raise it.
func WithRaiser(ctx context.Context, r *Raiser) context.Context {
	return context.WithValue(ctx, raiserKey{}, r)
}

func raiserFrom(ctx context.Context) *Raiser {
	r, _ := ctx.Value(raiserKey{}).(*Raiser)
	return r
}
