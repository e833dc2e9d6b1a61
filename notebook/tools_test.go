package notebook

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm"
)

// TestNotebookToolsQuietAndUneventful pins what the notebook tools' flags
// mean (seed 000 §0.25: quiet in the feeds, results uneventful), through
// the loop that reads them. Quiet: every call and result of a notebook
// tool reaches the event stream marked Quiet (printers and the TUI then
// leave them out and show the write as its own 📝 line, from onWrite);
// other tools' are not. Uneventful: a note saved beside each of three
// identical probe calls does not break their run — the third probe is
// stopped as a stall — and three identical saves in a row are not
// stopped: a notebook write is neither progress nor a repeat.
func TestNotebookToolsQuietAndUneventful(t *testing.T) {
	srv, client := scripted(t, "notebook-quiet")
	b, _, _ := newBook(t)
	if _, err := b.EnterTurn(t.Context()); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var writes []string
	tools := b.Tools(func(e Event) { mu.Lock(); writes = append(writes, e.Action+" "+e.Name); mu.Unlock() })
	for _, tl := range tools {
		if !tl.Flags.Has(agents.Quiet|agents.Uneventful|agents.LeadOnly|agents.MasterOnly) || tl.Family != "chat" {
			t.Errorf("%s: flags %b, family %s; want quiet, uneventful, lead and master only, family chat", tl.Name, tl.Flags, tl.Family)
		}
	}
	probe, err := agents.NewDynamicTool(agents.Tool{Name: "probe", Family: "test", Description: "Probe.", Schema: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		func(context.Context, *agents.Call) (agents.Result, error) {
			return agents.Result{Content: "probed", Summary: "probed"}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	quiet := map[string][]bool{} // tool → Quiet of each call and result event
	sink := agents.SinkFunc(func(e agents.Event) {
		if (e.Type == agents.EventToolCall || e.Type == agents.EventToolResult) && e.Tool != nil {
			mu.Lock()
			quiet[e.Tool.Name] = append(quiet[e.Tool.Name], e.Tool.Quiet)
			mu.Unlock()
		}
	})
	loop := &agents.Loop{Client: client, StallRepeats: 3, Events: sink}
	out, err := loop.Run(t.Context(), &agents.Agent{Name: "lead", System: "You are the lead [agent:lead].", Tools: append(tools, probe), MaxSteps: 10},
		nil, llm.Message{Role: llm.RoleUser, Content: "go"})
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	var results []string
	for _, m := range out.Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 11 {
		t.Fatalf("%d tool results; want 11: %q", len(results), results)
	}
	if results[0] != "probed" || results[2] != "probed" || !strings.Contains(results[4], "call number 3 of probe with the same arguments") {
		t.Errorf("probe results %q, %q, %q; want the third stopped as a stall despite the notes written between", results[0], results[2], results[4])
	}
	for _, i := range []int{1, 3, 5, 6, 7, 8} {
		if !strings.HasPrefix(results[i], "created note") && !strings.HasPrefix(results[i], "saved note") {
			t.Errorf("save %d = %q; want it run (a notebook write is never a stall)", i, results[i])
		}
	}
	if results[9] != "pinned note log" || results[10] != "deleted note plan" {
		t.Errorf("pin and delete = %q, %q", results[9], results[10])
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(writes) // an answer's calls run in parallel
	if want := "created log,created plan,deleted plan,pinned log,saved log,saved log,saved plan,saved plan"; strings.Join(writes, ",") != want {
		t.Errorf("writes shown = %q; want %q", strings.Join(writes, ","), want)
	}
	for name, qs := range quiet {
		for _, q := range qs {
			if q != (name != "probe") {
				t.Errorf("%s events Quiet = %v; want %v", name, qs, name != "probe")
				break
			}
		}
	}
	if len(quiet["chat_note_save"]) != 12 || len(quiet["chat_note_pin"]) != 2 || len(quiet["chat_note_delete"]) != 2 || len(quiet["probe"]) != 6 {
		t.Errorf("events per tool: %v", quiet)
	}
}
