package sleep

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestHandEdits pins what `yagent tools pin|set|reset|profile` do through
// the curator: a name the session cannot reach is refused with
// ErrUnknownTool and nothing is saved; set curates, reset uncurates and
// keeps the pins; the overview expands the visible entries with core and
// pinned tools, and counts only once the session ran a turn.
func TestHandEdits(t *testing.T) {
	f := newFixture(t, "interactive", 3)
	ctx, id := t.Context(), f.chatID
	if _, err := f.cur.Pin(ctx, id, []string{"tool_00", "no_such_tool"}, true); !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), `"no_such_tool"`) {
		t.Fatalf("pin of an unknown tool: %v; want ErrUnknownTool naming it", err)
	}
	if p := f.profile(); len(p.Pinned) != 0 {
		t.Fatalf("a refused pin saved %+v", p)
	}
	if _, err := f.cur.Pin(ctx, id, []string{"tool_00"}, true); err != nil {
		t.Fatal(err)
	}
	p, err := f.cur.SetVisible(ctx, id, []string{"tool_01", "family:none"})
	if err != nil || !p.Curated || !slices.Equal(p.Visible, []string{"tool_01", "family:none"}) || !slices.Equal(p.Pinned, []string{"tool_00"}) {
		t.Fatalf("set = %+v, %v", p, err)
	}
	v, err := f.cur.Overview(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"read_file", "tool_00", "tool_01", "tool_find", "tool_load"}; !slices.Equal(v.Effective, want) || v.Reachable != nil || v.InContext != nil {
		t.Errorf("overview before a turn = %+v (effective %v); want effective %v and no counts", v, v.Effective, want)
	}
	f.turns(1, 1, "read_file")
	// tool_find and tool_load are not counted: 4 reachable, tool_02 hidden.
	if v, err = f.cur.Overview(ctx, id); err != nil || v.Reachable == nil || *v.Reachable != 4 || *v.InContext != 3 {
		t.Errorf("overview after a turn = %+v, %v; want 4 reachable, 3 in context", v, err)
	}
	// Under an explicit toolset the counts are the toolset's, uncurated.
	f.cur.Toolsets = map[string][]string{"two": {"tool_01", "tool_02"}}
	if err := f.st.SaveEnv(ctx, id, Env{Access: "set:two", Gates: GateMaster, Window: 20000}); err != nil {
		t.Fatal(err)
	}
	if v, err = f.cur.Overview(ctx, id); err != nil || *v.Reachable != 2 || *v.InContext != 2 {
		t.Errorf("overview under --toolset = %d reachable, %d in context, %v; want 2 and 2", *v.Reachable, *v.InContext, err)
	}
	if p, err = f.cur.Edit(ctx, id, "reset", nil, false); err != nil || p.Curated || len(p.Visible) != 0 || !slices.Equal(p.Pinned, []string{"tool_00"}) {
		t.Errorf("reset = %+v, %v; want uncurated with the pin kept", p, err)
	}
	if got, want := p.EditText(id), "profile of "+id+": curated false, visible -, pinned tool_00 (from the next turn)\n"; got != want {
		t.Errorf("EditText = %q; want %q", got, want)
	}
}

// TestDamagedProfile: a stored profile that does not decode is an error,
// not a silently empty profile (which would uncurate the session), and
// reset rewrites it.
func TestDamagedProfile(t *testing.T) {
	f := newFixture(t, "interactive", 3)
	ctx := t.Context()
	if err := f.st.SaveProfile(ctx, f.chatID, Profile{Visible: []string{"tool_00"}, Curated: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ExecContext(ctx, `UPDATE tool_profiles SET visible = '["tool_00"' WHERE chat_id = ?`, f.chatID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Profile(ctx, f.chatID); err == nil || !strings.Contains(err.Error(), "yagent tools reset") {
		t.Fatalf("damaged profile read: %v; want an error saying how to repair it", err)
	}
	if _, err := f.cur.Reset(ctx, f.chatID); err != nil {
		t.Fatalf("reset of a damaged profile: %v", err)
	}
	if p := f.profile(); p.Curated {
		t.Errorf("after reset: %+v", p)
	}
}

// TestCurationReportsBookkeepingFailures: writes after the plan is
// applied (resetting the gates, releasing the latch) that fail do not fail
// the run, and are reported through Logf instead of being dropped.
func TestCurationReportsBookkeepingFailures(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file", "tool_00")
	var logged []string
	f.cur.Logf = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	for _, q := range []string{
		`CREATE TRIGGER no_env BEFORE UPDATE ON chat_turn_env BEGIN SELECT RAISE(ABORT, 'the disk says no'); END`,
		`CREATE TRIGGER no_release BEFORE UPDATE OF sleep_started ON chats WHEN NEW.sleep_started IS NULL BEGIN SELECT RAISE(ABORT, 'the disk says no'); END`,
	} {
		if _, err := f.db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	if r := f.run(Options{}); r.Status != "ok" {
		t.Fatalf("run = %+v; want ok", r)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "resetting the gates") || !strings.Contains(logged[1], "ending the sleep") {
		t.Errorf("logged %q; want the gates reset and the latch release reported", logged)
	}
}

// TestStatsAndUnpin: `yagent tools stats` is the table over the
// configured windows unless others are asked for (over every tool the
// session can name); it fails on a damaged profile rather than count
// loads since the wrong curation; unpinning removes exactly the pins
// named, and pinning twice pins once.
func TestStatsAndUnpin(t *testing.T) {
	f := newFixture(t, "interactive", 3)
	ctx, id := t.Context(), f.chatID
	f.turns(10, 20, "read_file")
	tab, err := f.cur.Stats(ctx, id, nil)
	if err != nil || len(tab.Windows) != 3 || tab.Windows[0].Days != 1 || tab.Windows[1].Days != 7 || tab.Windows[2].Days != 21 || len(tab.Tools) != 6 {
		t.Errorf("stats over the configured windows = %+v, %v; want 1, 7 and 21 days (the data's span), 6 tools", tab, err)
	}
	if tab, err = f.cur.Stats(ctx, id, []int{3}); err != nil || len(tab.Windows) != 1 || tab.Windows[0].Days != 3 {
		t.Errorf("stats over 3 days = %+v, %v", tab.Windows, err)
	}
	for _, step := range []struct {
		names []string
		on    bool
		want  []string
	}{
		{[]string{"tool_00", "tool_01", "tool_02"}, true, []string{"tool_00", "tool_01", "tool_02"}},
		{[]string{"tool_01"}, true, []string{"tool_00", "tool_01", "tool_02"}},
		{[]string{"tool_00"}, true, []string{"tool_00", "tool_01", "tool_02"}},
		{[]string{"tool_01"}, false, []string{"tool_00", "tool_02"}},
		{[]string{"tool_01"}, false, []string{"tool_00", "tool_02"}},
		{[]string{"tool_02", "tool_00"}, false, []string{}},
	} {
		p, err := f.cur.Pin(ctx, id, step.names, step.on)
		if err != nil || !slices.Equal(p.Pinned, step.want) || p.Curated {
			t.Errorf("pin %v %v = %+v, %v; want pinned %v, not curated", step.names, step.on, p, err, step.want)
		}
	}
	if _, err := f.db.ExecContext(ctx, `UPDATE tool_profiles SET pinned = '[' WHERE chat_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := f.cur.Stats(ctx, id, nil); err == nil {
		t.Error("stats over a damaged profile: no error")
	}
	if _, err := f.cur.Pin(ctx, id, []string{"tool_00"}, true); err == nil {
		t.Error("a pin over a damaged profile: no error")
	}
}
