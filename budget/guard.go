package budget

import (
	"context"

	"github.com/yagent/yagent/llm"
)

// Guard is a model client whose calls are checked against the budget of
// their context before they start and charged to it, at Price, after.
type Guard struct {
	llm.Client
	Price Price
}

var _ llm.Client = Guard{}

// Stream implements llm.Client.
func (g Guard) Stream(ctx context.Context, req llm.Request) (llm.Response, error) {
	b := From(ctx)
	if b == nil {
		return g.Client.Stream(ctx, req)
	}
	if err := b.Admit(ctx); err != nil {
		return llm.Response{}, err
	}
	resp, err := g.Client.Stream(ctx, req)
	if resp.Usage != (llm.Usage{}) {
		// A call cut short still cost what it cost.
		// A spend that cannot be recorded fails the call only under a
		// cap (it would escape it); without one it is only the record
		// of what the run cost (the ledger's database may be restarting).
		if cerr := b.Charge(context.WithoutCancel(ctx), g.Price.Charge(resp.Usage)); cerr != nil && err == nil && b.Capped() {
			err = cerr
		}
	}
	return resp, err
}

// CallCost is what usage cost at the guard's price, the figure the ledger
// is charged; ok is false when the model has no price.
func (g Guard) CallCost(u llm.Usage) (usd float64, ok bool) {
	if g.Price == (Price{}) {
		return 0, false
	}
	return g.Price.Charge(u).Cost, true
}

// Profile is the wrapped client's provider profile (spans name it).
func (g Guard) Profile() llm.Profile {
	if p, ok := g.Client.(interface{ Profile() llm.Profile }); ok {
		return p.Profile()
	}
	return llm.Profile{}
}
