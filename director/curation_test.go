package director

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/sleep"
)

// TestCurationAtTheDirector drives a session with 120 extra tools through
// a sleep: the tool list changes only at the turn after the run; hidden
// tools are named in the catalogue and come back with tool_load from the
// next step (counted); gated tools never appear in the catalogue. It logs
// the request sizes before and after (the benchmark figure of the issue).
func TestCurationAtTheDirector(t *testing.T) {
	var extra []*agents.Tool
	for i := range 120 {
		name := fmt.Sprintf("extra_%03d", i)
		tool, err := agents.NewDynamicTool(agents.Tool{Name: name, Family: "mcp_big", Description: "Tool " + name + ": does one specific thing with the remote service, with options.",
			Schema: []byte(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for in the remote service."},"limit":{"type":"integer"}}}`)},
			func(context.Context, *agents.Call) (agents.Result, error) {
				return agents.Result{Content: name + " ran"}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, tool)
	}
	f := newFixture(t, "curation-director", func(c *config.Config) {
		c.ChatSleep.Tools.MinTurns = 3
		c.ChatSleep.Tools.ThinTurns = 3
		c.ChatSleep.Tools.MaxHidePerNight = 500
	}, extra...)
	for i := range 4 {
		if _, err := f.d.Turn(t.Context(), fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	run, err := f.d.cur.curator.Run(t.Context(), f.sess.ID(), sleep.Options{Manual: true})
	if err != nil || run.Status != "ok" || len(run.Removed) < 100 {
		t.Fatalf("sleep = %+v, %v", run, err)
	}
	if _, err := f.d.Turn(t.Context(), "plain turn after the sleep"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.d.Turn(t.Context(), "load please"); err != nil {
		t.Fatal(err)
	}
	f.srv.AssertDone(t)
	var turns [][]string
	var sizes []int
	var loadTurn []string
	for _, r := range f.srv.Requests() {
		if r.Agent != "director" {
			continue
		}
		last := r.Messages[len(r.Messages)-1].Content
		if r.StepID == "plain" || r.StepID == "load" {
			turns = append(turns, r.Tools)
			sizes = append(sizes, len(r.Body))
		}
		if r.StepID == "use" {
			loadTurn = r.Tools
		}
		_ = last
	}
	changes := 0
	for i := 1; i < len(turns); i++ {
		if !slices.Equal(turns[i], turns[i-1]) {
			changes++
			if i != 4 {
				t.Errorf("the tool list changed at turn %d; only the turn after the sleep (4) may change it", i)
			}
		}
	}
	if changes != 1 {
		t.Errorf("the tool list changed %d times; want once", changes)
	}
	t.Logf("request bytes per turn with 120 extra tools: before the sleep %d, after %d (%.0f%% smaller); %d tools → %d",
		sizes[3], sizes[4], 100*(1-float64(sizes[4])/float64(sizes[3])), len(turns[3]), len(turns[4]))
	if sizes[4] >= sizes[3]/2 {
		t.Errorf("curation did not shrink the request enough: %d → %d bytes", sizes[3], sizes[4])
	}
	after := turns[4]
	if slices.Contains(after, "extra_050") || !slices.Contains(after, "tool_load") || !slices.Contains(after, "extra_003") {
		t.Errorf("tools after the sleep = %v", after)
	}
	if !slices.Contains(loadTurn, "extra_050") {
		t.Errorf("the step after tool_load does not declare extra_050: %v", loadTurn)
	}
	// The catalogue names hidden tools and never a gated one.
	var system string
	for _, r := range f.srv.Requests() {
		if r.StepID == "load" {
			system = r.Messages[0].Content
		}
	}
	i := strings.Index(system, "[hidden tools]")
	if i < 0 {
		t.Fatal("no catalogue in the system prompt")
	}
	catalogue := system[i:]
	if !strings.Contains(catalogue, "- extra_050: Tool extra_050") || strings.Contains(catalogue, "chat_note_read") {
		t.Errorf("catalogue wrong:\n%s", catalogue)
	}
	table, _ := f.d.cur.store.Stats(t.Context(), f.sess.ID(), []string{"extra_050"}, []int{30}, 1, run.Finished)
	if table.Tools[0].Loads != 1 {
		t.Errorf("loads of extra_050 = %d; want 1", table.Tools[0].Loads)
	}
}
