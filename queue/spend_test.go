package queue

import (
	"context"
	"strings"
	"testing"

	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestLedger: Charge adds a spend to every scope it names, in one
// statement, and Spent reads the sums back (a scope never charged is
// absent); a database that does not answer is an error naming the table,
// never a zero spend.
func TestLedger(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	l := e.q.Ledger()
	for _, c := range []struct {
		keys []string
		s    budget.Spend
	}{
		{[]string{"run", "run/a"}, budget.Spend{Cost: 0.25, Tokens: 100, Calls: 1}},
		{[]string{"run", "run/b"}, budget.Spend{Cost: 0.5, Tokens: 40, Calls: 2}},
	} {
		if err := l.Charge(ctx, c.keys, c.s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Spent(ctx, []string{"run", "run/a", "run/b", "run/never"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]budget.Spend{
		"run":   {Cost: 0.75, Tokens: 140, Calls: 3},
		"run/a": {Cost: 0.25, Tokens: 100, Calls: 1},
		"run/b": {Cost: 0.5, Tokens: 40, Calls: 2},
	}
	if len(got) != len(want) {
		t.Errorf("Spent = %v; want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("Spent[%s] = %+v; want %+v", k, got[k], w)
		}
	}

	dead, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Spent(dead, []string{"run"}); err == nil || !strings.Contains(err.Error(), "read yagent_budget_spend") {
		t.Errorf("Spent with no database: %v; want an error naming the table", err)
	}
	if err := l.Charge(dead, []string{"run"}, budget.Spend{Calls: 1}); err == nil || !strings.Contains(err.Error(), "charge yagent_budget_spend") {
		t.Errorf("Charge with no database: %v; want an error naming the table", err)
	}
}
