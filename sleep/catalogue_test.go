package sleep

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
)

// tool is a hidden tool of the given description.
func tool(t *testing.T, name, family, desc string) *agents.Tool {
	t.Helper()
	tl, err := agents.NewDynamicTool(agents.Tool{Name: name, Family: family, Description: desc, Schema: []byte(`{"type":"object"}`)},
		func(context.Context, *agents.Call) (agents.Result, error) { return agents.Result{Content: name}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// TestCatalogueLimit: 2 % of the window in characters (4 a token), at
// most 16 000.
func TestCatalogueLimit(t *testing.T) {
	for window, want := range map[int]int{1000: 80, 8000: 640, 100_000: 8000, 200_000: 16000, 2_000_000: 16000} {
		if got := CatalogueLimit(window); got != want {
			t.Errorf("CatalogueLimit(%d) = %d; want %d", window, got, want)
		}
	}
}

// TestCatalogue: the hidden tools, one line each with the first sentence
// of their description, then the toolsets — within the limit less 120
// characters of room, to the character: a line that just fits is listed,
// one character more cuts the list there and says how many are left (and
// then no toolsets). Nothing hidden, no catalogue.
func TestCatalogue(t *testing.T) {
	hidden := []*agents.Tool{
		tool(t, "maps_search", "mcp_maps", "Search places. Returns coordinates."),
		tool(t, "gh_issues", "mcp_gh", "List the issues of a repository."),
	}
	sets := map[string][]string{"web": {"fetch"}, "code": {"grep"}}
	head := "[hidden tools] 2 tools are hidden from this session's list to save room; tool_load NAME brings one back (from your next step), tool_find WORDS searches them:"
	l1, l2, ts := "\n- maps_search: Search places.", "\n- gh_issues: List the issues of a repository.", "\ntoolsets: code, web"
	full := head + l1 + l2 + ts
	if got := Catalogue(hidden, sets, 16000); got != full {
		t.Errorf("Catalogue =\n%s\nwant\n%s", got, full)
	}
	if got := Catalogue(nil, sets, 16000); got != "" {
		t.Errorf("Catalogue of nothing hidden = %q; want empty", got)
	}
	if got := Catalogue(hidden, nil, 16000); got != head+l1+l2 {
		t.Errorf("Catalogue without toolsets = %q", got)
	}
	for _, tc := range []struct {
		name  string
		limit int
		want  string
	}{
		{"all just fit", len(full) + 120, full},
		{"the toolsets do not fit", len(full) + 119, head + l1 + l2},
		{"the last tool just fits", len(head+l1+l2) + 120, head + l1 + l2},
		{"the last tool does not fit", len(head+l1+l2) + 119, head + l1 + "\n… 1 more hidden tools not listed (the catalogue is full): use tool_find"},
		{"no tool fits", len(head) + 120, head + "\n… 2 more hidden tools not listed (the catalogue is full): use tool_find"},
	} {
		if got := Catalogue(hidden, sets, tc.limit); got != tc.want {
			t.Errorf("%s (limit %d): Catalogue =\n%q\nwant\n%q", tc.name, tc.limit, got, tc.want)
		}
	}
}

// TestFirstLine: a catalogue line is the description's first line, cut
// after its first sentence when that ends within 160 characters, and at
// most 160 characters (157 and an ellipsis).
func TestFirstLine(t *testing.T) {
	long := strings.Repeat("x", 200)
	for in, want := range map[string]string{
		"One. Two.":                            "One.",
		"First line\nsecond line":              "First line",
		". starts with a dot":                  ". starts with a dot",
		strings.Repeat("a", 159) + ". more":    strings.Repeat("a", 159) + ".",
		strings.Repeat("a", 160) + ". more":    strings.Repeat("a", 157) + "…",
		strings.Repeat("b", 160):               strings.Repeat("b", 160),
		strings.Repeat("b", 161):               strings.Repeat("b", 157) + "…",
		long + "\nnext":                        strings.Repeat("x", 157) + "…",
		"No period at all but two words e.g.x": "No period at all but two words e.g.x",
	} {
		if got := firstLine(in); got != want {
			t.Errorf("firstLine(%.20q…) = %q; want %q", in, got, want)
		}
	}
}

// TestFindAndLoad: tool_find searches the turn's hidden tools by name,
// family and description, case-insensitively, each tool listed once
// however many words it matches; tool_load brings a hidden tool into the
// turn, counted once per turn; a tool that is not hidden cannot be loaded
// (nor counted).
func TestFindAndLoad(t *testing.T) {
	hidden := []*agents.Tool{
		tool(t, "maps_search", "mcp_maps", "Search places. Returns coordinates."),
		tool(t, "gh_issues", "mcp_gh", "List the issues of a repository."),
		tool(t, "gh_pulls", "mcp_gh", "List pull requests."),
	}
	find := FindTool(func(context.Context) []*agents.Tool { return hidden })
	run := func(tl *agents.Tool, args any) agents.Result {
		t.Helper()
		raw, _ := json.Marshal(args)
		r, err := tl.Run(t.Context(), &agents.Call{ID: "c", Name: tl.Name, Args: raw})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		query, want, summary string
	}{
		{"MCP_GH", "gh_issues: List the issues of a repository.\ngh_pulls: List pull requests.\ntool_load NAME brings one back.", "2 matches"},
		{"places coordinates search", "maps_search: Search places.\ntool_load NAME brings one back.", "1 match"},
		{"repository issues", "gh_issues: List the issues of a repository.\ntool_load NAME brings one back.", "1 match"},
		{"weather", "no hidden tool matches weather (the tools in your list are not hidden)", "0 matches"},
	} {
		r := run(find, findIn{Query: tc.query})
		if r.Content != tc.want || r.Summary != tc.summary || r.IsError {
			t.Errorf("tool_find %q = %q (%s); want %q (%s)", tc.query, r.Content, r.Summary, tc.want, tc.summary)
		}
	}

	loaded := &agents.Loaded{}
	var counted []string
	load := LoadTool(func(context.Context) []*agents.Tool { return hidden }, func(context.Context) *agents.Loaded { return loaded }, func(_ context.Context, n string) { counted = append(counted, n) })
	if r := run(load, loadIn{Name: "gh_pulls"}); r.IsError || !strings.Contains(r.Content, "loaded gh_pulls") {
		t.Errorf("tool_load gh_pulls = %+v", r)
	}
	run(load, loadIn{Name: "gh_pulls"}) // twice in a turn: one load
	if r := run(load, loadIn{Name: "read_file"}); !r.IsError || !strings.Contains(r.Content, `"read_file" is not a hidden tool`) {
		t.Errorf("tool_load of a tool not hidden = %+v; want an error", r)
	}
	if got := agents.Names(loaded.List()); !slices.Equal(got, []string{"gh_pulls"}) || !slices.Equal(counted, []string{"gh_pulls"}) {
		t.Errorf("loaded %v, counted %v; want gh_pulls once", got, counted)
	}
	// Without a counter (nothing records loads) a load still works.
	nocount := LoadTool(func(context.Context) []*agents.Tool { return hidden }, func(context.Context) *agents.Loaded { return loaded }, nil)
	if r := run(nocount, loadIn{Name: "maps_search"}); r.IsError || len(loaded.List()) != 2 {
		t.Errorf("tool_load without a counter = %+v, loaded %v", r, agents.Names(loaded.List()))
	}
}

// TestStartTool: chat_sleep_start curates this session now with the
// person's thresholds, reporting phases and the result (what came back,
// what was hidden, from when); a dry run says nothing applies; a sleep
// already running is an error result to try later, not a failed turn.
func TestStartTool(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	var phases []string
	start := StartTool(f.cur, func() string { return f.chatID }, func(p string) { phases = append(phases, p) })
	run := func(args string) (agents.Result, error) {
		return start.Run(t.Context(), &agents.Call{ID: "c", Name: "chat_sleep_start", Args: json.RawMessage(args)})
	}
	r, err := run(`{"dry_run":true}`)
	if err != nil || r.IsError || !strings.HasPrefix(r.Content, "curation ok: dry run, nothing applied: keep what is used (+0/−8 tools)\nhidden (tool_load brings any back): tool_04") ||
		strings.Contains(r.Content, "applies from the next turn") || r.Summary != "ok +0/−8 tools" || f.profile().Curated {
		t.Errorf("dry run = %+v, %v", r, err)
	}
	if len(phases) != 3 || phases[0] != "checking whether the tools still fit" || !strings.HasPrefix(phases[1], "asking the model") {
		t.Errorf("phases = %q", phases)
	}
	r, err = run(`{}`)
	if err != nil || !strings.HasSuffix(r.Content, "\nThe new list applies from the next turn.") || !f.profile().Curated {
		t.Errorf("run = %+v, %v", r, err)
	}
	if ok, err := f.cur.capture(t.Context(), f.chatID, true, false); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if r, err := run(`{}`); err != nil || !r.IsError || !strings.Contains(r.Content, "already running; try again later") {
		t.Errorf("over a running sleep = %+v, %v; want an error result", r, err)
	}
	f.db.Close()
	if r, err := run(`{}`); err == nil {
		t.Errorf("with the database gone = %+v; want the error", r)
	}
}

// TestReport: what a run says to the model and the person.
func TestReport(t *testing.T) {
	for _, tc := range []struct {
		r    Run
		want string
	}{
		{Run{Status: "skipped", Reason: "the reachable tools fit"}, "curation skipped: the reachable tools fit (+0/−0 tools)"},
		{Run{Status: "ok", Reason: "r", Added: []string{"a"}, Removed: []string{"b", "c"}},
			"curation ok: r (+1/−2 tools)\nback in the list: a\nhidden (tool_load brings any back): b, c\nThe new list applies from the next turn."},
		{Run{Status: "ok", Reason: "r", Added: []string{"a"}, DryRun: true}, "curation ok: r (+1/−0 tools)\nback in the list: a"},
		{Run{Status: "ok", Reason: "no change"}, "curation ok: no change (+0/−0 tools)"},
		{Run{Status: "dropped", Reason: "d", Removed: []string{"b"}}, "curation dropped: d (+0/−1 tools)\nhidden (tool_load brings any back): b"},
	} {
		if got := Report(tc.r); got != tc.want {
			t.Errorf("Report(%+v) =\n%q\nwant\n%q", tc.r, got, tc.want)
		}
	}
}

// TestRunningLatchInProcess: in one process a second run of a session
// whose dry run is still going is refused — the dry run holds no latch in
// the database, the curator's own does — and another session is not.
func TestRunningLatchInProcess(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_slow")
	f.patientClient()
	f.turns(20, 10, "read_file")
	other := f.another(20, 10, "read_file")
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		_, err := f.cur.Run(ctx, f.chatID, Options{DryRun: true, Manual: true})
		done <- err
	}()
	within(t, 20*time.Second, "the dry run asked the model", func() bool { return f.requestsFor("slow") == 1 })
	if _, err := f.cur.Run(t.Context(), f.chatID, Options{Manual: true}); !errors.Is(err, ErrRunning) {
		t.Errorf("a run during the dry run = %v; want ErrRunning", err)
	}
	octx, ocancel := context.WithCancel(t.Context())
	go func() {
		for deadline := time.Now().Add(20 * time.Second); f.requestsFor("slow") < 2 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		ocancel()
	}()
	if _, err := f.cur.Run(octx, other, Options{Manual: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("another session's run = %v; want it to run (then be cancelled)", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the dry run = %v", err)
	}
}
