package blackboard

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/termsafe"
)

// Render formats the handoff for a model or a person within budget runes
// (0 means no limit). When short of budget it drops Facts one by
// one from the end and says how many it dropped; it never cuts the
// Conclusion, which is what the note is for.
func (h *Handoff) Render(budget int) string {
	if budget <= 0 {
		budget = MaxRenderRunes
	}
	facts := h.Facts
	for {
		out := h.render(facts, len(h.Facts)-len(facts))
		if utf8.RuneCountInString(out) <= budget || len(facts) == 0 {
			return out
		}
		facts = facts[:len(facts)-1]
	}
}

func (h *Handoff) render(facts []string, dropped int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status: %s", h.Status)
	if h.Degraded != DegradedNone {
		fmt.Fprintf(&b, " (degraded: %s)", h.Degraded)
	}
	if h.Agent != "" {
		fmt.Fprintf(&b, "\nagent: %s", h.Agent)
	}
	if !h.Created.IsZero() {
		fmt.Fprintf(&b, "\ncreated: %s", h.Created.UTC().Format("2006-01-02 15:04:05Z"))
	}
	if h.Task != "" {
		fmt.Fprintf(&b, "\ntask: %s", h.Task)
	}
	fmt.Fprintf(&b, "\nconclusion: %s", h.Conclusion)
	if h.Reason != "" {
		fmt.Fprintf(&b, "\nreason: %s", h.Reason)
	}
	if h.Supersedes != "" {
		fmt.Fprintf(&b, "\nsupersedes: %s", h.Supersedes)
	}
	if len(facts) > 0 || dropped > 0 {
		b.WriteString("\nfacts:")
		for _, f := range facts {
			fmt.Fprintf(&b, "\n- %s", f)
		}
		if dropped > 0 {
			fmt.Fprintf(&b, "\n- (+%d more facts)", dropped)
		}
	}
	if len(h.Artifacts) > 0 {
		fmt.Fprintf(&b, "\nartifacts: %s", strings.Join(h.Artifacts, ", "))
	}
	if c := h.Change; c != nil {
		fmt.Fprintf(&b, "\nchange: %s, %s, %d files +%d -%d: %s", c.State, c.Branch, len(c.Files), c.Insertions, c.Deletions, strings.Join(c.Files, ", "))
	}
	return b.String()
}

// NoteUsage is what a delegation's own model calls used: the requests,
// their tokens and, when its model has a price, their cost in US dollars
// (the figure the budget ledger was charged).
type NoteUsage struct {
	Requests         int      `yaml:"requests" json:"requests"`
	PromptTokens     int      `yaml:"prompt_tokens" json:"prompt_tokens"`
	CachedTokens     int      `yaml:"cached_tokens" json:"cached_tokens"`
	CompletionTokens int      `yaml:"completion_tokens" json:"completion_tokens"`
	CostUSD          *float64 `yaml:"cost_usd,omitempty" json:"cost_usd,omitempty"`
}

// String is the usage line of board show and the web view: "3 requests ·
// prompt 1200 (cached 0) · completion 40 · $0.0123".
func (u *NoteUsage) String() string {
	s := fmt.Sprintf("%d requests · prompt %d (cached %d) · completion %d", u.Requests, u.PromptTokens, u.CachedTokens, u.CompletionTokens)
	if u.CostUSD != nil {
		s += fmt.Sprintf(" · $%.4f", *u.CostUSD)
	}
	return s
}

// Full is Render(0) for a person: with what the delegation used and cost
// ("usage: …") and the sub-agent session holding its history ("session:
// …"), which a model reading the note is not shown.
func (h *Handoff) Full() string {
	out := h.Render(0)
	if h.Usage != nil {
		out += "\nusage: " + h.Usage.String()
	}
	if h.Session != "" {
		out += "\nsession: " + h.Session
	}
	return out
}

// truncateRunes cuts s to at most n runes, ending with "…" when it cut.
func truncateRunes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// Shown is h for a person's terminal: every field rendered by text (the
// CLI's termsafe.Text: an escape is ␛, a carriage return ␍), and a field's
// next lines indented, so that no line of a task or a fact reads as
// another field.
func (h *Handoff) Shown(text func(string) string) *Handoff {
	field := func(s string) string { return strings.ReplaceAll(text(s), "\n", "\n  ") }
	list := func(l []string) []string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = field(s)
		}
		return out
	}
	c := *h
	c.Status = Status(field(string(h.Status)))
	c.Agent, c.Task, c.Conclusion, c.Reason = field(h.Agent), field(h.Task), field(h.Conclusion), field(h.Reason)
	c.Session, c.Supersedes = field(h.Session), field(h.Supersedes)
	c.Facts, c.Artifacts = list(h.Facts), list(h.Artifacts)
	return &c
}

// Table is `yagent board ls` for a person: a row per note, newest first,
// every field on its one line (refs and conclusions are model-chosen).
func (r ListResult) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tSTATUS\tCREATED\tBODY\tCONCLUSION")
	for _, m := range r.Notes {
		status := string(m.Status)
		var marks []string
		if m.Degraded != "" {
			marks = append(marks, string(m.Degraded))
		}
		if m.Oversized {
			marks = append(marks, "oversized")
		}
		if len(marks) > 0 {
			status += " (" + strings.Join(marks, ", ") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termsafe.Line(m.Ref), termsafe.Line(status), m.Created.Format(time.DateTime), brief.Bytes(int64(m.BodySize)), brief.Line(m.Conclusion, 80))
	}
	tw.Flush()
	return b.String()
}

// BoardsTable is `yagent board boards` for a person: one row a board.
func BoardsTable(boards []BoardInfo) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOARD\tNOTES\tNEWEST\tSIZE")
	for _, bi := range boards {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", termsafe.Line(bi.ID), bi.Notes, bi.Newest.Format(time.DateTime), brief.Bytes(bi.Bytes))
	}
	tw.Flush()
	return b.String()
}

// ChangesTable is `yagent changes ls` for a person: one row a note with
// a change.
func ChangesTable(notes []NoteMeta) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tSTATE\tFILES\tBRANCH")
	for _, m := range notes {
		c := m.Change
		fmt.Fprintf(tw, "%s\t%s\t%d +%d -%d\t%s\n", termsafe.Line(m.Ref), c.State, len(c.Files), c.Insertions, c.Deletions, termsafe.Line(c.Branch))
	}
	tw.Flush()
	return b.String()
}
