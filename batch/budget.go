package batch

import (
	"context"
	"errors"
	"strconv"

	"github.com/yagent/yagent/budget"
)

type addProblem = func(line int, field, format string, args ...any)

// checkPlanBudget refuses a negative cap of the plan's budget.
func (p *Plan) checkPlanBudget(add addProblem) {
	if p.Budget == nil {
		return
	}
	if p.Budget.MaxCost < 0 {
		add(p.line("budget", "max_cost"), "budget.max_cost", "%g: want US dollars of 0 or more (0 = no cap)", p.Budget.MaxCost)
	}
	if p.Budget.MaxTokens < 0 {
		add(p.line("budget", "max_tokens"), "budget.max_tokens", "%d: want tokens of 0 or more (0 = no cap)", p.Budget.MaxTokens)
	}
}

// checkBudget refuses a negative cap of delegation i's budget, and one
// above the plan's (an entry narrows the plan's budget, never widens
// it), naming both.
func (p *Plan) checkBudget(add addProblem, d PlanDelegation, i int, at string) {
	b := d.Budget
	if b == nil {
		return
	}
	if b.MaxCost < 0 {
		add(p.line("delegations", i, "budget", "max_cost"), at+".budget.max_cost", "%g: want US dollars of 0 or more (0 = the plan's)", b.MaxCost)
	}
	if b.MaxTokens < 0 {
		add(p.line("delegations", i, "budget", "max_tokens"), at+".budget.max_tokens", "%d: want tokens of 0 or more (0 = the plan's)", b.MaxTokens)
	}
	if p.Budget == nil {
		return
	}
	switch b.Above(*p.Budget) {
	case "max_cost":
		add(p.line("delegations", i, "budget", "max_cost"), at+".budget.max_cost", "%s is above the plan's budget.max_cost %s (line %d): an entry's budget may narrow the plan's, never widen it",
			budget.FormatCost(b.MaxCost), budget.FormatCost(p.Budget.MaxCost), p.line("budget", "max_cost"))
	case "max_tokens":
		add(p.line("delegations", i, "budget", "max_tokens"), at+".budget.max_tokens", "%d is above the plan's budget.max_tokens %d (line %d): an entry's budget may narrow the plan's, never widen it",
			b.MaxTokens, p.Budget.MaxTokens, p.line("budget", "max_tokens"))
	}
}

// entryBudget is ctx with delegation d's own budget added under the run's
// (its subtree inherits both); ctx as is when it has none.
func entryBudget(ctx context.Context, d PlanDelegation) context.Context {
	run := budget.From(ctx)
	if d.Budget == nil || run == nil || len(run.Scopes) == 0 {
		return ctx
	}
	return budget.Within(ctx, budget.Scope{Key: run.Scopes[0].Key + "/" + d.ID, Name: "delegation " + strconv.Quote(d.ID) + "'s budget", Limits: *d.Budget})
}

// runBudgetSpent reports whether the budget of the run (the first scope of
// ctx's chain) is spent.
func runBudgetSpent(ctx context.Context) bool {
	b := budget.From(ctx)
	if b == nil || len(b.Scopes) == 0 {
		return false
	}
	run := &budget.Budget{Ledger: b.Ledger, Scopes: b.Scopes[:1]}
	return errors.Is(run.Check(ctx), budget.ErrExceeded)
}
