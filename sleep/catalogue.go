package sleep

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/yagent/yagent/agents"
)

// Catalogue ceiling: 2 % of the window (in characters, ~4 per token), at
// most 16 000 characters, shared by the hidden tools and the toolsets.
const catalogueMaxChars = 16000

// CatalogueLimit returns the shared ceiling for a model window in tokens.
func CatalogueLimit(window int) int { return min(window*4*2/100, catalogueMaxChars) }

// Catalogue lists the hidden tools (name and one-line purpose) and the
// toolsets for the stable prefix, within limit characters; it says so
// when it had to cut.
func Catalogue(hidden []*agents.Tool, toolsets map[string][]string, limit int) string {
	if len(hidden) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[hidden tools] %d tools are hidden from this session's list to save room; tool_load NAME brings one back (from your next step), tool_find WORDS searches them:", len(hidden))
	cut := 0
	for i, t := range hidden {
		line := "\n- " + t.Name + ": " + firstLine(t.Description)
		if b.Len()+len(line) > limit-120 {
			cut = len(hidden) - i
			break
		}
		b.WriteString(line)
	}
	if len(toolsets) > 0 && cut == 0 {
		names := make([]string, 0, len(toolsets))
		for n := range toolsets {
			names = append(names, n)
		}
		sort.Strings(names)
		line := "\ntoolsets: " + strings.Join(names, ", ")
		if b.Len()+len(line) <= limit-120 {
			b.WriteString(line)
		}
	}
	if cut > 0 {
		fmt.Fprintf(&b, "\n… %d more hidden tools not listed (the catalogue is full): use tool_find", cut)
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if i := strings.Index(line, ". "); i > 0 && i < 160 {
		line = line[:i+1]
	}
	if len(line) > 160 {
		line = line[:157] + "…"
	}
	return line
}

// Arguments of tool_find and tool_load (schemas.json has their
// descriptions).
type (
	findIn struct {
		Query string `json:"query"`
	}
	loadIn struct {
		Name string `json:"name"`
	}
)

// FindTool returns tool_find over the turn's hidden tools (hidden reads
// them from the call's context: the running turn's).
func FindTool(hidden func(context.Context) []*agents.Tool) *agents.Tool {
	return agents.NewTool("tool_find", "curation", agents.Core|agents.LeadOnly, func(ctx context.Context, _ *agents.Call, a findIn) (agents.Result, error) {
		words := strings.Fields(strings.ToLower(a.Query))
		var b strings.Builder
		n := 0
		for _, t := range hidden(ctx) {
			hay := strings.ToLower(t.Name + " " + t.Family + " " + t.Description)
			for _, w := range words {
				if strings.Contains(hay, w) {
					fmt.Fprintf(&b, "%s: %s\n", t.Name, firstLine(t.Description))
					n++
					break
				}
			}
		}
		if n == 0 {
			return agents.Result{Content: "no hidden tool matches " + a.Query + " (the tools in your list are not hidden)", Summary: "0 matches"}, nil
		}
		b.WriteString("tool_load NAME brings one back.")
		return agents.Result{Content: b.String(), Summary: agents.Count(n, "match", "matches")}, nil
	})
}

// LoadTool returns tool_load: a hidden tool joins the turn's request from
// the next step; every load is counted (loads ≥ 2 keeps a tool visible at
// the next curation). Gated tools are not hidden tools: they cannot be
// loaded.
func LoadTool(hidden func(context.Context) []*agents.Tool, loaded func(context.Context) *agents.Loaded, count func(ctx context.Context, name string)) *agents.Tool {
	return agents.NewTool("tool_load", "curation", agents.Core|agents.LeadOnly, func(ctx context.Context, _ *agents.Call, a loadIn) (agents.Result, error) {
		for _, t := range hidden(ctx) {
			if t.Name == a.Name {
				if loaded(ctx).Add(t) && count != nil {
					count(ctx, t.Name)
				}
				return agents.Result{Content: "loaded " + t.Name + ": you can call it from your next step", Summary: "loaded " + t.Name}, nil
			}
		}
		return agents.ErrorResult("%q is not a hidden tool of this turn (tool_find searches them; tools already in your list need no loading)", a.Name), nil
	})
}
