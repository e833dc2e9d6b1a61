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

// TestRaiserAsksAtTheLimit: under a Raiser (an interactive session) a
// spent budget asks the person once — parallel callers wait for the one
// answer — and a yes raises the cap and lets the call go on; a no stops
// it as a headless run stops, and is not asked again until Forget (the
// next turn); without a Raiser nothing is asked.
func TestRaiserAsksAtTheLimit(t *testing.T) {
	ctx := t.Context()
	led := &budget.Memory{}
	model := &fixed{u: llm.Usage{PromptTokens: 1000}}
	// $10 per million: $0.01 a call; the cap is two calls.
	g := budget.Guard{Client: model, Price: budget.Price{Input: 10}}
	ctx = budget.With(ctx, led, budget.Scope{Key: "s", Name: "--max-cost", Limits: budget.Limits{MaxCost: 0.02}})
	var asked []string
	var mu sync.Mutex
	answer := true
	r := budget.NewRaiser(func(_ context.Context, ex *budget.Exceeded, to budget.Limits) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, ex.Question(to))
		return answer
	})
	rctx := budget.WithRaiser(ctx, r)
	for range 2 {
		if _, err := g.Stream(rctx, llm.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	// Spent: two callers at once, one question, both go on.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			_, err := g.Stream(rctx, llm.Request{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a call after the raise failed: %v", err)
		}
	}
	if want := "--max-cost is spent (max_cost $0.0200; spent $0.0200 and 2000 tokens): raise it to max_cost $0.0400 and go on"; len(asked) != 1 || asked[0] != want {
		t.Fatalf("asked %q; want once %q", asked, want)
	}
	// $0.04 spent of the raised $0.04: asked again; no stops the call.
	answer = false
	for range 2 {
		if _, err := g.Stream(rctx, llm.Request{}); !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "max_cost $0.0400") {
			t.Fatalf("after no: %v; want the raised budget exhausted", err)
		}
	}
	if len(asked) != 2 {
		t.Errorf("asked %d times; want 2 (a refusal is not asked again in the same turn)", len(asked))
	}
	r.Forget()
	if _, err := g.Stream(rctx, llm.Request{}); !errors.Is(err, budget.ErrExceeded) || len(asked) != 3 {
		t.Errorf("after Forget: %v, asked %d times; want asked again (3) and refused", err, len(asked))
	}
	// Headless: no Raiser, no question, the original cap.
	if _, err := g.Stream(ctx, llm.Request{}); !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "max_cost $0.0200") || len(asked) != 3 {
		t.Errorf("headless: %v (asked %d times); want the original cap exhausted, nothing asked", err, len(asked))
	}
	if got := model.calls.Load(); got != 4 {
		t.Errorf("the model was called %d times; want 4", got)
	}
}
