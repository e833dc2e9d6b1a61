package sleep

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/toolspec"
)

// TestCurationUnderBudgetCallsNoModel: when the reachable tools fit the
// budget the stage does not run — no model call, no spend.
func TestCurationUnderBudgetCallsNoModel(t *testing.T) {
	f := newFixture(t, "interactive", 2, "case_hide_rare")
	f.cur.Config.Tools.BudgetPercent = 90
	f.turns(20, 10, "read_file")
	r := f.run(Options{})
	if r.Status != "skipped" || !strings.Contains(r.Reason, "the reachable tools fit") || len(f.srv.Requests()) != 0 {
		t.Errorf("run = %+v, %d model calls; want skipped without a call", r, len(f.srv.Requests()))
	}
}

func TestCurationHidesAndJournals(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file", "tool_00")
	r := f.run(Options{})
	if r.Status != "ok" || len(r.Removed) != 8 || r.Summary() != "+0/−8 tools" {
		t.Fatalf("run = %+v", r)
	}
	p := f.profile()
	if !p.Curated || !slices.Contains(p.Visible, "tool_00") || slices.Contains(p.Visible, "tool_11") {
		t.Errorf("profile = %+v", p)
	}
	runs, _ := f.st.Runs(t.Context(), f.chatID, 10)
	if len(runs) != 1 || runs[0].Summary() != "+0/−8 tools" || !strings.Contains(runs[0].Plan, "keep what is used") {
		t.Errorf("journal = %+v", runs)
	}
	// The request showed the statistics table with coverage per window.
	req := f.srv.Requests()[0].Messages[0].Content
	if !strings.Contains(req, "tool_00  1/1 turns") && !strings.Contains(req, "tool_00  2/2 turns") && !strings.Contains(req, "20/20 turns, 20 calls") {
		t.Errorf("the statistics are not in the request:\n%s", req)
	}
}

// TestCurationMaxHideCap: a plan hiding more than max_hide_per_night keeps
// the higher-coverage tools first.
func TestCurationMaxHideCap(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.cur.Config.Tools.MaxHidePerNight = 3
	f.turns(20, 10, "read_file")
	f.turns(10, 5, "tool_11", "tool_10") // higher coverage than the rest
	r := f.run(Options{})
	if len(r.Removed) != 3 || slices.Contains(r.Removed, "tool_11") || slices.Contains(r.Removed, "tool_10") {
		t.Errorf("removed %v; want 3, never the higher-coverage tool_10/tool_11", r.Removed)
	}
}

// TestCurationThinDataOnlyGrows: on thin data the set may only grow.
func TestCurationThinDataOnlyGrows(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.cur.Config.Tools.ThinTurns = 1000
	f.turns(20, 10, "read_file")
	r := f.run(Options{})
	if len(r.Removed) != 0 || f.profile().Curated && len(f.profile().Visible) < 14 {
		t.Errorf("thin data hid %v", r.Removed)
	}
}

// TestCurationLoadsKept: a tool loaded back twice since the last
// curation stays visible whatever the model says.
func TestCurationLoadsKept(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	f.st.RecordLoad(t.Context(), f.chatID, "tool_09")
	f.st.RecordLoad(t.Context(), f.chatID, "tool_09")
	r := f.run(Options{})
	if slices.Contains(r.Removed, "tool_09") || !slices.Contains(f.profile().Visible, "tool_09") {
		t.Errorf("tool_09 (2 loads) was hidden: %+v", r)
	}
}

// TestCurationUnknownNameAppliesNothing: one unknown name fails the whole
// plan.
func TestCurationUnknownNameAppliesNothing(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_unknown")
	f.turns(20, 10, "read_file")
	r := f.run(Options{})
	if r.Status != "failed" || !strings.Contains(r.Reason, `"no_such_tool"`) || f.profile().Curated {
		t.Errorf("run = %+v, profile curated %v", r, f.profile().Curated)
	}
}

// TestCurationEmptyPlanValid and a plan that leaves nothing is dropped.
func TestCurationEmptyAndNothing(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_empty")
	f.turns(20, 10, "read_file")
	if r := f.run(Options{}); r.Status != "ok" || !strings.HasPrefix(r.Reason, "no change") || f.profile().Curated {
		t.Errorf("empty plan = %+v", r)
	}
	g := newFixture(t, "interactive", 12, "case_nothing")
	g.cur.Config.Tools.Core = nil
	g.cur.Config.Tools.MaxHidePerNight = 100
	g.turns(20, 10, "read_file")
	if r := g.run(Options{}); r.Status != "dropped" || g.profile().Curated {
		t.Errorf("a plan leaving nothing = %+v", r)
	}
}

func TestCurationDryRunAppliesNothing(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	r := f.run(Options{DryRun: true})
	runs, _ := f.st.Runs(t.Context(), f.chatID, 1)
	if r.Status != "ok" || !r.DryRun || len(r.Removed) == 0 || f.profile().Curated || !runs[0].DryRun {
		t.Errorf("dry run = %+v, profile %+v", r, f.profile())
	}
}

func TestCurationSkips(t *testing.T) {
	f := newFixture(t, "subagent", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	if r := f.run(Options{}); r.Status != "skipped" || !strings.Contains(r.Reason, "kind subagent") {
		t.Errorf("sub-agent session = %+v", r)
	}
	g := newFixture(t, "interactive", 12, "case_hide_rare")
	g.turns(3, 10, "read_file")
	if r := g.run(Options{}); r.Status != "skipped" || !strings.Contains(r.Reason, "too little data") {
		t.Errorf("few turns = %+v", r)
	}
	h := newFixture(t, "interactive", 12, "case_hide_rare")
	if r := h.run(Options{}); r.Status != "skipped" || !strings.Contains(r.Reason, "no environment snapshot") {
		t.Errorf("never ran = %+v", r)
	}
	if len(f.srv.Requests())+len(g.srv.Requests())+len(h.srv.Requests()) != 0 {
		t.Error("a skipped run called the model")
	}
}

// TestCurationLatchAndCrash: a second run over a running one is refused
// (the latch); a crash between capture and finish loses nothing — the
// capture moved the due time by retry_after and the sleep runs again after
// it.
func TestCurationLatchAndCrash(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	// Simulate a process that captured the session and died.
	if ok, err := f.cur.capture(t.Context(), f.chatID, true); !ok || err != nil {
		t.Fatalf("capture = %v, %v", ok, err)
	}
	if _, err := f.cur.Run(t.Context(), f.chatID, Options{Manual: true}); err != ErrRunning {
		t.Fatalf("a second run over a captured session = %v; want ErrRunning", err)
	}
	if r, _ := f.cur.Run(t.Context(), f.chatID, Options{}); r.Status != "skipped" || r.Reason != "not due" {
		t.Errorf("a scheduled run during the capture = %+v", r)
	}
	f.now = f.now.Add(61 * time.Minute) // past retry_after: the dead capture expired
	r, err := f.cur.Run(t.Context(), f.chatID, Options{})
	if err != nil || r.Status != "ok" {
		t.Fatalf("the sleep after the crash = %+v, %v", r, err)
	}
	// After a run the next due time is an interval away, and min_gap keeps
	// a second scheduled run off.
	var next int64
	f.db.QueryRow(`SELECT next_sleep_at FROM chats WHERE id = ?`, f.chatID).Scan(&next)
	if due := time.UnixMilli(next).UTC(); !due.Equal(f.now.Add(24 * time.Hour)) {
		t.Errorf("next_sleep_at = %v; want %v", due, f.now.Add(24*time.Hour))
	}
}

// TestFirstNudgeOnlySchedules: a session never scheduled is not curated
// by its first nudge; the nudge only sets the due time.
func TestFirstNudgeOnlySchedules(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	set, err := f.cur.SetDueIfUnset(t.Context(), f.chatID)
	if err != nil || !set {
		t.Fatalf("SetDueIfUnset = %v, %v", set, err)
	}
	if set, _ := f.cur.SetDueIfUnset(t.Context(), f.chatID); set {
		t.Error("the due time was set twice")
	}
}

func TestCutWindows(t *testing.T) {
	if got := cutWindows([]int{1, 7, 30}, 20); !slices.Equal(got, []int{1, 7, 20}) {
		t.Errorf("cutWindows = %v", got)
	}
	if got := cutWindows([]int{1, 7, 30}, 1); !slices.Equal(got, []int{1}) {
		t.Errorf("cutWindows = %v", got)
	}
}

func TestExpandToolsets(t *testing.T) {
	f := newFixture(t, "interactive", 3)
	tools := f.reg.Reachable(GatesFrom(GateMaster)[0])
	sets := map[string][]string{"mine": {"tool_0*"}, "empty": {}, "nested": {"set:mine", "read_file"}}
	got := Expand([]string{"set:nested"}, tools, sets)
	if len(got) != 4 || !got["read_file"] || !got["tool_02"] {
		t.Errorf("Expand(set:nested) = %v", got)
	}
	if got := Expand([]string{"set:empty", "set:missing"}, tools, sets); len(got) != 0 {
		t.Errorf("an empty or unknown toolset expanded to %v; want nothing", got)
	}
}

// TestFinishInMatchesSchema pins sleep_finish's arguments struct to its
// schemas.json entry (the tools of a session are checked when they are
// built; this one is only sent in the curation call).
func TestFinishInMatchesSchema(t *testing.T) {
	if err := toolspec.CheckInput("sleep_finish", reflect.TypeFor[finishIn]()); err != nil {
		t.Error(err)
	}
}
