package budget

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/yagent/yagent/llm"
)

// ErrExceeded is wrapped by the error of a model call refused because a
// budget is spent.
var ErrExceeded = errors.New("budget exhausted")

// Limits are a budget's caps; a zero field is no cap.
type Limits struct {
	// MaxCost is in US dollars.
	MaxCost float64 `json:"max_cost,omitempty" yaml:"max_cost,omitempty"`
	// MaxTokens counts prompt and completion tokens.
	MaxTokens int64 `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
}

// IsZero reports whether l caps nothing.
func (l Limits) IsZero() bool { return l.MaxCost == 0 && l.MaxTokens == 0 }

// String names the caps, as "max_cost $0.50, max_tokens 20000".
func (l Limits) String() string {
	var parts []string
	if l.MaxCost > 0 {
		parts = append(parts, "max_cost "+FormatCost(l.MaxCost))
	}
	if l.MaxTokens > 0 {
		parts = append(parts, "max_tokens "+strconv.FormatInt(l.MaxTokens, 10))
	}
	if len(parts) == 0 {
		return "no limit"
	}
	return strings.Join(parts, ", ")
}

// Exceeds reports whether s has reached a cap of l.
func (l Limits) Exceeds(s Spend) bool {
	return (l.MaxCost > 0 && s.Cost >= l.MaxCost) || (l.MaxTokens > 0 && s.Tokens >= l.MaxTokens)
}

// Above returns the cap of l that is looser than parent's ("max_cost" or
// "max_tokens"), "" when l fits within parent (a zero cap inherits).
func (l Limits) Above(parent Limits) string {
	switch {
	case parent.MaxCost > 0 && l.MaxCost > parent.MaxCost:
		return "max_cost"
	case parent.MaxTokens > 0 && l.MaxTokens > parent.MaxTokens:
		return "max_tokens"
	}
	return ""
}

// FormatCost spells dollars as the usage line does: "$0.0123".
func FormatCost(usd float64) string { return fmt.Sprintf("$%.4f", usd) }

// Spend is what a scope spent.
type Spend struct {
	Cost   float64 `json:"cost_usd"`
	Tokens int64   `json:"tokens"`
	Calls  int64   `json:"calls"`
}

// Price is a model's price in US dollars per million tokens.
type Price struct {
	Input, Cached, Output float64
}

// Charge is what usage costs at p.
func (p Price) Charge(u llm.Usage) Spend {
	return Spend{Cost: u.Cost(p.Input, p.Cached, p.Output), Tokens: int64(u.PromptTokens + u.CompletionTokens), Calls: 1}
}

// Scope is one budget of a chain: the ledger's key of what it sums
// (a session, a plan run, a batch entry) and its caps.
type Scope struct {
	Key string `json:"key"`
	// Name says which budget this is in errors ("--max-cost", "plan
	// budget", "entry review budget").
	Name   string `json:"name"`
	Limits Limits `json:"limits"`
}

// Ledger sums spend per scope key. Implementations are safe for
// concurrent use by several processes.
type Ledger interface {
	// Spent returns the spend of each key (missing keys spent nothing).
	Spent(ctx context.Context, keys []string) (map[string]Spend, error)
	// Charge adds s to every key, atomically per key.
	Charge(ctx context.Context, keys []string, s Spend) error
}

// Exceeded is the error of a model call refused by a spent budget.
type Exceeded struct {
	Scope Scope
	Spent Spend
}

func (e *Exceeded) Error() string {
	name := e.Scope.Name
	if name == "" {
		name = "budget"
	}
	return fmt.Sprintf("%s (%s) exhausted: spent %s and %d tokens in %d model calls; no new model call was started (raise it with --max-cost/--max-tokens or budget.max_cost/budget.max_tokens)",
		name, e.Scope.Limits, FormatCost(e.Spent.Cost), e.Spent.Tokens, e.Spent.Calls)
}

// Is makes errors.Is(err, ErrExceeded) hold.
func (e *Exceeded) Is(target error) bool { return target == ErrExceeded }

// Budget is the chain of scopes a model call is checked against and
// charged to, and the ledger that sums them.
type Budget struct {
	Ledger Ledger
	Scopes []Scope
}

// Keys are the ledger keys of the chain.
func (b *Budget) Keys() []string {
	keys := make([]string, len(b.Scopes))
	for i, s := range b.Scopes {
		keys[i] = s.Key
	}
	return keys
}

// Check returns an *Exceeded for the first scope of the chain whose caps
// are reached, nil when a model call may start.
func (b *Budget) Check(ctx context.Context) error {
	if !b.Capped() {
		return nil // nothing to check: the ledger is not even read
	}
	spent, err := b.Ledger.Spent(ctx, b.Keys())
	if err != nil {
		return fmt.Errorf("check the budget: %w", err)
	}
	r := raiserFrom(ctx)
	for _, s := range b.Scopes {
		s.Limits = r.limits(s)
		if s.Limits.Exceeds(spent[s.Key]) {
			return &Exceeded{Scope: s, Spent: spent[s.Key]}
		}
	}
	return nil
}

// Admit is Check before a model call: at a spent budget, ctx's Raiser
// (an interactive session's) asks the person whether to raise it and
// the call goes on when they do.
func (b *Budget) Admit(ctx context.Context) error {
	for {
		err := b.Check(ctx)
		var ex *Exceeded
		r := raiserFrom(ctx)
		if r == nil || !errors.As(err, &ex) || !r.raise(ctx, ex) {
			return err
		}
	}
}

// Capped reports whether a scope of the chain has a cap.
func (b *Budget) Capped() bool {
	if b == nil {
		return false
	}
	for _, s := range b.Scopes {
		if !s.Limits.IsZero() {
			return true
		}
	}
	return false
}

// Charge adds s to every scope of the chain.
func (b *Budget) Charge(ctx context.Context, s Spend) error {
	if b == nil || len(b.Scopes) == 0 {
		return nil
	}
	if err := b.Ledger.Charge(ctx, b.Keys(), s); err != nil {
		return fmt.Errorf("record the spend of a model call: %w", err)
	}
	return nil
}

// Spent returns the spend of the chain's first scope (the run's).
func (b *Budget) Spent(ctx context.Context) (Spend, error) {
	if b == nil || len(b.Scopes) == 0 {
		return Spend{}, nil
	}
	m, err := b.Ledger.Spent(ctx, b.Keys()[:1])
	if err != nil {
		return Spend{}, err
	}
	return m[b.Scopes[0].Key], nil
}

type ctxKey struct{}

// With returns ctx whose model calls are checked against scope in ledger,
// and against every scope ctx already carries.
func With(ctx context.Context, ledger Ledger, scope Scope) context.Context {
	b := &Budget{Ledger: ledger}
	if parent := From(ctx); parent != nil {
		b.Scopes = append(b.Scopes, parent.Scopes...)
	}
	if !scope.Limits.IsZero() || len(b.Scopes) == 0 {
		b.Scopes = append(b.Scopes, scope)
	}
	return context.WithValue(ctx, ctxKey{}, b)
}

// Within returns ctx with scope added to its budget's chain (a batch
// entry's budget); ctx without a budget is returned as is.
func Within(ctx context.Context, scope Scope) context.Context {
	parent := From(ctx)
	if parent == nil || scope.Limits.IsZero() {
		return ctx
	}
	return With(ctx, parent.Ledger, scope)
}

// WithChain returns ctx carrying exactly scopes in ledger (a queue
// worker's job, which carries its coordinator's chain).
func WithChain(ctx context.Context, ledger Ledger, scopes []Scope) context.Context {
	if len(scopes) == 0 {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, &Budget{Ledger: ledger, Scopes: scopes})
}

// From returns ctx's budget, nil when it has none.
func From(ctx context.Context) *Budget {
	b, _ := ctx.Value(ctxKey{}).(*Budget)
	return b
}

// ParseCost reads US dollars, "0.50" or "$0.50": a number of 0 or more.
func ParseCost(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(s), "$"), 64)
	if err != nil || v != v || v > 1e12 {
		return 0, fmt.Errorf("%q is not an amount of US dollars: want a number such as 0.50 or $2", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%s: want 0 or more US dollars (0 = no cap)", s)
	}
	return v, nil
}

// ParseTokens reads a count of tokens of 0 or more.
func ParseTokens(s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of tokens: want a whole number such as 200000", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%s: want 0 or more tokens (0 = no cap)", s)
	}
	return v, nil
}
