package sleep

import (
	"context"
	"slices"
	"testing"

	"github.com/yagent/yagent/agents"
)

// gatedFixture adds to a fixture's registry a MasterOnly tool, one of
// index mode (IndexedNotesOnly) and one needing both, like
// chat_note_read.
func gatedFixture(t *testing.T, extra ...string) *fixture {
	t.Helper()
	f := newFixture(t, "interactive", 2, extra...)
	for name, flags := range map[string]agents.Flags{
		"master_tool": agents.MasterOnly, "indexed_tool": agents.IndexedNotesOnly, "note_read": agents.MasterOnly | agents.IndexedNotesOnly,
		// A tool of the registry named like the curation's own answer (a
		// person's tool could be): never counted as one of the session's.
		"sleep_finish": 0,
	} {
		tl, err := agents.NewDynamicTool(agents.Tool{Name: name, Family: "chat", Description: name, Flags: flags, Schema: []byte(`{"type":"object"}`)},
			func(context.Context, *agents.Call) (agents.Result, error) { return agents.Result{}, nil })
		if err != nil {
			t.Fatal(err)
		}
		f.reg.MustAdd(tl)
	}
	return f
}

// TestGatesAccumulated: the snapshot's gates are bits OR-ed over a
// curation cycle, and what counts as reachable is the union of what each
// gate seen admits — a session used in index mode once and inline since
// still reaches chat_note_read; a toolset limits the union.
func TestGatesAccumulated(t *testing.T) {
	f := gatedFixture(t)
	for _, g := range []agents.Gates{{}, {Master: true}, {NotesIndexed: true}, {Master: true, NotesIndexed: true}} {
		if got := GatesFrom(GatesOf(g)); !slices.ContainsFunc(got, func(h agents.Gates) bool { return h.Master == g.Master && h.NotesIndexed == g.NotesIndexed }) {
			t.Errorf("GatesFrom(GatesOf(%+v)) = %+v; want it among them", g, got)
		}
	}
	has := func(bits int, access string) map[string]bool {
		out := map[string]bool{}
		for _, tl := range f.cur.reachable(bits, access) {
			out[tl.Name] = true
		}
		return out
	}
	for _, tc := range []struct {
		bits   int
		access string
		want   map[string]bool // of master_tool, indexed_tool, note_read
	}{
		{0, "", map[string]bool{}},
		{GateMaster, "", map[string]bool{"master_tool": true}},
		{GateNotesIndexed, "", map[string]bool{"indexed_tool": true}},
		{GateMaster | GateNotesIndexed, "", map[string]bool{"master_tool": true, "indexed_tool": true, "note_read": true}},
	} {
		got := has(tc.bits, tc.access)
		for _, n := range []string{"master_tool", "indexed_tool", "note_read"} {
			if got[n] != tc.want[n] {
				t.Errorf("gates %b: %s reachable = %v; want %v", tc.bits, n, got[n], tc.want[n])
			}
		}
		if !got["read_file"] || got["sleep_finish"] {
			t.Errorf("gates %b: reachable %v; want read_file, never sleep_finish", tc.bits, got)
		}
	}
	f.cur.Toolsets = map[string][]string{"notes": {"note_read", "read_file"}}
	if got := agents.Names(f.cur.reachable(GateMaster|GateNotesIndexed, "set:notes")); !slices.Equal(got, []string{"note_read", "read_file"}) {
		t.Errorf("reachable under set:notes = %v; want note_read, read_file", got)
	}
	if got := f.cur.reachable(GateMaster|GateNotesIndexed, "set:missing"); len(got) != 0 {
		t.Errorf("reachable under an unknown toolset = %v; want nothing", agents.Names(got))
	}
}

// TestCurationGatesCycle: a curation judges the tools of every gate seen
// in the cycle (a plan keeping note_read, reachable only in index mode, is
// valid), and once it applied a plan the cycle starts afresh: the gates
// go back to the master bit alone. A dry run leaves them.
func TestCurationGatesCycle(t *testing.T) {
	f := gatedFixture(t, "case_gated")
	f.cur.Config.Tools.MaxHidePerNight = 100
	f.turns(20, 10, "read_file")
	if err := f.st.SaveEnv(t.Context(), f.chatID, Env{Gates: GateMaster | GateNotesIndexed, Window: 20000}); err != nil {
		t.Fatal(err)
	}
	r := f.run(Options{DryRun: true})
	if r.Status != "ok" || slices.Contains(r.Removed, "note_read") || !slices.Contains(r.Removed, "indexed_tool") {
		t.Fatalf("dry run = %+v; want note_read kept, indexed_tool hidden (both reachable only in index mode)", r)
	}
	if env, _, _ := f.st.LoadEnv(t.Context(), f.chatID); env.Gates != GateMaster|GateNotesIndexed {
		t.Fatalf("gates after a dry run = %b", env.Gates)
	}
	if r := f.run(Options{}); r.Status != "ok" {
		t.Fatalf("run = %+v", r)
	}
	if env, _, _ := f.st.LoadEnv(t.Context(), f.chatID); env.Gates != GateMaster || env.Window != 20000 {
		t.Errorf("snapshot after the curation = %+v; want the gates back to the master bit, the rest kept", env)
	}
}

// TestCoreFlagKept: a tool flagged Core (not named in
// chat_sleep.tools.core) is put back by the safeguards whatever the plan
// says, with a note saying why.
func TestCoreFlagKept(t *testing.T) {
	f := newFixture(t, "interactive", 3)
	core, err := agents.NewDynamicTool(agents.Tool{Name: "always_here", Family: "x", Description: "d", Flags: agents.Core, Schema: []byte(`{"type":"object"}`)},
		func(context.Context, *agents.Call) (agents.Result, error) { return agents.Result{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	f.reg.MustAdd(core)
	reach := f.reg.Reachable(agents.Gates{Master: true})
	plan, err := ApplySafeguards(PlanInput{Reachable: reach, Proposed: []string{"tool_00"}, Table: Table{Windows: []Window{{Days: 30, Turns: 50}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(plan.Visible, "always_here") || !slices.Contains(plan.Notes, "always_here kept: core") {
		t.Errorf("plan = %+v; want always_here kept, with a note", plan)
	}
	// And at a turn, whatever the stored profile says.
	in, hidden := Split(Profile{Visible: []string{"tool_00"}, Curated: true}, reach, nil, nil)
	if !slices.Contains(agents.Names(in), "always_here") || slices.Contains(agents.Names(hidden), "always_here") {
		t.Errorf("a turn's split = %v in context, %v hidden; want always_here in context", agents.Names(in), agents.Names(hidden))
	}
}

// TestTurnSplit: what one turn declares. Uncurated (or where curation
// does not apply: an explicit toolset, a skipped kind) everything
// reachable, and tool_find/tool_load only cost room then — they are left
// out; curated, the profile's split, the finders in the list beside the
// hidden ones.
func TestTurnSplit(t *testing.T) {
	f := newFixture(t, "interactive", 3)
	reach := f.reg.Reachable(agents.Gates{Master: true})
	curated := Profile{Visible: []string{"tool_00"}, Curated: true}
	for _, tc := range []struct {
		name      string
		p         Profile
		applies   bool
		in, hides []string
	}{
		{"uncurated", Profile{}, true, []string{"read_file", "tool_00", "tool_01", "tool_02"}, nil},
		{"curation does not apply", curated, false, []string{"read_file", "tool_00", "tool_01", "tool_02"}, nil},
		{"curated", curated, true, []string{"read_file", "tool_00", "tool_find", "tool_load"}, []string{"tool_01", "tool_02"}},
		{"curated, nothing hidden", Profile{Visible: []string{"tool_*"}, Curated: true}, true, []string{"read_file", "tool_00", "tool_01", "tool_02"}, nil},
	} {
		in, hidden := TurnSplit(tc.p, reach, []string{"read_file"}, nil, tc.applies)
		if !slices.Equal(agents.Names(in), tc.in) || !slices.Equal(agents.Names(hidden), tc.hides) {
			t.Errorf("%s: in %v, hidden %v; want %v, %v", tc.name, agents.Names(in), agents.Names(hidden), tc.in, tc.hides)
		}
	}
}

// TestExpandCycles: toolsets naming each other expand without end —
// nesting stops four deep — and a set naming itself still gives its own
// tools.
func TestExpandCycles(t *testing.T) {
	f := newFixture(t, "interactive", 3)
	tools := f.reg.Reachable(agents.Gates{Master: true})
	sets := map[string][]string{"a": {"set:b", "tool_00"}, "b": {"set:a", "tool_01"}, "self": {"set:self", "tool_02"},
		"d1": {"set:d2"}, "d2": {"set:d3"}, "d3": {"set:d4"}, "d4": {"set:d5", "tool_00"}, "d5": {"tool_01"}}
	got := Expand([]string{"set:a", "set:self"}, tools, sets)
	if len(got) != 3 || !got["tool_00"] || !got["tool_01"] || !got["tool_02"] {
		t.Errorf("Expand over cycles = %v", got)
	}
	if got := Expand([]string{"set:d1"}, tools, sets); len(got) != 1 || !got["tool_00"] {
		t.Errorf("Expand five deep = %v; want the fourth level's tool_00 only", got)
	}
}
