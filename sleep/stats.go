package sleep

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Window is one report window of the statistics.
type Window struct {
	Days       int  `json:"days"`
	Turns      int  `json:"turns"`
	Messages   int  `json:"messages"`
	ActiveDays int  `json:"active_days"`
	Thin       bool `json:"thin"`
}

// ToolRow is one tool's usage per window.
type ToolRow struct {
	Name     string `json:"name"`
	Coverage []int  `json:"coverage"` // turns with at least one call, per window
	Calls    []int  `json:"calls"`    // calls, per window
	// Loads counts fetches back through tool_load since the last curation.
	Loads int `json:"loads"`
}

// Table is what the model sees, and what `yagent tools stats` prints.
type Table struct {
	Windows    []Window  `json:"windows"`
	Tools      []ToolRow `json:"tools"`
	TotalTurns int       `json:"total_turns"`
	SpanDays   int       `json:"span_days"`
}

// Thin reports whether the data as a whole is thin — the widest window
// holds fewer than thin_turns turns — and then the set may only grow.
// Narrower thin windows are marked for the model to weigh.
func (t Table) Thin() bool {
	return len(t.Windows) == 0 || t.Windows[len(t.Windows)-1].Thin
}

// Stats computes the table over the given tools (the reachable ones), with
// windows cut to the data's real span and thin ones marked.
func (s *Store) Stats(ctx context.Context, chatID string, tools []string, windows []int, thinTurns int, loadsSince time.Time) (Table, error) {
	now := s.Now().UTC()
	type turn struct {
		at       time.Time
		day      string
		messages int
	}
	turns := map[int]turn{}
	rows, err := s.DB.QueryContext(ctx, `SELECT turn, at, day, messages FROM turn_stats WHERE chat_id = ?`, chatID)
	if err != nil {
		return Table{}, fmt.Errorf("tool stats of %s: %w", chatID, err)
	}
	first := now
	for rows.Next() {
		var n, msgs int
		var at int64
		var day string
		if err := rows.Scan(&n, &at, &day, &msgs); err != nil {
			rows.Close()
			return Table{}, err
		}
		t := turn{at: time.UnixMilli(at).UTC(), day: day, messages: msgs}
		turns[n] = t
		if t.at.Before(first) {
			first = t.at
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Table{}, fmt.Errorf("tool stats of %s: %w", chatID, err)
	}
	calls := map[string]map[int]int{} // tool → turn → calls
	rows, err = s.DB.QueryContext(ctx, `SELECT turn, tool, calls FROM tool_stats WHERE chat_id = ?`, chatID)
	if err != nil {
		return Table{}, fmt.Errorf("tool stats of %s: %w", chatID, err)
	}
	for rows.Next() {
		var n, c int
		var tool string
		if err := rows.Scan(&n, &tool, &c); err != nil {
			rows.Close()
			return Table{}, err
		}
		if calls[tool] == nil {
			calls[tool] = map[int]int{}
		}
		calls[tool][n] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Table{}, fmt.Errorf("tool stats of %s: %w", chatID, err)
	}
	loads := map[string]int{}
	rows, err = s.DB.QueryContext(ctx, `SELECT tool, COUNT(*) FROM tool_loads WHERE chat_id = ? AND at > ? GROUP BY tool`, chatID, loadsSince.UnixMilli())
	if err != nil {
		return Table{}, fmt.Errorf("tool loads of %s: %w", chatID, err)
	}
	for rows.Next() {
		var tool string
		var n int
		if err := rows.Scan(&tool, &n); err != nil {
			rows.Close()
			return Table{}, err
		}
		loads[tool] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Table{}, fmt.Errorf("tool stats of %s: %w", chatID, err)
	}

	span := int(now.Sub(first).Hours()/24) + 1
	tab := Table{TotalTurns: len(turns), SpanDays: span}
	for _, days := range cutWindows(windows, span) {
		w := Window{Days: days}
		from := now.Add(-time.Duration(days) * 24 * time.Hour)
		active := map[string]bool{}
		for _, t := range turns {
			if t.at.After(from) {
				w.Turns++
				w.Messages += t.messages
				active[t.day] = true
			}
		}
		w.ActiveDays = len(active)
		w.Thin = w.Turns < thinTurns
		tab.Windows = append(tab.Windows, w)
	}
	for _, name := range tools {
		row := ToolRow{Name: name, Loads: loads[name]}
		for _, w := range tab.Windows {
			from := now.Add(-time.Duration(w.Days) * 24 * time.Hour)
			cov, n := 0, 0
			for turnNo, c := range calls[name] {
				if t, ok := turns[turnNo]; ok && t.at.After(from) {
					cov++
					n += c
				}
			}
			row.Coverage = append(row.Coverage, cov)
			row.Calls = append(row.Calls, n)
		}
		tab.Tools = append(tab.Tools, row)
	}
	slices.SortFunc(tab.Tools, func(a, b ToolRow) int {
		if c := lastOf(b.Coverage) - lastOf(a.Coverage); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return tab, nil
}

// cutWindows keeps the windows shorter than the data's span and replaces
// the longer ones by the span itself: with 20 days of data, [1 7 30]
// becomes [1 7 20] — never "a year: 0" where there is no year.
func cutWindows(windows []int, span int) []int {
	var out []int
	for _, w := range windows {
		if w > span {
			w = span
		}
		if w > 0 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

func lastOf(s []int) int {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

// Text renders the table as the model (and the person) reads it.
func (t Table) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "statistics over %d turns, %d days of data\n", t.TotalTurns, t.SpanDays)
	b.WriteString("window  turns  messages  active_days\n")
	for _, w := range t.Windows {
		thin := ""
		if w.Thin {
			thin = "  thin"
		}
		fmt.Fprintf(&b, "%3dd    %5d  %8d  %11d%s\n", w.Days, w.Turns, w.Messages, w.ActiveDays, thin)
	}
	b.WriteString("tool")
	for _, w := range t.Windows {
		fmt.Fprintf(&b, "  coverage/calls %dd", w.Days)
	}
	b.WriteString("  loads\n")
	for _, r := range t.Tools {
		b.WriteString(r.Name)
		for i, w := range t.Windows {
			fmt.Fprintf(&b, "  %d/%d turns, %d calls", r.Coverage[i], w.Turns, r.Calls[i])
		}
		fmt.Fprintf(&b, "  loads %d\n", r.Loads)
	}
	return b.String()
}
