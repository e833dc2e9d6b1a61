package config

// Budget caps what a run spends on models (README "Budgets"): in US
// dollars at models.<name>.price and in tokens, summed over the run's
// delegations, processes and workers. Zero is no cap. --max-cost and
// --max-tokens override it for one run; a batch plan's budget: narrows it.
type Budget struct {
	MaxCost   float64 `yaml:"max_cost" json:"max_cost"`
	MaxTokens int64   `yaml:"max_tokens" json:"max_tokens"`
}
