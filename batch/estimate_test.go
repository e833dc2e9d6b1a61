package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
)

// TestEstimate: --dry-run's estimate takes an entry's figures from the
// usage its notes of earlier runs recorded (their mean), else from its
// step budget (the plan's, the definition's — the built-in explorer's
// is 30 —, else agents.subagent_max_steps) × its model's context window at that
// model's price, labelled which; the total is set against the plan's
// budget.
func TestEstimate(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	cfg, err := config.Load(config.Options{Getenv: func(k string) string {
		if k == "YAGENT_HOME" {
			return home
		}
		return ""
	}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.SubagentMaxSteps = 3
	def := cfg.Models["default"]
	def.ContextWindow, def.Price = 1000, config.Price{Input: 10}
	cfg.Models["default"] = def
	cfg.Models["cheap"] = config.Model{ContextWindow: 2000, Price: config.Price{Input: 1}}
	agentFile := filepath.Join(ws, ".claude", "agents", "writer.md")
	if err := os.MkdirAll(filepath.Dir(agentFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agentFile, []byte("---\nname: writer\ndescription: Writes.\nmodel: cheap\nmax_steps: 5\n---\nWrite.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	catalog := agents.LoadCatalog(agents.Sources{Workspace: ws, Home: cfg.Home}, nil)
	store := blackboard.Open(t.TempDir())
	// Two earlier runs of "scan": 1000 and 3000 tokens, $0.01 and $0.03.
	for _, u := range []blackboard.NoteUsage{{Requests: 1, PromptTokens: 900, CompletionTokens: 100, CostUSD: new(0.01)}, {Requests: 2, PromptTokens: 2800, CompletionTokens: 200, CostUSD: new(0.03)}} {
		if _, err := store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Conclusion: "c", Key: KeyPrefix + "scan", Usage: &u}}); err != nil {
			t.Fatal(err)
		}
	}
	plan := &Plan{Budget: &budget.Limits{MaxCost: 0.05}, Delegations: []PlanDelegation{
		{ID: "scan", Agent: "explorer", Task: "t"},
		{ID: "fresh", Agent: "explorer", Task: "t"},
		{ID: "write", Agent: "writer", Task: "t"},
		{ID: "short", Agent: "writer", Task: "t", MaxSteps: 1, Model: "default"},
	}}
	est := plan.Estimate(EstimateEnv{Config: cfg, Catalog: catalog, Board: store, BoardID: "b"})
	var b strings.Builder
	if err := est.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"scan   explorer  default  2000    $0.0200  past runs (2)\n",
		"fresh  explorer  default  30000   $0.3000  at most: 30 steps × 1000 tokens\n",
		"write  writer    cheap    10000   $0.0100  at most: 5 steps × 2000 tokens\n",
		"short  writer    default  1000    $0.0100  at most: 1 steps × 1000 tokens\n",
		"total: 43000 tokens, $0.3400 — over the plan's budget (max_cost $0.0500)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("estimate lacks %q:\n%s", want, out)
		}
	}
	plan.Budget = &budget.Limits{MaxCost: 1}
	b.Reset()
	_ = plan.Estimate(EstimateEnv{Config: cfg, Catalog: catalog, Board: store, BoardID: "b"}).Write(&b)
	if !strings.Contains(b.String(), "— within the plan's budget (max_cost $1.0000)") {
		t.Errorf("under a budget of $1:\n%s", b.String())
	}
}
