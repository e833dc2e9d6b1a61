package sleep

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
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

// TestCurationHidesAndJournals: a plan keeping four of twelve extra tools
// hides exactly the others the per-run cap allows (eight; the ninth comes
// back), stores the decision in the profile, journals the run with the
// model's plan and the safeguards' notes, and the one request showed the
// statistics: coverage and calls of every tool per window, the windows
// cut to the data's 11 days, the 1-day window marked thin.
func TestCurationHidesAndJournals(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file", "tool_00")
	r := f.run(Options{})
	hidden := []string{"tool_04", "tool_05", "tool_06", "tool_07", "tool_08", "tool_09", "tool_10", "tool_11"}
	if r.Status != "ok" || !slices.Equal(r.Removed, hidden) || len(r.Added) != 0 || r.Summary() != "+0/−8 tools" {
		t.Fatalf("run = %+v; want %v hidden", r, hidden)
	}
	p := f.profile()
	want := []string{"case_hide_rare", "read_file", "tool_00", "tool_01", "tool_02", "tool_03", "tool_find", "tool_load"}
	if !p.Curated || !slices.Equal(p.Visible, want) {
		t.Errorf("profile = %+v; want curated, visible %v", p, want)
	}
	runs, err := f.st.Runs(t.Context(), f.chatID, 10)
	if err != nil || len(runs) != 1 || runs[0].Status != "ok" || !slices.Equal(runs[0].Removed, hidden) ||
		!strings.Contains(runs[0].Plan, `"reason":"keep what is used"`) || !strings.Contains(runs[0].Plan, "kept by the per-run cap of 8 (highest coverage first): tool_03") {
		t.Errorf("journal = %+v, %v", runs, err)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Fatalf("%d model calls; want 1", n)
	}
	req := f.srv.Requests()[0].Messages[0].Content
	for _, line := range []string{
		"statistics over 20 turns, 11 days of data",
		"  1d        1         4            1  thin",
		"  7d       13        52            7\n",
		" 11d       20        80           10\n",
		"tool_00  1/1 turns, 1 calls  13/13 turns, 13 calls  20/20 turns, 20 calls  loads 0",
		"tool_11  0/1 turns, 0 calls  0/13 turns, 0 calls  0/20 turns, 0 calls  loads 0",
	} {
		if !strings.Contains(req, line) {
			t.Errorf("the request lacks %q:\n%s", line, req)
		}
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
	// Loads count since the last curation only: those before it were that
	// curation's evidence.
	last := f.profile().LastCurated
	tab, err := f.st.Stats(t.Context(), f.chatID, []string{"tool_09", "tool_10"}, []int{30}, 8, last)
	if err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(time.Hour)
	f.st.RecordLoad(t.Context(), f.chatID, "tool_10")
	after, err := f.st.Stats(t.Context(), f.chatID, []string{"tool_09", "tool_10"}, []int{30}, 8, last)
	if err != nil {
		t.Fatal(err)
	}
	loads := func(tab Table, name string) int {
		for _, r := range tab.Tools {
			if r.Name == name {
				return r.Loads
			}
		}
		return -1
	}
	if loads(tab, "tool_09") != 0 || loads(after, "tool_09") != 0 || loads(after, "tool_10") != 1 {
		t.Errorf("loads since the curation: tool_09 %d then %d, tool_10 %d; want 0, 0 and 1", loads(tab, "tool_09"), loads(after, "tool_09"), loads(after, "tool_10"))
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

// TestCurationDryRunAppliesNothing: a dry run writes its plan to the
// journal and touches nothing else (seed 001): no profile, no gates reset,
// and the schedule stays where it was — neither the next due time nor the
// latch move, so a dry run does not put off the session's curation. A
// real manual run after it does move the schedule.
func TestCurationDryRunAppliesNothing(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	if err := f.st.SaveEnv(t.Context(), f.chatID, Env{Gates: GateMaster | GateNotesIndexed, Window: 20000}); err != nil {
		t.Fatal(err)
	}
	due := f.now.Add(3 * time.Hour)
	f.setDue(due)
	r := f.run(Options{DryRun: true})
	runs, _ := f.st.Runs(t.Context(), f.chatID, 1)
	if r.Status != "ok" || !r.DryRun || len(r.Removed) == 0 || f.profile().Curated || len(runs) != 1 || !runs[0].DryRun || runs[0].Plan == "" {
		t.Errorf("dry run = %+v, profile %+v, journal %+v", r, f.profile(), runs)
	}
	if got := f.due(); !got.Equal(due) {
		t.Errorf("next curation after a dry run = %v; want it left at %v", got, due)
	}
	var started sql.NullInt64
	if err := f.db.QueryRow(`SELECT sleep_started FROM chats WHERE id = ?`, f.chatID).Scan(&started); err != nil || started.Valid {
		t.Errorf("sleep_started after a dry run = %v, %v; want NULL", started, err)
	}
	if env, _, _ := f.st.LoadEnv(t.Context(), f.chatID); env.Gates != GateMaster|GateNotesIndexed {
		t.Errorf("gates after a dry run = %b; want them left alone", env.Gates)
	}
	// A dry run while a sleep runs is refused like any other.
	if ok, err := f.cur.capture(t.Context(), f.chatID, true, false); !ok || err != nil {
		t.Fatalf("capture = %v, %v", ok, err)
	}
	if _, err := f.cur.Run(t.Context(), f.chatID, Options{DryRun: true, Manual: true}); err != ErrRunning {
		t.Errorf("a dry run over a running sleep = %v; want ErrRunning", err)
	}
	f.now = f.now.Add(2 * time.Hour) // the dead capture expired
	if r := f.run(Options{}); r.Status != "ok" || r.DryRun {
		t.Fatalf("the real run = %+v", r)
	}
	if got := f.due(); !got.Equal(f.now.Add(24 * time.Hour)) {
		t.Errorf("next curation after a real manual run = %v; want an interval later, %v", got, f.now.Add(24*time.Hour))
	}
}

// TestCurationSkips: a skipped kind, too few turns, no snapshot and an
// explicit toolset each skip the stage without a model call.
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
	// No curation under --toolset: the snapshot records the access.
	k := newFixture(t, "interactive", 12, "case_hide_rare")
	k.turns(20, 10, "read_file")
	if err := k.st.SaveEnv(t.Context(), k.chatID, Env{Access: "set:mine", Gates: GateMaster, Window: 20000}); err != nil {
		t.Fatal(err)
	}
	if r := k.run(Options{}); r.Status != "skipped" || !strings.Contains(r.Reason, "explicit toolset is active (set:mine)") || k.profile().Curated {
		t.Errorf("explicit toolset = %+v", r)
	}
	if len(f.srv.Requests())+len(g.srv.Requests())+len(h.srv.Requests())+len(k.srv.Requests()) != 0 {
		t.Error("a skipped run called the model")
	}
}

// TestCurationLatchAndCrash: a second run over a running one is refused
// (the latch), manual or scheduled; a crash between capture and finish
// loses nothing — the capture moved the due time by retry_after and the
// sleep runs again after it; a finished run sets the next due time an
// interval away.
func TestCurationLatchAndCrash(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	// Simulate a process that captured the session and died.
	if ok, err := f.cur.capture(t.Context(), f.chatID, true, false); !ok || err != nil {
		t.Fatalf("capture = %v, %v", ok, err)
	}
	if _, err := f.cur.Run(t.Context(), f.chatID, Options{Manual: true}); err != ErrRunning {
		t.Fatalf("a second run over a captured session = %v; want ErrRunning", err)
	}
	if r, _ := f.cur.Run(t.Context(), f.chatID, Options{}); r.Status != "skipped" || r.Reason != "not due" {
		t.Errorf("a scheduled run during the capture = %+v", r)
	}
	if due := f.due(); !due.Equal(f.now.Add(time.Hour)) {
		t.Errorf("due after the capture = %v; want retry_after (1h) later, %v", due, f.now.Add(time.Hour))
	}
	f.now = f.now.Add(61 * time.Minute) // past retry_after: the dead capture expired
	r, err := f.cur.Run(t.Context(), f.chatID, Options{})
	if err != nil || r.Status != "ok" {
		t.Fatalf("the sleep after the crash = %+v, %v", r, err)
	}
	if due := f.due(); !due.Equal(f.now.Add(24 * time.Hour)) {
		t.Errorf("next_sleep_at = %v; want an interval later, %v", due, f.now.Add(24*time.Hour))
	}
}

// TestCurationCancelledRetriesAfterRetryAfter: a due curation cut short —
// the end of a one-shot `yagent run` or `resume ID "…"` cancels it during
// its model call — is journaled as cancelled and due again retry_after
// (1 h) after its capture, not a whole interval later; it then runs.
func TestCurationCancelledRetriesAfterRetryAfter(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	f.setDue(f.now)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := f.cur.Run(ctx, f.chatID, Options{Progress: func(p string) {
		if strings.HasPrefix(p, "asking the model") {
			cancel() // the process ends while the curation call runs
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run = %v; want context.Canceled", err)
	}
	captured := f.now
	if due := f.due(); !due.Equal(captured.Add(time.Hour)) {
		t.Errorf("due after the cancelled sleep = %v; want retry_after (1h) after the capture, %v", due, captured.Add(time.Hour))
	}
	runs, _ := f.st.Runs(t.Context(), f.chatID, 10)
	if len(runs) != 1 || runs[0].Status != "cancelled" || f.profile().Curated {
		t.Errorf("journal = %+v; want one cancelled run and nothing applied", runs)
	}
	f.now = captured.Add(59 * time.Minute)
	if r, _ := f.cur.Run(t.Context(), f.chatID, Options{}); r.Status != "skipped" || r.Reason != "not due" {
		t.Errorf("a nudge before retry_after = %+v; want not due", r)
	}
	f.now = captured.Add(61 * time.Minute)
	if r, err := f.cur.Run(t.Context(), f.chatID, Options{}); err != nil || r.Status != "ok" || !f.profile().Curated {
		t.Errorf("the retry after retry_after = %+v, %v; want a curation", r, err)
	}
}

// TestCurationMinGap: min_gap (20 h) keeps a second scheduled curation off
// even when the session is due (a message at 23:59 and one at 00:05); past
// it the session is curated again. Manual runs ignore it.
func TestCurationMinGap(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	f.setDue(f.now)
	if r, err := f.cur.Run(t.Context(), f.chatID, Options{}); err != nil || r.Status != "ok" {
		t.Fatalf("first curation = %+v, %v", r, err)
	}
	first := f.now
	f.now = first.Add(19 * time.Hour)
	f.setDue(f.now)
	r, err := f.cur.Run(t.Context(), f.chatID, Options{})
	if err != nil || r.Status != "skipped" || !strings.Contains(r.Reason, "chat_sleep.min_gap") || len(f.srv.Requests()) != 1 {
		t.Errorf("a due run 19h after a curation = %+v, %v (%d model calls); want skipped by min_gap, no call", r, err, len(f.srv.Requests()))
	}
	f.now = first.Add(21 * time.Hour)
	f.setDue(f.now)
	if r, err := f.cur.Run(t.Context(), f.chatID, Options{}); err != nil || r.Status != "ok" || len(f.srv.Requests()) != 2 {
		t.Errorf("a due run 21h after a curation = %+v, %v; want a curation", r, err)
	}
}

// TestCoreAndPinnedNeverHidden pins both enforcement points: the plan's
// safeguards put core (chat_sleep.tools.core, the Core flag) and pinned
// tools back whatever the model answered, and a turn's split keeps them in
// context whatever the stored profile says (a hand-set list, an old one).
func TestCoreAndPinnedNeverHidden(t *testing.T) {
	f := newFixture(t, "interactive", 6)
	core := []string{"read_file"}
	pinned := []string{"tool_05"}
	reach := f.reg.Reachable(GatesFrom(GateMaster)[0])
	never := []string{"read_file", "tool_05", "tool_find", "tool_load"} // config core, pinned, Core flag
	t.Run("plan", func(t *testing.T) {
		plenty := Table{Windows: []Window{{Days: 30, Turns: 50}}} // not thin: the set may shrink
		plan, err := ApplySafeguards(PlanInput{Reachable: reach, Old: Profile{Pinned: pinned}, Proposed: []string{"tool_00"}, Core: core, Table: plenty})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range never {
			if !slices.Contains(plan.Visible, n) || slices.Contains(plan.Removed, n) {
				t.Errorf("the plan hid %s: visible %v, removed %v", n, plan.Visible, plan.Removed)
			}
		}
		if len(plan.Removed) != 4 {
			t.Errorf("removed %v; want tool_01…tool_04", plan.Removed)
		}
	})
	t.Run("turn", func(t *testing.T) {
		in, hidden := Split(Profile{Visible: []string{"tool_00"}, Pinned: pinned, Curated: true}, reach, core, nil)
		for _, n := range never {
			if !slices.Contains(agents.Names(in), n) || slices.Contains(agents.Names(hidden), n) {
				t.Errorf("the turn hid %s: in context %v", n, agents.Names(in))
			}
		}
		if len(hidden) != 4 {
			t.Errorf("hidden %v; want tool_01…tool_04", agents.Names(hidden))
		}
	})
}

// TestCurationToolsLeadOnly: tool_find and tool_load never reach a
// sub-agent's turn (it has no catalogue; the lead decides its tools).
func TestCurationToolsLeadOnly(t *testing.T) {
	f := newFixture(t, "interactive", 1)
	sub := agents.Names(f.reg.Reachable(agents.Gates{SubAgent: true, Master: true}))
	lead := agents.Names(f.reg.Reachable(agents.Gates{Master: true}))
	for _, n := range Always {
		if slices.Contains(sub, n) || !slices.Contains(lead, n) {
			t.Errorf("%s: in a sub-agent's turn %v, in the lead's %v; want the lead's only", n, slices.Contains(sub, n), slices.Contains(lead, n))
		}
	}
}

// TestUnknownCore: a core name that is no tool is reported; a tool of the
// registry, a curation tool and a built-in switched off by the
// configuration (chat_note_save without a notebook) are not.
func TestUnknownCore(t *testing.T) {
	f := newFixture(t, "interactive", 1)
	f.cur.Config.Tools.Core = []string{"read_file", "raed_file", "tool_find", "chat_note_save", "tool_00"}
	got := f.cur.UnknownCore()
	if len(got) != 1 || !strings.Contains(got[0], `"raed_file", which is not a tool: check the spelling`) {
		t.Errorf("UnknownCore = %q; want raed_file only", got)
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
	if got := cutWindows([]int{0, 30, 7, 7}, 20); !slices.Equal(got, []int{7, 20}) {
		t.Errorf("cutWindows([0 30 7 7], 20) = %v; want [7 20]: no empty window, none twice", got)
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
