package batch

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
)

// PlanError lists every problem of a plan, in file order. Nothing runs
// while a plan has one; the CLI maps it to exit code 2.
type PlanError struct {
	File     string
	Problems []PlanProblem
}

// PlanProblem is one problem at a line (0 when unknown) and a field such
// as delegations[2].depends_on[0] ("" for the whole plan).
type PlanProblem struct {
	Line  int
	Field string
	Msg   string
}

func (e *PlanError) Error() string {
	var b strings.Builder
	n := len(e.Problems)
	if n == 1 {
		fmt.Fprintf(&b, "invalid plan %s (nothing was started):", e.File)
	} else {
		fmt.Fprintf(&b, "invalid plan %s, %d problems (nothing was started):", e.File, n)
	}
	for _, p := range e.Problems {
		b.WriteString("\n  " + e.File)
		if p.Line > 0 {
			b.WriteString(":" + strconv.Itoa(p.Line))
		}
		if p.Field != "" {
			b.WriteString(": " + p.Field)
		}
		b.WriteString(": " + p.Msg)
	}
	return b.String()
}

// PlanEnv is what Validate checks a plan against. A nil field skips its
// check.
type PlanEnv struct {
	// Catalog holds the agents delegations may name.
	Catalog *agents.Catalog
	// Board and BoardID: every {agent}/{stem} ref in context_refs must name
	// a note on this board.
	Board   *blackboard.Store
	BoardID string
	// Models are the configured model names a delegation's model may use.
	Models []string
}

var planIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Validate reports every problem of the plan at once: missing, malformed
// or duplicate ids, unknown agents and models, unknown or cyclic
// dependencies, context_refs that name neither a delegation this one
// depends on nor a note on the board, and bad numbers. It never panics on
// a plan ParsePlan accepted.
func (p *Plan) Validate(env PlanEnv) error {
	var probs []PlanProblem
	add := func(line int, field, format string, args ...any) {
		probs = append(probs, PlanProblem{Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if p.Parallel < 0 {
		add(p.line("parallel"), "parallel", "%d: want 1 or more (or leave it out for the default)", p.Parallel)
	}
	p.checkPlanBudget(add)
	p.checkUntil(add)
	if p.Merge != "" && p.Merge != MergeManual && p.Merge != MergeAuto {
		add(p.line("merge"), "merge", "%q: want manual or auto (or leave it out: manual, the changes stay pending on the board)", p.Merge)
	}
	if p.Board != "" {
		if err := blackboard.CheckBoardID(p.Board); err != nil {
			add(p.line("board"), "board", "%v", err)
		}
	}
	if len(p.Delegations) == 0 {
		add(p.line("delegations"), "delegations", "no delegations: a plan needs at least one")
	}
	index := map[string]int{}
	var ids []string
	for i, d := range p.Delegations {
		at := fmt.Sprintf("delegations[%d]", i)
		switch {
		case d.ID == "":
			add(p.line("delegations", i), at, "missing id: give every delegation a short unique id, e.g. id: scan")
		case !planIDRe().MatchString(d.ID):
			add(p.line("delegations", i, "id"), at+".id", "bad id %q: use at most 64 letters, digits, '.', '_' or '-', starting with a letter or digit", d.ID)
		default:
			if j, dup := index[d.ID]; dup {
				add(p.line("delegations", i, "id"), at+".id", "duplicate id %q (also delegations[%d], line %d)", d.ID, j, p.line("delegations", j, "id"))
				break
			}
			index[d.ID] = i
			ids = append(ids, d.ID)
		}
		switch _, known := lookupAgent(env.Catalog, d.Agent); {
		case strings.TrimSpace(d.Agent) == "":
			add(p.line("delegations", i), at, "missing agent%s", catalogHint(env.Catalog))
		case !known:
			add(p.line("delegations", i, "agent"), at+".agent", "unknown agent %q%s", d.Agent, catalogHint(env.Catalog))
		}
		if strings.TrimSpace(d.Task) == "" {
			add(p.line("delegations", i), at, "missing task: say what the sub-agent should do and hand back")
		}
		if d.Isolation != "" && d.Isolation != "none" && d.Isolation != "worktree" {
			add(p.line("delegations", i, "isolation"), at+".isolation", "%q: want none or worktree (or leave it out: the agent's definition and agents.isolation decide)", d.Isolation)
		}
		if d.MaxSteps < 0 {
			add(p.line("delegations", i, "max_steps"), at+".max_steps", "%d: want 1 or more (or leave it out for the agent's own)", d.MaxSteps)
		}
		p.checkBudget(add, d, i, at)
		if d.Model != "" && env.Models != nil && !slices.Contains(env.Models, d.Model) {
			add(p.line("delegations", i, "model"), at+".model", "unknown model %q (configured: %s)", d.Model, strings.Join(env.Models, ", "))
		}
	}
	deps := make([][]int, len(p.Delegations))
	for i, d := range p.Delegations {
		for k, id := range d.DependsOn {
			j, ok := index[id]
			if !ok {
				add(p.line("delegations", i, "depends_on", k), fmt.Sprintf("delegations[%d].depends_on[%d]", i, k), "unknown delegation %q (ids in this plan: %s)", id, strings.Join(ids, ", "))
				continue
			}
			if !slices.Contains(deps[i], j) {
				deps[i] = append(deps[i], j)
			}
		}
	}
	for _, cycle := range dependencyCycles(deps) {
		names := make([]string, len(cycle)+1)
		for k, i := range cycle {
			names[k] = p.Delegations[i].ID
		}
		names[len(cycle)] = names[0]
		first := cycle[0]
		add(p.line("delegations", first, "depends_on"), fmt.Sprintf("delegations[%d].depends_on", first), "dependency cycle: %s (each depends on the next): no order can run them", strings.Join(names, " → "))
	}
	for i, d := range p.Delegations {
		if len(d.ContextRefs) > blackboard.MaxContextRefs {
			add(p.line("delegations", i, "context_refs"), fmt.Sprintf("delegations[%d].context_refs", i), "%d refs: at most %d notes are inlined, the rest would be dropped", len(d.ContextRefs), blackboard.MaxContextRefs)
		}
		var before map[int]bool
		for k, raw := range d.ContextRefs {
			ref := strings.TrimSpace(raw)
			at, line := fmt.Sprintf("delegations[%d].context_refs[%d]", i, k), p.line("delegations", i, "context_refs", k)
			if strings.Contains(ref, "/") {
				if _, err := blackboard.ParseNoteRef(ref); err != nil {
					add(line, at, "%v", err)
				} else if env.Board != nil && !noteExists(env.Board, env.BoardID, ref) {
					add(line, at, "unknown ref %q: there is no such note on board %s (yagent board ls --board %s)", ref, env.BoardID, env.BoardID)
				}
				continue
			}
			j, ok := index[ref]
			switch {
			case !ok:
				add(line, at, "unknown ref %q: neither a delegation id of this plan nor an {agent}/{stem} note ref", ref)
			case j == i:
				add(line, at, "%q is this delegation itself: its note does not exist before it runs", ref)
			default:
				if before == nil {
					before = ancestors(deps, i)
				}
				if !before[j] {
					add(line, at, "%q is not among the delegations %s depends on: add it to depends_on, or its note may not exist when %s starts", ref, d.ID, d.ID)
				}
			}
		}
	}
	if len(probs) == 0 {
		return nil
	}
	slices.SortStableFunc(probs, func(a, b PlanProblem) int { return cmp.Compare(a.Line, b.Line) })
	return &PlanError{File: p.Name, Problems: probs}
}

func lookupAgent(c *agents.Catalog, name string) (*agents.Definition, bool) {
	if c == nil {
		return nil, true
	}
	return c.Get(name)
}

func catalogHint(c *agents.Catalog) string {
	if c == nil {
		return ""
	}
	var names []string
	for _, d := range c.All() {
		names = append(names, d.Name)
	}
	return " (the catalog has: " + strings.Join(names, ", ") + "; yagent agents ls)"
}

func noteExists(store *blackboard.Store, board, ref string) bool {
	if board == "" {
		return false
	}
	_, _, err := store.ReadHandoff(board, ref)
	return err == nil
}

// ancestors returns every delegation i depends on, directly or not.
func ancestors(deps [][]int, i int) map[int]bool {
	seen := map[int]bool{}
	stack := slices.Clone(deps[i])
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[j] {
			continue
		}
		seen[j] = true
		stack = append(stack, deps[j]...)
	}
	return seen
}

// dependencyCycles returns one cycle per strongly connected component
// that has one (Tarjan), each starting at its first delegation in file
// order and following depends_on edges.
func dependencyCycles(deps [][]int) [][]int {
	n := len(deps)
	index, low := make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var comps [][]int
	next := 0
	var connect func(v int)
	connect = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range deps[v] {
			if index[w] < 0 {
				connect(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			comps = append(comps, comp)
		}
	}
	for v := range n {
		if index[v] < 0 {
			connect(v)
		}
	}
	var cycles [][]int
	for _, comp := range comps {
		start := slices.Min(comp)
		if len(comp) == 1 && !slices.Contains(deps[start], start) {
			continue
		}
		cycles = append(cycles, cycleThrough(deps, comp, start))
	}
	slices.SortFunc(cycles, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
	return cycles
}

// cycleThrough finds a shortest path start → … → start inside comp.
func cycleThrough(deps [][]int, comp []int, start int) []int {
	in := map[int]bool{}
	for _, v := range comp {
		in[v] = true
	}
	prev := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range deps[v] {
			if w == start {
				path := []int{v}
				for v != start {
					v = prev[v]
					path = append(path, v)
				}
				slices.Reverse(path)
				return path
			}
			if _, seen := prev[w]; !seen && in[w] {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []int{start}
}
