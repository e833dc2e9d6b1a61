package sleep

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/yagent/yagent/agents"
)

// Expand resolves profile entries against tools: names, globs,
// family:NAME, and set:NAME toolsets expanded at read time (so edits of a
// toolset reach curated sessions); an empty or unknown toolset expands to
// nothing, never to everything.
func Expand(entries []string, tools []*agents.Tool, toolsets map[string][]string) map[string]bool {
	out := map[string]bool{}
	var walk func(entries []string, depth int)
	walk = func(entries []string, depth int) {
		for _, e := range entries {
			if set, ok := strings.CutPrefix(e, "set:"); ok {
				if depth < 4 {
					walk(toolsets[set], depth+1)
				}
				continue
			}
			for _, t := range tools {
				if fam, ok := strings.CutPrefix(e, "family:"); ok {
					if t.Family == fam {
						out[t.Name] = true
					}
					continue
				}
				if m, _ := path.Match(e, t.Name); m || e == t.Name {
					out[t.Name] = true
				}
			}
		}
	}
	walk(entries, 0)
	return out
}

// Always are the tools never hidden: the curation tools themselves.
var Always = []string{"tool_find", "tool_load"}

// Split divides a turn's reachable tools into those in context and those
// hidden. Before the first curation (or with an explicit toolset, the
// caller's business) everything reachable is in context.
func Split(p Profile, reachable []*agents.Tool, core []string, toolsets map[string][]string) (in, hidden []*agents.Tool) {
	if !p.Curated {
		return reachable, nil
	}
	keep := Expand(p.Visible, reachable, toolsets)
	for name := range Expand(append(append(slices.Clone(core), p.Pinned...), Always...), reachable, toolsets) {
		keep[name] = true
	}
	for _, t := range reachable {
		if keep[t.Name] || t.Flags.Has(agents.Core) {
			in = append(in, t)
		} else {
			hidden = append(hidden, t)
		}
	}
	return in, hidden
}

// TurnSplit is the split one turn applies, the director's and the
// overview's alike: with curation (applies: no explicit toolset, a kind
// that is curated) the profile's Split; without it everything reachable.
// When nothing ends up hidden, tool_find and tool_load are left out of the
// request — they would only cost room.
func TurnSplit(p Profile, reachable []*agents.Tool, core []string, toolsets map[string][]string, applies bool) (in, hidden []*agents.Tool) {
	in = reachable
	if applies {
		in, hidden = Split(p, reachable, core, toolsets)
	}
	if len(hidden) == 0 {
		in = slices.DeleteFunc(slices.Clone(in), func(t *agents.Tool) bool { return slices.Contains(Always, t.Name) })
	}
	return in, hidden
}

// PlanInput is what the safeguards judge a model's plan against.
type PlanInput struct {
	Reachable []*agents.Tool
	Old       Profile
	Proposed  []string // sleep_finish.visible
	Table     Table
	Core      []string
	Toolsets  map[string][]string
	MaxHide   int
}

// Plan is a plan after the safeguards.
type Plan struct {
	Visible        []string // the new stored decision (tool names)
	Added, Removed []string
	Status         string // ok, unchanged, dropped
	Notes          []string
}

// ApplySafeguards enforces in code what is not left to the model: an
// unknown name fails the whole plan; an empty plan keeps the set; loads ≥ 2
// stay; core and pinned are never hidden; on thin data the set only grows;
// at most MaxHide newly hidden (the higher-coverage ones come back first);
// a plan that leaves nothing is dropped.
func ApplySafeguards(in PlanInput) (Plan, error) {
	names := map[string]bool{}
	for _, t := range in.Reachable {
		names[t.Name] = true
	}
	for _, n := range in.Proposed {
		if !names[n] {
			return Plan{}, fmt.Errorf("the plan names %q, which is not a tool this session can reach: nothing applied", n)
		}
	}
	if len(in.Proposed) == 0 {
		return Plan{Status: "unchanged", Notes: []string{"empty plan: the set is already good"}}, nil
	}
	oldIn, _ := Split(in.Old, in.Reachable, in.Core, in.Toolsets)
	old := map[string]bool{}
	for _, t := range oldIn {
		old[t.Name] = true
	}
	next := map[string]bool{}
	for _, n := range in.Proposed {
		next[n] = true
	}
	var notes []string
	for n := range Expand(append(append(slices.Clone(in.Core), in.Old.Pinned...), Always...), in.Reachable, in.Toolsets) {
		if !next[n] {
			next[n] = true
			notes = append(notes, n+" kept: core or pinned")
		}
	}
	for _, t := range in.Reachable {
		if t.Flags.Has(agents.Core) && !next[t.Name] {
			next[t.Name] = true
			notes = append(notes, t.Name+" kept: core")
		}
	}
	coverage := map[string]int{}
	for _, r := range in.Table.Tools {
		coverage[r.Name] = lastOf(r.Coverage)
		if r.Loads >= 2 && !next[r.Name] {
			next[r.Name] = true
			notes = append(notes, fmt.Sprintf("%s kept: loaded back %d times since the last curation", r.Name, r.Loads))
		}
	}
	if in.Table.Thin() {
		for n := range old {
			if !next[n] {
				next[n] = true
				notes = append(notes, n+" kept: thin data, the set may only grow")
			}
		}
	}
	var hidden []string
	for n := range old {
		if !next[n] {
			hidden = append(hidden, n)
		}
	}
	if in.MaxHide > 0 && len(hidden) > in.MaxHide {
		sort.Slice(hidden, func(i, j int) bool {
			if coverage[hidden[i]] != coverage[hidden[j]] {
				return coverage[hidden[i]] > coverage[hidden[j]]
			}
			return hidden[i] < hidden[j]
		})
		back := hidden[:len(hidden)-in.MaxHide]
		for _, n := range back {
			next[n] = true
		}
		notes = append(notes, fmt.Sprintf("%d tools kept by the per-run cap of %d (highest coverage first): %s", len(back), in.MaxHide, strings.Join(back, ", ")))
	}
	p := Plan{Status: "ok", Notes: notes}
	for _, t := range in.Reachable {
		if next[t.Name] {
			p.Visible = append(p.Visible, t.Name)
			if !old[t.Name] {
				p.Added = append(p.Added, t.Name)
			}
		} else if old[t.Name] {
			p.Removed = append(p.Removed, t.Name)
		}
	}
	if !slices.ContainsFunc(p.Visible, func(n string) bool { return !slices.Contains(Always, n) }) {
		return Plan{Status: "dropped", Notes: []string{"the plan leaves the session with no tools but the curation ones"}}, nil
	}
	if len(p.Added) == 0 && len(p.Removed) == 0 {
		p.Status = "unchanged"
	}
	return p, nil
}
