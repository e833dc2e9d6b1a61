package budget_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
)

// fixed answers every call with usage u and counts the calls.
type fixed struct {
	u     llm.Usage
	calls atomic.Int64
}

func (f *fixed) Stream(context.Context, llm.Request) (llm.Response, error) {
	f.calls.Add(1)
	return llm.Response{Usage: f.u}, nil
}

// TestGuardStopsAtTheLimit: a call starts only while every scope of the
// chain is under its caps; the spend is charged to all of them; the
// refusal names the budget and wraps ErrExceeded.
func TestGuardStopsAtTheLimit(t *testing.T) {
	ctx := t.Context()
	led := &budget.Memory{}
	model := &fixed{u: llm.Usage{PromptTokens: 1000, CompletionTokens: 1000}}
	// $1 + $2 per million: 1000 prompt + 1000 completion tokens = $0.003.
	g := budget.Guard{Client: model, Price: budget.Price{Input: 1, Output: 2}}
	ctx = budget.With(ctx, led, budget.Scope{Key: "run", Name: "--max-cost", Limits: budget.Limits{MaxCost: 0.01}})
	var err error
	n := 0
	for ; n < 100; n++ {
		if _, err = g.Stream(ctx, llm.Request{}); err != nil {
			break
		}
	}
	if n != 4 || !errors.Is(err, budget.ErrExceeded) {
		t.Fatalf("stopped after %d calls with %v; want 4 calls ($0.012 ≥ $0.01) then ErrExceeded", n, err)
	}
	for _, want := range []string{"--max-cost", "max_cost $0.0100", "$0.0120"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if model.calls.Load() != 4 {
		t.Errorf("the model was called %d times; want 4 (a refused call never reaches it)", model.calls.Load())
	}
}

// TestEntryScopeInheritsParent: a scope added under a run's budget is
// checked with the run's: the entry stops at its own cap, and the run's
// cap stops every entry.
func TestEntryScopeInheritsParent(t *testing.T) {
	led := &budget.Memory{}
	model := &fixed{u: llm.Usage{PromptTokens: 50, CompletionTokens: 50}}
	g := budget.Guard{Client: model}
	run := budget.With(t.Context(), led, budget.Scope{Key: "plan", Name: "plan budget", Limits: budget.Limits{MaxTokens: 500}})
	a := budget.Within(run, budget.Scope{Key: "plan/a", Name: "entry a budget", Limits: budget.Limits{MaxTokens: 200}})
	calls := func(ctx context.Context) (int, error) {
		for n := 0; n < 100; n++ {
			if _, err := g.Stream(ctx, llm.Request{}); err != nil {
				return n, err
			}
		}
		return 100, nil
	}
	n, err := calls(a)
	var ex *budget.Exceeded
	if n != 2 || !errors.As(err, &ex) || ex.Scope.Key != "plan/a" {
		t.Fatalf("entry a: %d calls, %v; want 2 then its own budget", n, err)
	}
	b := budget.Within(run, budget.Scope{Key: "plan/b"}) // no cap of its own: the plan's
	n, err = calls(b)
	if n != 3 || !errors.As(err, &ex) || ex.Scope.Key != "plan" {
		t.Fatalf("entry b: %d calls, %v; want 3 (200 + 300 = 500) then the plan's budget", n, err)
	}
}

// TestSQLiteLedgerAcrossProcesses: two opens of one state database (two
// processes) charging at once lose nothing.
func TestSQLiteLedgerAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	var leds []budget.SQLite
	for range 2 {
		db, err := statedb.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		leds = append(leds, budget.SQLite{DB: db.DB})
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := leds[i%2].Charge(t.Context(), []string{"run", "run/e"}, budget.Spend{Cost: 0.5, Tokens: 10, Calls: 1}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := leds[0].Spent(t.Context(), []string{"run", "run/e", "other"})
	if err != nil {
		t.Fatal(err)
	}
	want := budget.Spend{Cost: 10, Tokens: 200, Calls: 20}
	if got["run"] != want || got["run/e"] != want || got["other"] != (budget.Spend{}) {
		t.Errorf("spent = %+v; want %+v for run and run/e, nothing for other", got, want)
	}
}

// TestAbove: an entry's cap may narrow the plan's, never widen it; a zero
// cap inherits.
func TestAbove(t *testing.T) {
	plan := budget.Limits{MaxCost: 1, MaxTokens: 1000}
	for _, c := range []struct {
		entry budget.Limits
		want  string
	}{
		{budget.Limits{}, ""},
		{budget.Limits{MaxCost: 1}, ""},
		{budget.Limits{MaxCost: 1.5}, "max_cost"},
		{budget.Limits{MaxTokens: 1001}, "max_tokens"},
		{budget.Limits{MaxCost: 0.5, MaxTokens: 10}, ""},
	} {
		if got := c.entry.Above(plan); got != c.want {
			t.Errorf("%+v.Above(%+v) = %q; want %q", c.entry, plan, got, c.want)
		}
	}
	if got := (budget.Limits{MaxCost: 5}).Above(budget.Limits{}); got != "" {
		t.Errorf("a plan without a cap: Above = %q; want \"\"", got)
	}
}

// down is a ledger whose database is away (a PostgreSQL restart).
type down struct{}

func (down) Spent(context.Context, []string) (map[string]budget.Spend, error) {
	return nil, errors.New("connection refused")
}
func (down) Charge(context.Context, []string, budget.Spend) error {
	return errors.New("connection refused")
}

// TestLedgerDownWithoutCap: a run without a cap only records its spend,
// so a ledger that cannot be reached fails none of its calls; under a
// cap the call cannot be accounted for and fails.
func TestLedgerDownWithoutCap(t *testing.T) {
	g := budget.Guard{Client: &fixed{u: llm.Usage{PromptTokens: 10}}}
	free := budget.With(t.Context(), down{}, budget.Scope{Key: "run"})
	if _, err := g.Stream(free, llm.Request{}); err != nil {
		t.Errorf("no cap, ledger down: %v; want the answer", err)
	}
	capped := budget.With(t.Context(), down{}, budget.Scope{Key: "run", Limits: budget.Limits{MaxTokens: 100}})
	if _, err := g.Stream(capped, llm.Request{}); err == nil {
		t.Error("a cap, ledger down: the call ran unaccounted; want an error")
	}
}
