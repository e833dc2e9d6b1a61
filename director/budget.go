package director

import (
	"context"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/budget"
)

// withBudget is ctx under the run's budget, keyed by the session in the
// state database's ledger; in an interactive session with a person to
// ask, a spent budget asks to be raised (budget.Raiser) instead of
// stopping the turn.
func (d *Director) withBudget(ctx context.Context) context.Context {
	s := d.opts.Session
	ctx = app.WithBudget(ctx, budget.SQLite{DB: s.Store().DB.DB}, "session:"+s.ID(), d.app.Budget)
	if r := d.raiser(); r != nil {
		ctx = budget.WithRaiser(ctx, r)
	}
	return ctx
}

// raiser is the session's Raiser, made at the first turn: nil for a
// headless run (run, resume — of a chat's session too —, a batch) or
// when nobody can be asked.
func (d *Director) raiser() *budget.Raiser {
	d.raiseOnce.Do(func() {
		ask := d.app.Policy.Ask
		if ask == nil || !d.opts.Interactive {
			return
		}
		d.raise = budget.NewRaiser(func(ctx context.Context, ex *budget.Exceeded, to budget.Limits) bool {
			// Not a tool call's question: no PermissionRequest hook of
			// the delegation it may run in answers it.
			a, err := ask.Ask(agents.WithoutHookCall(ctx), agents.Question{Action: ex.Question(to)})
			return err == nil && a != agents.Deny
		})
	})
	return d.raise
}
