package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/event"
)

// RunBudget is a run's budget: each cap from its flag (--max-cost,
// --max-tokens) when given, else from budget.* in the configuration; a
// batch plan's budget: narrows either (plan nil: none). Its Name says
// where each cap came from, for the error at the limit; its Key is the
// caller's (the session's, the plan run's).
func RunBudget(cfg config.Budget, flags budget.Limits, plan *budget.Limits) budget.Scope {
	var l budget.Limits
	var from []string
	add := func(name string) {
		if !slices.Contains(from, name) {
			from = append(from, name)
		}
	}
	var costFrom, tokensFrom string
	switch {
	case flags.MaxCost > 0:
		l.MaxCost, costFrom = flags.MaxCost, "--max-cost"
	case cfg.MaxCost > 0:
		l.MaxCost, costFrom = cfg.MaxCost, "budget.max_cost"
	}
	switch {
	case flags.MaxTokens > 0:
		l.MaxTokens, tokensFrom = flags.MaxTokens, "--max-tokens"
	case cfg.MaxTokens > 0:
		l.MaxTokens, tokensFrom = cfg.MaxTokens, "budget.max_tokens"
	}
	if plan != nil {
		if plan.MaxCost > 0 && (l.MaxCost == 0 || plan.MaxCost < l.MaxCost) {
			l.MaxCost, costFrom = plan.MaxCost, "the plan's budget"
		}
		if plan.MaxTokens > 0 && (l.MaxTokens == 0 || plan.MaxTokens < l.MaxTokens) {
			l.MaxTokens, tokensFrom = plan.MaxTokens, "the plan's budget"
		}
	}
	for _, f := range []string{costFrom, tokensFrom} {
		if f != "" {
			add(f)
		}
	}
	name := "the budget"
	if len(from) > 0 {
		name = "the budget of " + strings.Join(from, " and ")
	}
	return budget.Scope{Name: name, Limits: l}
}

// WithBudget puts scope, under key, on ctx with its ledger: every model
// call under ctx — delegations and their sub-agents included — is checked
// against it and charged to it. A scope without caps still records the
// spend.
func WithBudget(ctx context.Context, ledger budget.Ledger, key string, scope budget.Scope) context.Context {
	scope.Key = key
	return budget.With(ctx, ledger, scope)
}

// BudgetStop is err, the failure of a run under ctx's budget, naming the
// budget first when it is exhausted (exit 1): a run that failed because
// its money ran out says so, whatever else its failure says. A run that
// did not fail is not failed by reaching its budget with its last call.
func BudgetStop(ctx context.Context, err error) error {
	b := budget.From(ctx)
	if b == nil || err == nil {
		return err
	}
	cerr := b.Check(context.WithoutCancel(ctx))
	var ex *budget.Exceeded
	if !errors.As(cerr, &ex) || errors.Is(err, budget.ErrExceeded) {
		return err
	}
	return fmt.Errorf("%w (%v)", cerr, err)
}

// MeterSpend starts measuring what ctx's run budget (the first scope of
// its chain) is charged from now on, and returns what reads it: the
// run's cost for its result event, from the ledger — every model call at
// its own model's price, delegations, sub-agents and workers included.
// The reader returns nil when ctx has no budget or its ledger cannot be
// read.
func MeterSpend(ctx context.Context) func(context.Context) *float64 {
	b := budget.From(ctx)
	start, err := b.Spent(ctx)
	if b == nil || err != nil {
		return func(context.Context) *float64 { return nil }
	}
	return func(ctx context.Context) *float64 {
		end, err := b.Spent(context.WithoutCancel(ctx))
		if err != nil {
			return nil
		}
		cost := event.RoundCost(end.Cost - start.Cost)
		return &cost
	}
}
