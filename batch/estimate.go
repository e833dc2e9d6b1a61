package batch

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
)

// EstimateEnv is what an estimate reads: the models (price, context
// window) and step budgets of the configuration, the agents' definitions,
// and the board whose notes record past runs of the plan.
type EstimateEnv struct {
	Config  *config.Config
	Catalog *agents.Catalog
	Board   *blackboard.Store
	BoardID string
}

// EntryEstimate is what one delegation is expected to spend.
type EntryEstimate struct {
	ID, Agent, Model string
	Tokens           int64
	Cost             float64
	Priced           bool
	// Source says where the figure comes from: "past runs (n)", the mean
	// of the usage its notes recorded, or "at most: s steps × w tokens",
	// the step budget times the model's context window.
	Source string
}

// Estimate is a plan's expected spend, entry by entry, against its
// budget.
type Estimate struct {
	Entries []EntryEstimate
	Tokens  int64
	Cost    float64
	Priced  bool
	Budget  *budget.Limits
}

// Estimate is what p is expected to spend before it runs (`yagent batch
// --dry-run`): per delegation, from the usage the notes of its earlier
// runs on the board recorded (key batch:<id>) when there are any, else
// the upper bound of its step budget × its model's context window.
func (p *Plan) Estimate(env EstimateEnv) Estimate {
	past := pastUsage(env)
	est := Estimate{Budget: p.Budget, Priced: true}
	for _, d := range p.Delegations {
		model, steps := d.Model, d.MaxSteps
		if def, ok := env.Catalog.Get(d.Agent); ok {
			model = cmp.Or(model, def.Model)
			steps = cmp.Or(steps, def.MaxSteps)
		}
		steps = cmp.Or(steps, env.Config.Agents.SubagentMaxSteps)
		m := env.Config.Models[modelKey(env.Config, model)]
		price := budget.Price{Input: m.Price.Input, Cached: m.Price.CachedInput, Output: m.Price.Output}
		e := EntryEstimate{ID: d.ID, Agent: d.Agent, Model: cmp.Or(model, "default"), Priced: price != budget.Price{}}
		if runs := past[KeyPrefix+d.ID]; len(runs) > 0 {
			var tokens int64
			var cost float64
			for _, u := range runs {
				tokens += int64(u.PromptTokens + u.CompletionTokens)
				if u.CostUSD != nil {
					cost += *u.CostUSD
				} else {
					cost += price.Charge(llm.Usage{PromptTokens: u.PromptTokens, CachedTokens: u.CachedTokens, CompletionTokens: u.CompletionTokens}).Cost
				}
			}
			e.Tokens, e.Cost = tokens/int64(len(runs)), cost/float64(len(runs))
			e.Priced = e.Priced || cost > 0
			e.Source = "past runs (" + strconv.Itoa(len(runs)) + ")"
		} else {
			e.Tokens = int64(steps) * int64(m.ContextWindow)
			e.Cost = float64(e.Tokens) * price.Input / 1e6
			e.Source = fmt.Sprintf("at most: %d steps × %d tokens", steps, m.ContextWindow)
		}
		est.Entries = append(est.Entries, e)
		est.Tokens += e.Tokens
		est.Cost += e.Cost
		est.Priced = est.Priced && e.Priced
	}
	return est
}

// Write prints the estimate: a row per delegation, the total, and the
// total against the plan's budget.
func (e Estimate) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGENT\tMODEL\tTOKENS\tCOST\tFROM")
	for _, r := range e.Entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Agent, r.Model, r.Tokens, costOrUnpriced(r.Cost, r.Priced), r.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	line := fmt.Sprintf("total: %d tokens, %s", e.Tokens, costOrUnpriced(e.Cost, e.Priced))
	switch b := e.Budget; {
	case b == nil || b.IsZero():
		line += " (the plan has no budget)"
	case b.Exceeds(budget.Spend{Cost: e.Cost, Tokens: e.Tokens}):
		line += " — over the plan's budget (" + b.String() + ")"
	default:
		line += " — within the plan's budget (" + b.String() + ")"
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func costOrUnpriced(usd float64, priced bool) string {
	if !priced {
		return "unpriced"
	}
	return budget.FormatCost(usd)
}

// pastUsage is the usage each key's notes on the board recorded.
func pastUsage(env EstimateEnv) map[string][]blackboard.NoteUsage {
	out := map[string][]blackboard.NoteUsage{}
	if env.Board == nil || env.BoardID == "" {
		return out
	}
	list, err := env.Board.ListNotes(env.BoardID, blackboard.ListOptions{})
	if err != nil {
		return out // a new board: no past runs
	}
	for _, m := range list.Notes {
		if _, h, err := env.Board.ReadHandoff(env.BoardID, m.Ref); err == nil && h.Key != "" && h.Usage != nil {
			out[h.Key] = append(out[h.Key], *h.Usage)
		}
	}
	return out
}

// modelKey maps a model name to its entry under models: (an alias's
// target), "default" for any other.
func modelKey(cfg *config.Config, name string) string {
	if _, ok := cfg.Models[name]; ok {
		return name
	}
	if t, ok := cfg.ModelAliases[name]; ok {
		if _, ok := cfg.Models[t]; ok {
			return t
		}
	}
	return "default"
}
