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
	if err := b.Check(ctx); err != nil {
		return llm.Response{}, err
	}
	resp, err := g.Client.Stream(ctx, req)
	if resp.Usage != (llm.Usage{}) {
		// A call cut short still cost what it cost.
		if cerr := b.Charge(context.WithoutCancel(ctx), g.Price.Charge(resp.Usage)); cerr != nil && err == nil {
			err = cerr
		}
	}
	return resp, err
}

// Profile is the wrapped client's provider profile (spans name it).
func (g Guard) Profile() llm.Profile {
	if p, ok := g.Client.(interface{ Profile() llm.Profile }); ok {
		return p.Profile()
	}
	return llm.Profile{}
}
