package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm/llmtest"
)

// TestBudgetCostEverywhere: what a run cost, as the ledger charged it —
// every model call at its own model's price, a sub-agent's at its model's,
// not the lead's — in each `--json` usage event, the result's cost_usd,
// the plain usage line, and board show of the delegation's note (its
// front matter records its usage and cost).
func TestBudgetCostEverywhere(t *testing.T) {
	sc, err := llmtest.Parse([]byte(`name: budget-cost
steps:
  - id: delegate
    repeat: true
    match: {agent: director, last_role: user}
    usage: {prompt_tokens: 1000, cached_tokens: 0, completion_tokens: 0}
    reply:
      tool_calls:
        - {name: delegate, arguments: {agent: counter, task: "Count the files."}}
  - id: count
    repeat: true
    match: {agent: counter, last_role: user}
    usage: {prompt_tokens: 1000, cached_tokens: 0, completion_tokens: 0}
    reply:
      text: "No files."
      tool_calls:
        - {name: agent_exit, arguments: {status: ok, conclusion: "No files."}}
  - id: answer
    repeat: true
    match: {agent: director, last_role: tool}
    usage: {prompt_tokens: 1000, cached_tokens: 0, completion_tokens: 0}
    reply: {text: "There are no files."}
`), "budget-cost")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := llmtest.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	// The lead at $10 per million prompt tokens ($0.01 a call), the
	// counter on "cheap" at $1 ($0.001): $0.021 in all ($0.03 at the
	// lead's price).
	mkfile(t, filepath.Join(home, "config.yaml"), "models:\n  default:\n    price: {input: 10, output: 0}\n  cheap:\n    base_url: "+srv.URL()+
		"\n    model: scripted\n    price: {input: 1, output: 0}\n")
	mkfile(t, filepath.Join(ws, ".claude", "agents", "counter.md"), "---\nname: counter\ndescription: Counts files.\nmodel: cheap\n---\nYou count files.\n")
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "YAGENT_MODEL": "scripted", "YAGENT_HOME": home, "YAGENT_NOTES_ROOT": filepath.Join(home, "notes")}

	code, out, stderr := runCLI(t, t.Context(), env, "run", "--json", "--cd", ws, "--board", "costs", "count the files")
	if code != 0 {
		t.Fatalf("run --json: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`"type":"usage","time":"[^"]+","agent":"director",.*"cost_usd":0\.01\}`,
		`"type":"usage","time":"[^"]+","agent":"counter",.*"cost_usd":0\.001\}`,
		`"type":"result".*"cost_usd":0\.021,`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("run --json: no line matching %s:\n%s", want, out)
		}
	}
	ref := regexp.MustCompile(`"ref":"(counter/[^"]+)"`).FindStringSubmatch(out)
	if ref == nil {
		t.Fatalf("run --json: no note of the counter:\n%s", out)
	}
	code, out, _ = runCLI(t, t.Context(), env, "board", "show", "--board", "costs", ref[1])
	if want := "\nusage: 1 requests · prompt 1000 (cached 0) · completion 0 · $0.0010\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("board show: exit %d, no line %q:\n%s", code, want, out)
	}

	code, _, stderr = runCLI(t, t.Context(), env, "run", "--cd", ws, "--board", "costs", "count the files")
	if want := regexp.MustCompile(`(?m)^── 3 requests · prompt 3000 .* · \$0\.0210 · tokens by agent`); code != 0 || !want.MatchString(stderr) {
		t.Errorf("run: exit %d; want a usage line matching %s:\n%s", code, want, stderr)
	}
}
