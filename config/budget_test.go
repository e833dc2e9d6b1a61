package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUntrustedBudget: an untrusted workspace may lower a budget, never
// raise or lift it (0 = no cap); a negative budget is refused naming the
// key.
func TestUntrustedBudget(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.yaml"), "budget:\n  max_cost: 2\n  max_tokens: 100000\n")
	for _, c := range []struct {
		ws        string
		cost      float64
		tokens    int64
		ignored   []string
		errSubstr string
	}{
		{ws: "budget:\n  max_cost: 1\n  max_tokens: 5000\n", cost: 1, tokens: 5000},
		{ws: "budget:\n  max_cost: 20\n", cost: 2, tokens: 100000, ignored: []string{"budget.max_cost"}},
		{ws: "budget:\n  max_cost: 0\n  max_tokens: 0\n", cost: 2, tokens: 100000, ignored: []string{"budget.max_cost", "budget.max_tokens"}},
		{ws: "budget:\n  max_tokens: -1\n", errSubstr: "budget.max_tokens"},
		{ws: "budget:\n  max_cost: lots\n", errSubstr: "budget.max_cost"},
	} {
		write(t, filepath.Join(wd, ".yagent", "config.yaml"), c.ws)
		cfg, err := loadIn(t, home, wd)
		if c.errSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), c.errSubstr) {
				t.Errorf("workspace %q: err = %v; want one naming %s", c.ws, err, c.errSubstr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("workspace %q: %v", c.ws, err)
		}
		ign := slices.DeleteFunc(slices.Clone(cfg.Workspace.Ignored), func(k string) bool { return !strings.HasPrefix(k, "budget.") })
		if cfg.Budget.MaxCost != c.cost || cfg.Budget.MaxTokens != c.tokens || !slices.Equal(ign, c.ignored) {
			t.Errorf("workspace %q: budget %+v, ignored %v; want max_cost %g, max_tokens %d, ignored %v", c.ws, cfg.Budget, ign, c.cost, c.tokens, c.ignored)
		}
	}
}
