package batch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/blackboard"
)

// TestParsePlanErrors pins strict decoding: YAML syntax, unknown keys,
// wrong types and extra documents are errors naming the file, the line
// and the field.
func TestParsePlanErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"syntax", "delegations:\n  - id: a\n    task: [unclosed\n", []string{"plan.yaml:3: YAML syntax: "}},
		{"unknown top key", "board: b\nparalel: 2\ndelegations: []\n", []string{`plan.yaml:2: unknown key "paralel" (known: board, parallel, merge, budget, until, max_rounds, delegations)`}},
		{"unknown delegation key", "delegations:\n  - id: a\n    agent: explorer\n    task: t\n    dependson: [b]\n",
			[]string{`plan.yaml:5: delegations[0]: unknown key "dependson" (known: id, agent, task, depends_on, context_refs, model, max_steps, isolation, budget, until, max_rounds)`}},
		{"wrong types, all listed", "parallel: many\ndelegations:\n  - id: a\n    depends_on: b\n    max_steps: lots\n",
			[]string{`plan.yaml:1: parallel: want an integer, got "many"`, `plan.yaml:4: delegations[0].depends_on: want a list such as [scan, review], got "b"`,
				`plan.yaml:5: delegations[0].max_steps: want an integer, got "lots"`}},
		{"list for a string", "delegations:\n  - id: [a]\n", []string{"plan.yaml:2: delegations[0].id: want a string, got a list"}},
		// A flow mapping puts every key on one line: the field is found by
		// its type, not as the first key on the line.
		{"string for a list in a flow mapping", "delegations:\n  - {id: a, agent: explorer, task: t}\n  - {id: b, agent: explorer, task: t, depends_on: a}\n",
			[]string{`plan.yaml:3: delegations[1].depends_on: want a list such as [scan, review], got "a"`}},
		{"list for a string in a flow mapping", "delegations:\n  - {agent: explorer, task: [t], id: a}\n", []string{"plan.yaml:2: delegations[0].task: want a string, got a list"}},
		// yaml.v3 alone would run these as 2 and 3.
		{"floats for integers", "parallel: 2.5\ndelegations:\n  - {id: a, agent: explorer, task: t, max_steps: 3.0}\n",
			[]string{"plan.yaml:1: parallel: want an integer, got 2.5", "plan.yaml:3: delegations[0].max_steps: want an integer, got 3.0"}},
		{"two documents", "delegations: []\n---\nboard: x\n", []string{"plan.yaml:2: more than one YAML document"}},
		{"empty", "", []string{"plan.yaml: empty plan"}},
		{"only a comment", "# nothing\n", []string{"plan.yaml: empty plan"}},
		{"not a mapping", "- id: a\n", []string{"plan.yaml:1: the top level must be a mapping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePlan([]byte(tt.src), "plan.yaml")
			if err == nil {
				t.Fatalf("ParsePlan(%q) = %+v, nil; want an error", tt.src, p)
			}
			var pe *PlanError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *PlanError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParsePlan(%q) error:\n%v\nwant it to contain %q", tt.src, err, w)
				}
			}
		})
	}
}

// TestReadPlan: a plan file that cannot be read is a *PlanError too (the
// person named it; the CLI exits 2), naming the file and the cause.
func TestReadPlan(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nosuch.yaml")
	_, err := ReadPlan(missing)
	var pe *PlanError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "invalid plan "+missing) || !strings.Contains(err.Error(), "cannot read it: no such file or directory") {
		t.Errorf("ReadPlan(%s) = %v; want a *PlanError naming it and the cause", missing, err)
	}
	good := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(good, []byte("delegations:\n  - {id: a, agent: explorer, task: t}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadPlan(good); err != nil || p.Name != good || len(p.Delegations) != 1 {
		t.Errorf("ReadPlan(%s) = %+v, %v", good, p, err)
	}
}

// TestValidatePlan pins each kind of plan problem, with its line and field.
func TestValidatePlan(t *testing.T) {
	store := blackboard.Open(filepath.Join(t.TempDir(), "notes"))
	onBoard, err := store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer"}, Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	env := PlanEnv{Catalog: builtinCatalog(t), Board: store, BoardID: "b", Models: []string{"default", "small"}}
	const head = "delegations:\n"
	tests := []struct {
		name string
		src  string
		want string // "" = valid
	}{
		{"valid", head + "  - {id: a, agent: explorer, task: t}\n  - {id: b, agent: reviewer, task: t, depends_on: [a], context_refs: [a, " + onBoard.Ref + "], model: small, max_steps: 3}\n", ""},
		{"transitive ref", head + "  - {id: a, agent: explorer, task: t}\n  - {id: b, agent: explorer, task: t, depends_on: [a]}\n  - {id: c, agent: explorer, task: t, depends_on: [b], context_refs: [a]}\n", ""},
		{"unknown agent", head + "  - {id: a, agent: explorr, task: t}\n", `plan.yaml:2: delegations[0].agent: unknown agent "explorr" (the catalog has: explorer, reviewer, worker; yagent agents ls)`},
		{"missing agent", head + "  - {id: a, task: t}\n", "plan.yaml:2: delegations[0]: missing agent"},
		{"missing id", head + "  - {agent: explorer, task: t}\n", "plan.yaml:2: delegations[0]: missing id"},
		{"bad id", head + "  - {id: a/b, agent: explorer, task: t}\n", `plan.yaml:2: delegations[0].id: bad id "a/b"`},
		{"duplicate id", head + "  - {id: a, agent: explorer, task: t}\n  - {id: a, agent: explorer, task: u}\n", `plan.yaml:3: delegations[1].id: duplicate id "a" (also delegations[0], line 2)`},
		{"missing task", head + "  - {id: a, agent: explorer}\n", "plan.yaml:2: delegations[0]: missing task"},
		{"unknown depends_on", head + "  - {id: a, agent: explorer, task: t, depends_on: [nope]}\n", `plan.yaml:2: delegations[0].depends_on[0]: unknown delegation "nope" (ids in this plan: a)`},
		{"self cycle", head + "  - {id: a, agent: explorer, task: t, depends_on: [a]}\n", "plan.yaml:2: delegations[0].depends_on: dependency cycle: a → a"},
		{"cycle", head + "  - {id: a, agent: explorer, task: t, depends_on: [c]}\n  - {id: b, agent: explorer, task: t, depends_on: [a]}\n  - {id: c, agent: explorer, task: t, depends_on: [b]}\n",
			"plan.yaml:2: delegations[0].depends_on: dependency cycle: a → c → b → a"},
		{"unknown ref", head + "  - {id: a, agent: explorer, task: t, context_refs: [scna]}\n", `plan.yaml:2: delegations[0].context_refs[0]: unknown ref "scna": neither a delegation id of this plan nor an {agent}/{stem} note ref`},
		{"ref not on board", head + "  - {id: a, agent: explorer, task: t, context_refs: [explorer/20200101T000000Z_abcd-1-000001]}\n", `unknown ref "explorer/20200101T000000Z_abcd-1-000001": there is no such note on board b`},
		{"malformed note ref", head + "  - {id: a, agent: explorer, task: t, context_refs: [explorer/latest]}\n", `delegations[0].context_refs[0]: bad note ref "explorer/latest"`},
		{"ref not a dependency", head + "  - {id: a, agent: explorer, task: t}\n  - {id: b, agent: explorer, task: t, context_refs: [a]}\n", `plan.yaml:3: delegations[1].context_refs[0]: "a" is not among the delegations b depends on: add it to depends_on`},
		{"ref to itself", head + "  - {id: a, agent: explorer, task: t, context_refs: [a]}\n", `"a" is this delegation itself`},
		{"unknown model", head + "  - {id: a, agent: explorer, task: t, model: huge}\n", `delegations[0].model: unknown model "huge" (configured: default, small)`},
		{"isolation", head + "  - {id: a, agent: worker, task: t, isolation: worktree}\n  - {id: b, agent: worker, task: t, isolation: none}\n", ""},
		{"bad isolation", head + "  - {id: a, agent: worker, task: t, isolation: copy}\n", `delegations[0].isolation: "copy": want none or worktree`},
		{"negative max_steps", head + "  - {id: a, agent: explorer, task: t, max_steps: -1}\n", "delegations[0].max_steps: -1: want 1 or more"},
		{"merge", "merge: auto\n" + head + "  - {id: a, agent: worker, task: t}\n", ""},
		{"merge manual", "merge: manual\n" + head + "  - {id: a, agent: worker, task: t}\n", ""},
		{"bad merge", "board: x\nmerge: always\n" + head + "  - {id: a, agent: worker, task: t}\n", "invalid plan plan.yaml (nothing was started):\n  plan.yaml:2: merge: \"always\": want manual or auto"},
		{"negative parallel", "parallel: -2\n" + head + "  - {id: a, agent: explorer, task: t}\n", "plan.yaml:1: parallel: -2: want 1 or more"},
		{"bad board", "board: ../escape\n" + head + "  - {id: a, agent: explorer, task: t}\n", `plan.yaml:1: board: invalid board id "../escape"`},
		{"no delegations", "board: x\n", "delegations: no delegations"},
		{"until", "until: test -f DONE\nmax_rounds: 3\n" + head + "  - {id: a, agent: worker, task: t}\n  - {id: b, agent: worker, task: t, until: make check, max_rounds: 2}\n", ""},
		{"entry until only", head + "  - {id: a, agent: worker, task: t, until: make check, max_rounds: 2}\n", ""},
		{"max_rounds of every entry's until", "max_rounds: 4\n" + head + "  - {id: a, agent: worker, task: t, until: make check}\n", ""},
		{"negative max_rounds", "until: x\nmax_rounds: -1\n" + head + "  - {id: a, agent: worker, task: t}\n", "plan.yaml:2: max_rounds: -1: want 1 or more rounds (default 10)"},
		{"negative entry max_rounds", "until: x\n" + head + "  - {id: a, agent: worker, task: t, max_rounds: 0}\n  - {id: b, agent: worker, task: t, max_rounds: -2}\n", "plan.yaml:4: delegations[1].max_rounds: -2: want 1 or more rounds"},
		{"empty until", "until: ''\n" + head + "  - {id: a, agent: worker, task: t}\n", "plan.yaml:1: until: empty check"},
		{"empty entry until", head + "  - {id: a, agent: worker, task: t, until: ' '}\n", "plan.yaml:2: delegations[0].until: empty check"},
		{"max_rounds without until", "max_rounds: 3\n" + head + "  - {id: a, agent: worker, task: t}\n", "plan.yaml:1: max_rounds: max_rounds bounds until"},
		{"entry max_rounds without until", head + "  - {id: a, agent: worker, task: t, max_rounds: 3}\n", "plan.yaml:2: delegations[0].max_rounds: max_rounds bounds until"},
		{"too many refs", head + "  - {id: a, agent: explorer, task: t}\n  - {id: b, agent: explorer, task: t, depends_on: [a], context_refs: [a, a, a, a, a, a, a, a, a, a, a]}\n", "11 refs: at most 10 notes are inlined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := parsePlan(t, tt.src).Validate(env)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate = %v; want a valid plan", err)
			case tt.want != "" && err == nil:
				t.Errorf("Validate = nil; want %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("Validate error:\n%v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// TestValidatePlanListsEveryProblem pins "all problems at once": one plan
// with six kinds of problem gets one error naming all six, in file order.
func TestValidatePlanListsEveryProblem(t *testing.T) {
	src := `parallel: 2
delegations:
  - id: scan
    agent: explorr
    task: List the packages.
  - id: scan
    agent: explorer
    task: Again.
  - id: review
    agent: reviewer
    task: Review.
    depends_on: [scna, loop]
    context_refs: [nothing]
  - id: loop
    agent: worker
    task: Spin.
    depends_on: [review]
`
	err := parsePlan(t, src).Validate(PlanEnv{Catalog: builtinCatalog(t)})
	var pe *PlanError
	if !errors.As(err, &pe) {
		t.Fatalf("Validate = %v; want a *PlanError", err)
	}
	want := []string{
		`plan.yaml:4: delegations[0].agent: unknown agent "explorr"`,
		`plan.yaml:6: delegations[1].id: duplicate id "scan"`,
		`plan.yaml:12: delegations[2].depends_on[0]: unknown delegation "scna"`,
		`plan.yaml:12: delegations[2].depends_on: dependency cycle: review → loop → review`,
		`plan.yaml:13: delegations[2].context_refs[0]: unknown ref "nothing"`,
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "invalid plan plan.yaml, 5 problems (nothing was started):") {
		t.Errorf("error header: %q", strings.SplitN(msg, "\n", 2)[0])
	}
	last := -1
	for _, w := range want {
		i := strings.Index(msg, w)
		if i < 0 {
			t.Errorf("error lacks %q:\n%s", w, msg)
			continue
		}
		if i < last {
			t.Errorf("%q is out of file order:\n%s", w, msg)
		}
		last = i
	}
}

// FuzzParsePlan: ParsePlan never panics; a plan it accepts validates
// without panicking; a valid plan's dependencies can be scheduled, each
// delegation exactly once.
func FuzzParsePlan(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "testdata", "batch", "*.yaml"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"delegations:\n  - {id: a, agent: explorer, task: t, depends_on: [b]}\n  - {id: b, agent: explorer, task: t, depends_on: [a]}\n",
		"delegations:\n  - &x {id: a, agent: explorer, task: t}\n  - *x\n",
		"board: [x\n", "parallel: 99999999999999999999\n", "delegations: {}\n", "- a\n", "---\n---\n",
		"delegations:\n  - {id: a, agent: explorer, task: t, context_refs: [explorer/20200101T000000Z_abcd-1-000001, a, '']}\n",
	} {
		f.Add([]byte(s))
	}
	catalog := builtinCatalog(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan(data, "fuzz.yaml")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := p.Validate(PlanEnv{Catalog: catalog}); err != nil {
			if !strings.HasPrefix(err.Error(), "invalid plan fuzz.yaml") {
				t.Fatalf("Validate error does not name the plan: %v", err)
			}
			return
		}
		b := newBatchRun(p, Options{}, "b")
		started := map[int]int{}
		for i := range p.Delegations {
			if b.waiting[i] == 0 {
				b.ready = append(b.ready, i)
			}
		}
		for len(b.ready) > 0 {
			i := b.ready[0]
			b.ready = b.ready[1:]
			started[i]++
			b.terminal[i] = true
			b.succeeded(i)
		}
		for i := range p.Delegations {
			if started[i] != 1 {
				t.Fatalf("valid plan: delegation %d scheduled %d times", i, started[i])
			}
		}
	})
}
