package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/llm/llmtest"
)

// Sizes of the budget tests: each model call is 1000 prompt tokens at
// $10 per million, $0.01; the limit is five calls' worth.
const (
	budgetDelegations = 24
	budgetCallCost    = 0.01
	budgetLimit       = "0.05"
	budgetPrice       = "models:\n  default:\n    price: {input: 10, output: 0}\n"
)

// budgetScenario answers every delegation with one model call that hands
// over at once, reporting 1000 prompt tokens and none completed.
func budgetScenario(t *testing.T, latency time.Duration) *llmtest.Server {
	t.Helper()
	sc, err := llmtest.Parse([]byte(fmt.Sprintf(`name: budget
steps:
  - id: item
    repeat: true
    latency: %s
    capture: {item: 'Task:\n(item-[0-9]+)'}
    usage: {prompt_tokens: 1000, cached_tokens: 0, completion_tokens: 0}
    reply:
      text: "Result of ${item}: done."
      tool_calls:
        - name: agent_exit
          arguments: {status: ok, conclusion: "${item} done"}
`, latency)), "budget")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := llmtest.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// budgetHost writes a host's home (config) and workspace and returns its
// environment and workspace.
func budgetHost(t *testing.T, root, name, config, notesRoot, model string) ([]string, string) {
	t.Helper()
	dir := filepath.Join(root, name)
	mkfile(t, filepath.Join(dir, "home", ".yagent", "config.yaml"), config)
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "YAGENT_HOME="+filepath.Join(dir, "home", ".yagent"),
		"YAGENT_NOTES_ROOT="+notesRoot, "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=", "YAGENT_MODEL=scripted", "TERM=dumb"), ws
}

// budgetPlan writes a plan of budgetDelegations delegations, the last
// four depending on the fifth from the end.
func budgetPlan(t *testing.T, root string) string {
	t.Helper()
	var plan strings.Builder
	plan.WriteString("delegations:\n")
	for i := range budgetDelegations {
		deps := ""
		if i >= budgetDelegations-4 { // dependants of a delegation the budget stops land degraded too
			deps = fmt.Sprintf(", depends_on: [item-%03d]", budgetDelegations-5)
		}
		fmt.Fprintf(&plan, "  - {id: item-%03d, agent: worker, task: 'item-%03d: hand it over.'%s}\n", i, i, deps)
	}
	path := filepath.Join(root, "plan.yaml")
	mkfile(t, path, plan.String())
	return path
}

// assertBudgetNotes checks board: one note per delegation, ok for those
// that ran (at least the limit's five, at most slack more: one running
// call per concurrent caller), degraded naming the budget for the rest.
func assertBudgetNotes(t *testing.T, notesRoot, board string, slack int) (ok int) {
	t.Helper()
	store := blackboard.Open(notesRoot)
	list, err := store.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	degraded := 0
	for _, m := range list.Notes {
		n, err := store.ReadNote(board, m.Ref)
		if err != nil {
			t.Fatal(err)
		}
		id := batch.KeyID(n.Handoff.Key)
		if seen[id] {
			t.Errorf("two notes for %s", id)
		}
		seen[id] = true
		switch n.Handoff.Status {
		case blackboard.StatusOK:
			ok++
		case blackboard.StatusDegraded:
			degraded++
			if !strings.Contains(n.Handoff.Reason, "--max-cost") || !strings.Contains(n.Handoff.Reason, "max_cost $0.0500") {
				t.Errorf("degraded note %s: reason %q does not name the budget", m.Ref, n.Handoff.Reason)
			}
		default:
			t.Errorf("note %s of %s: status %s (%s); want ok or degraded", m.Ref, id, n.Handoff.Status, n.Handoff.Reason)
		}
	}
	if len(seen) != budgetDelegations {
		t.Errorf("board %s: notes for %d delegations; want %d, one each", board, len(seen), budgetDelegations)
	}
	if ok < 5 || ok > 5+slack {
		t.Errorf("board %s: %d delegations ran; want 5 (the limit) to %d (one more call per concurrent caller)", board, ok, 5+slack)
	}
	if degraded != budgetDelegations-ok {
		t.Errorf("board %s: %d degraded notes; want %d", board, degraded, budgetDelegations-ok)
	}
	return ok
}

// TestBudgetAcrossWorkers: a batch over three River workers (real
// processes, one PostgreSQL) with --max-cost stops starting model calls
// at the limit — within one call per worker — lands a degraded note
// naming the budget for every delegation that did not run, and exits 1
// naming it. The workers charge the queue database's ledger.
func TestBudgetAcrossWorkers(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	dsn := pgtest.New(t)
	srv := budgetScenario(t, 200*time.Millisecond)
	root := t.TempDir()
	planFile := budgetPlan(t, root)
	notesRoot := filepath.Join(root, "notes")
	config := budgetPrice + "queue:\n  rescue_after: 1m\n  max_attempts: 3\n  concurrency: 1\n"
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var ws []*worker
	for i := range 3 {
		env, dir := budgetHost(t, root, fmt.Sprintf("worker%d", i), config, notesRoot, srv.URL())
		w := &worker{name: fmt.Sprintf("worker%d", i), cmd: exec.CommandContext(ctx, bin, "worker", "--queue", dsn, "--cd", dir)}
		w.cmd.Env, w.cmd.Stderr = env, &w.log
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	defer func() {
		for _, w := range ws {
			_ = w.cmd.Process.Signal(os.Interrupt)
		}
		for _, w := range ws {
			_ = w.cmd.Wait()
		}
	}()
	for _, w := range ws {
		w.waitFor(t, " at once, workspace ", 30*time.Second)
	}
	env, dir := budgetHost(t, root, "coordinator", config, notesRoot, srv.URL())
	cmd := exec.CommandContext(ctx, bin, "batch", planFile, "--queue", dsn, "--board", "budget-q", "--cd", dir, "--parallel", "6", "--max-cost", budgetLimit)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("batch: %v; want exit 1\n%s", err, tail(string(out), 3000))
	}
	if !strings.Contains(string(out), "--max-cost (max_cost $0.0500) exhausted") {
		t.Errorf("batch output does not name the budget:\n%s", tail(string(out), 3000))
	}
	ran := assertBudgetNotes(t, notesRoot, "budget-q", len(ws))
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var cost float64
	var calls int
	if err := conn.QueryRow(t.Context(), `SELECT cost, calls FROM yagent_budget_spend WHERE scope LIKE 'batch:%'`).Scan(&cost, &calls); err != nil {
		t.Fatalf("read the run's spend: %v", err)
	}
	if calls != ran || cost < 0.05-1e-9 || cost > 0.05+float64(len(ws))*budgetCallCost+1e-9 {
		t.Errorf("spent $%.4f in %d calls (%d delegations ran); want $0.05 to $%.2f, one call per delegation that ran", cost, calls, ran, 0.05+float64(len(ws))*budgetCallCost)
	}
}

// TestBudgetInProcess: the same plan run in this process, three at a
// time, stops at --max-cost likewise (the state database's ledger).
func TestBudgetInProcess(t *testing.T) {
	bin, err := exec.LookPath("yagent")
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	srv := budgetScenario(t, 100*time.Millisecond)
	root := t.TempDir()
	planFile := budgetPlan(t, root)
	notesRoot := filepath.Join(root, "notes")
	env, dir := budgetHost(t, root, "host", budgetPrice, notesRoot, srv.URL())
	cmd := exec.CommandContext(t.Context(), bin, "batch", planFile, "--board", "budget-local", "--cd", dir, "--parallel", "3", "--max-cost", budgetLimit)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("batch: %v; want exit 1\n%s", err, tail(string(out), 3000))
	}
	if !strings.Contains(string(out), "--max-cost (max_cost $0.0500) exhausted") {
		t.Errorf("batch output does not name the budget:\n%s", tail(string(out), 3000))
	}
	assertBudgetNotes(t, notesRoot, "budget-local", 3)
}

// TestBudgetRun: yagent run stops starting model calls at --max-cost —
// the director's second call is refused — and exits 1 naming the budget;
// budget.max_cost in the configuration does the same, and a flag raises
// it for one run.
func TestBudgetRun(t *testing.T) {
	sc, err := llmtest.Parse([]byte(`name: budget-run
steps:
  - id: look
    repeat: true
    match: {last_role: user}
    usage: {prompt_tokens: 1000, cached_tokens: 0, completion_tokens: 0}
    reply:
      text: "I will look around first."
      tool_calls:
        - {name: list_dir, arguments: {path: "."}}
  - id: answer
    repeat: true
    match: {last_role: tool}
    usage: {prompt_tokens: 1000, cached_tokens: 0, completion_tokens: 0}
    reply: {text: "The directory is empty."}
`), "budget-run")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := llmtest.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	home := t.TempDir()
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "YAGENT_MODEL": "scripted", "YAGENT_HOME": home}
	for _, c := range []struct {
		name, config string
		args         []string
		want         int
		stderr       string
	}{
		{"--max-cost", budgetPrice, []string{"--max-cost", "0.005"}, 1, `the budget of --max-cost \(max_cost \$0\.0050\) exhausted: spent \$0\.0100 and 1000 tokens in 1 model calls`},
		{"--max-tokens", budgetPrice, []string{"--max-tokens", "500"}, 1, `the budget of --max-tokens \(max_tokens 500\) exhausted`},
		{"budget.max_cost", budgetPrice + "budget:\n  max_cost: 0.005\n", nil, 1, `the budget of budget\.max_cost \(max_cost \$0\.0050\) exhausted`},
		{"raised by the flag", budgetPrice + "budget:\n  max_cost: 0.005\n", []string{"--max-cost", "1"}, 0, ``},
		{"no budget", budgetPrice, nil, 0, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			mkfile(t, filepath.Join(home, "config.yaml"), c.config)
			code, _, stderr := runCLI(t, t.Context(), env, append([]string{"run"}, append(c.args, "look around")...)...)
			if code != c.want || !regexp.MustCompile(c.stderr).MatchString(stderr) {
				t.Errorf("exit %d; want %d with stderr matching %q:\n%s", code, c.want, c.stderr, stderr)
			}
		})
	}
	// Each session's cost, from the ledger: one call stopped at the
	// limit ($0.01) or two that answered ($0.02).
	code, out, _ := runCLI(t, t.Context(), env, "sessions", "ls", "--all", "--json")
	if n1, n2 := strings.Count(out, `"cost_usd": 0.01,`), strings.Count(out, `"cost_usd": 0.02,`); code != 0 || n1 != 3 || n2 != 2 {
		t.Errorf("sessions ls: exit %d, %d sessions at $0.01 and %d at $0.02; want 3 and 2:\n%s", code, n1, n2, out)
	}
}

// TestBudgetPlanBadInput: a plan's budget that is negative, not a
// number, or an entry's above the plan's is refused before anything
// runs (exit 2), naming the fields (both of them for an entry above the
// plan's).
func TestBudgetPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, plan, stderr string
	}{
		{"entry above the plan", "budget: {max_cost: 1, max_tokens: 1000}\ndelegations:\n  - {id: a, agent: worker, task: t, budget: {max_cost: 2}}\n  - {id: b, agent: worker, task: t, budget: {max_tokens: 5000}}\n",
			`delegations\[0\]\.budget\.max_cost: \$2\.0000 is above the plan's budget\.max_cost \$1\.0000 \(line 1\)(?s:.*)delegations\[1\]\.budget\.max_tokens: 5000 is above the plan's budget\.max_tokens 1000`},
		{"negative", "budget: {max_cost: -1}\ndelegations:\n  - {id: a, agent: worker, task: t, budget: {max_tokens: -5}}\n",
			`plan\.yaml:1: budget\.max_cost: -1: want US dollars of 0 or more(?s:.*)delegations\[0\]\.budget\.max_tokens: -5: want tokens of 0 or more`},
		{"not a number", "budget: {max_cost: lots}\ndelegations:\n  - {id: a, agent: worker, task: t}\n", `plan\.yaml:1: .*max_cost.*lots`},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := filepath.Join(dir, "plan.yaml")
			mkfile(t, plan, c.plan)
			code, _, stderr := runCLI(t, t.Context(), nil, "batch", plan, "--board", "b")
			if code != 2 || !regexp.MustCompile(c.stderr).MatchString(stderr) {
				t.Errorf("exit %d; want 2 with stderr matching %q:\n%s", code, c.stderr, stderr)
			}
		})
	}
}
