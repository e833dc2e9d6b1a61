package sleep

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm"
)

// TestThresholdsAtTheirBoundary: every threshold of a curation at its
// exact value — min_gap elapsed to the millisecond curates again, exactly
// min_turns turns are enough data, schemas costing exactly the budget fit
// (no curation), and a window of exactly thin_turns turns is not thin.
func TestThresholdsAtTheirBoundary(t *testing.T) {
	t.Run("min_gap", func(t *testing.T) {
		f := newFixture(t, "interactive", 12, "case_hide_rare")
		f.turns(20, 10, "read_file")
		f.setDue(f.now)
		if r, err := f.cur.Run(t.Context(), f.chatID, Options{}); err != nil || r.Status != "ok" {
			t.Fatalf("first curation = %+v, %v", r, err)
		}
		f.now = f.now.Add(20 * time.Hour) // min_gap exactly
		f.setDue(f.now)
		if r, err := f.cur.Run(t.Context(), f.chatID, Options{}); err != nil || r.Status != "ok" {
			t.Errorf("a due run exactly min_gap after a curation = %+v, %v; want a curation", r, err)
		}
	})
	t.Run("min_turns", func(t *testing.T) {
		f := newFixture(t, "interactive", 12, "case_hide_rare")
		f.turns(5, 10, "read_file") // min_turns is 5
		if r := f.run(Options{}); r.Status != "ok" {
			t.Errorf("exactly min_turns turns = %+v; want a curation", r)
		}
	})
	t.Run("budget", func(t *testing.T) {
		f := newFixture(t, "interactive", 12, "case_hide_rare")
		f.turns(20, 10, "read_file")
		f.cur.Config.Tools.BudgetPercent = 100
		cost := llm.EstimateTokens(nil, agents.Defs(f.cur.reachable(GateMaster, "")))
		for window, want := range map[int]string{cost: "skipped", cost - 1: "ok"} {
			if err := f.st.SaveEnv(t.Context(), f.chatID, Env{Gates: GateMaster, Window: window}); err != nil {
				t.Fatal(err)
			}
			if r := f.run(Options{DryRun: true}); r.Status != want {
				t.Errorf("schemas of %d tokens, a budget of %d: %+v; want %s", cost, window, r, want)
			}
		}
	})
	t.Run("thin_turns", func(t *testing.T) {
		f := newFixture(t, "interactive", 2)
		f.turns(8, 2, "read_file") // thin_turns is 8
		tab, err := f.st.Stats(t.Context(), f.chatID, []string{"read_file"}, []int{30}, 8, time.Time{})
		if err != nil || len(tab.Windows) != 1 || tab.Windows[0].Turns != 8 || tab.Windows[0].Thin || tab.Thin() {
			t.Errorf("a window of exactly thin_turns turns = %+v, %v; want not thin", tab.Windows, err)
		}
	})
}

// TestCurationSpend: a curation books what its call cost, once, with the
// call's own tokens; a skipped run and a call that failed before any
// token was counted book nothing.
func TestCurationSpend(t *testing.T) {
	for _, tc := range []struct {
		marker string
		turns  int
		status string
		want   []llm.Usage
	}{
		{"case_billed", 20, "ok", []llm.Usage{{PromptTokens: 10, CompletionTokens: 50}}},
		{"case_billed", 2, "skipped", nil},
		{"case_down", 20, "failed", nil},
	} {
		f := newFixture(t, "interactive", 12, tc.marker)
		f.turns(tc.turns, 10, "read_file")
		var booked []llm.Usage
		f.cur.Spend = func(_ context.Context, id string, u llm.Usage) {
			if id != f.chatID {
				t.Errorf("spend booked on %s; want %s", id, f.chatID)
			}
			booked = append(booked, llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens})
		}
		if r := f.run(Options{}); r.Status != tc.status || !slices.Equal(booked, tc.want) {
			t.Errorf("%s, %d turns: run %s (%s), booked %+v; want %s, %+v", tc.marker, tc.turns, r.Status, r.Reason, booked, tc.status, tc.want)
		}
	}
}

// TestCurationModel: the curation asks chat_sleep.tools.model when set,
// else the session's own model, as its snapshot recorded it.
func TestCurationModel(t *testing.T) {
	for _, cfg := range []string{"", "cheap"} {
		f := newFixture(t, "interactive", 12, "case_hide_rare")
		f.turns(20, 10, "read_file")
		if err := f.st.SaveEnv(t.Context(), f.chatID, Env{Gates: GateMaster, Window: 20000, Model: "big"}); err != nil {
			t.Fatal(err)
		}
		f.cur.Config.Tools.Model = cfg
		var asked []string
		client := f.cur.Client
		f.cur.Client = func(name string) (llm.Client, string, error) {
			asked = append(asked, name)
			return client(name)
		}
		want := cfg
		if want == "" {
			want = "big"
		}
		if r := f.run(Options{DryRun: true}); r.Status != "ok" || !slices.Equal(asked, []string{want}) {
			t.Errorf("chat_sleep.tools.model %q: run %+v asked %q; want %q", cfg, r, asked, want)
		}
	}
}

// TestPlanEdges: a plan that only brings tools back is a change (applied,
// not "no change"); hiding exactly max_hide_per_night needs no cap (and
// says nothing about one).
func TestPlanEdges(t *testing.T) {
	f := newFixture(t, "interactive", 6)
	reach := f.reg.Reachable(agents.Gates{Master: true})
	plenty := Table{Windows: []Window{{Days: 30, Turns: 50}}}
	old := Profile{Visible: []string{"read_file", "tool_00"}, Curated: true}
	plan, err := ApplySafeguards(PlanInput{Reachable: reach, Old: old, Proposed: []string{"read_file", "tool_00", "tool_01"}, Table: plenty})
	if err != nil || plan.Status != "ok" || !slices.Equal(plan.Added, []string{"tool_01"}) || len(plan.Removed) != 0 {
		t.Errorf("a plan bringing tool_01 back = %+v, %v; want ok, added tool_01", plan, err)
	}
	plan, err = ApplySafeguards(PlanInput{Reachable: reach, Proposed: []string{"read_file", "tool_00", "tool_01", "tool_02"}, Table: plenty, MaxHide: 3})
	if err != nil || len(plan.Removed) != 3 || slices.ContainsFunc(plan.Notes, func(n string) bool { return strings.Contains(n, "per-run cap") }) {
		t.Errorf("hiding exactly max_hide_per_night = %+v, %v; want 3 hidden, no cap note", plan, err)
	}
}

// TestStatsOrderAndRuns: the table lists the tools by coverage in the
// widest window, most covered first, then by name; a profile never
// curated has no curation time; the journal of one session holds its own
// runs only, the whole journal everyone's.
func TestStatsOrderAndRuns(t *testing.T) {
	f := newFixture(t, "interactive", 3, "case_hide_rare")
	f.turns(20, 10, "tool_02")
	f.turns(10, 5, "tool_00")
	tab, err := f.st.Stats(t.Context(), f.chatID, []string{"read_file", "tool_00", "tool_01", "tool_02"}, []int{30}, 8, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range tab.Tools {
		order = append(order, r.Name)
	}
	if want := []string{"tool_02", "tool_00", "read_file", "tool_01"}; !slices.Equal(order, want) {
		t.Errorf("table order = %v; want %v", order, want)
	}
	if _, err := f.cur.Pin(t.Context(), f.chatID, []string{"tool_00"}, true); err != nil {
		t.Fatal(err)
	}
	if p := f.profile(); !p.LastCurated.IsZero() {
		t.Errorf("a profile never curated says it was at %v", p.LastCurated)
	}
	other := f.another(20, 10, "read_file")
	f.run(Options{DryRun: true})
	if _, err := f.cur.Run(t.Context(), other, Options{Manual: true, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	mine, err1 := f.st.Runs(t.Context(), f.chatID, 10)
	all, err2 := f.st.Runs(t.Context(), "", 10)
	if err1 != nil || err2 != nil || len(mine) != 1 || mine[0].ChatID != f.chatID || len(all) != 2 || all[0].ChatID != other {
		t.Errorf("journal of one session = %+v, whole journal = %+v (%v, %v); want its one run, then both newest first", mine, all, err1, err2)
	}
}

// TestCurationAnswerChecked: the model's answer is checked against
// sleep_finish's schema before it is read — a call without its list is a
// failed run, not an empty plan (which would keep the set and count as a
// curation) — and an answer in prose is a failed run too. Nothing is
// applied either way.
func TestCurationAnswerChecked(t *testing.T) {
	for marker, want := range map[string]string{
		"case_malformed": "sleep_finish: ",
		"case_prose":     "the model did not answer with sleep_finish",
	} {
		f := newFixture(t, "interactive", 12, marker)
		f.turns(20, 10, "read_file")
		if r := f.run(Options{}); r.Status != "failed" || !strings.Contains(r.Reason, want) || f.profile().Curated {
			t.Errorf("%s: run %+v; want failed: %s…", marker, r, want)
		}
	}
}
