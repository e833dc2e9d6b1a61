package agents

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
)

func TestLoopMultiStep(t *testing.T) {
	srv, client := scenario(t, "loop-multistep")
	w := demoWorkspace(t)
	rec := &Recorder{}
	var appended []llm.Message
	loop := &Loop{Client: client, Events: rec, Append: func(m llm.Message) error { appended = append(appended, m); return nil }}
	out, err := loop.Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("what is this module?"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	if out.Reason != ReasonAnswer || out.Final != "The module is example.com/demo and it has a main.go." || out.Steps != 3 {
		t.Errorf("outcome = reason %q final %q steps %d", out.Reason, out.Final, out.Steps)
	}
	// user, assistant(call), tool, assistant(call), tool, assistant(answer)
	roles := []llm.Role{}
	for _, m := range out.Messages {
		roles = append(roles, m.Role)
	}
	want := []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant}
	if !slices.Equal(roles, want) {
		t.Errorf("roles = %v; want %v", roles, want)
	}
	if len(appended) != len(out.Messages) {
		t.Errorf("Append saw %d messages; outcome has %d (each must be recorded as it happens)", len(appended), len(out.Messages))
	}
	if out.Usage.Requests != 3 || out.Usage.PromptTokens == 0 {
		t.Errorf("usage = %+v", out.Usage)
	}
	var types []EventType
	for _, e := range rec.Events() {
		if e.Type != EventTextDelta && e.Type != EventUsage {
			types = append(types, e.Type)
		}
	}
	wantTypes := []EventType{EventTurnStarted, EventToolCall, EventToolResult, EventToolCall, EventToolResult, EventTurnFinished}
	if !slices.Equal(types, wantTypes) {
		t.Errorf("events = %v; want %v", types, wantTypes)
	}
}

func TestLoopParallelToolCalls(t *testing.T) {
	srv, client := scenario(t, "parallel-tools")
	w := demoWorkspace(t)
	loop := &Loop{Client: client}
	a := &Agent{Name: "explorer", System: "[agent:explorer]", Tools: FSTools(w, ShellPolicy{}), MaxSteps: 40}
	out, err := loop.Run(t.Context(), a, nil, userMsg("look around"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	tools := out.Messages[2:5]
	ids := []string{}
	for _, m := range tools {
		ids = append(ids, m.ToolCallID)
	}
	calls := out.Messages[1].ToolCalls
	if len(calls) != 3 || ids[0] != calls[0].ID || ids[1] != calls[1].ID || ids[2] != calls[2].ID {
		t.Fatalf("tool results %v are not in call order %v", ids, calls)
	}
	// read_file and list_dir got extra arguments the schema forbids; grep
	// is valid. Each result says what it is.
	if !strings.Contains(tools[0].Content, "additional properties") || !strings.Contains(tools[2].Content, "additional properties") {
		t.Errorf("schema problems not reported: %q / %q", tools[0].Content, tools[2].Content)
	}
	if strings.HasPrefix(tools[1].Content, "error:") && !strings.Contains(tools[1].Content, "no matches") {
		t.Errorf("grep failed: %q", tools[1].Content)
	}
}

func TestLoopBadModelOutput(t *testing.T) {
	srv, client := scenario(t, "loop-bad-output")
	w := demoWorkspace(t)
	loop := &Loop{Client: client}
	out, err := loop.Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("go"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	res := out.Messages[2:6]
	wants := []string{
		`there is no tool "delete_everything" in this turn; the tools you have are: edit_file, glob, grep, list_dir, read_file, write_file`,
		"not valid JSON",
		"type",
		"additional properties",
	}
	for i, w := range wants {
		if !strings.HasPrefix(res[i].Content, "error: ") || !strings.Contains(res[i].Content, w) {
			t.Errorf("result %d = %q; want an error containing %q", i, res[i].Content, w)
		}
	}
	if out.Reason != ReasonAnswer {
		t.Errorf("reason = %q", out.Reason)
	}
}

// TestSubAgentNeverSeesLeadOnlyTool pins the registry gate: a LeadOnly tool
// is absent from a sub-agent's request and cannot be called by name.
func TestSubAgentNeverSeesLeadOnlyTool(t *testing.T) {
	srv, client := scenario(t, "loop-gates")
	ran := false
	secret, err := NewDynamicTool(Tool{Name: "secret_lead_tool", Family: "chat", Flags: LeadOnly | MasterOnly, Schema: []byte(`{"type":"object"}`)},
		func(context.Context, *Call) (Result, error) { ran = true; return Result{Content: "secret"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	w := demoWorkspace(t)
	reg := NewRegistry(append(FSTools(w, ShellPolicy{}), secret)...)
	if tools := reg.Reachable(Gates{Master: true}); !slices.Contains(Names(tools), "secret_lead_tool") {
		t.Fatal("the lead's master turn does not reach the tool")
	}
	sub := reg.Reachable(Gates{SubAgent: true, Master: true})
	if slices.Contains(Names(sub), "secret_lead_tool") {
		t.Fatal("a sub-agent turn reaches a LeadOnly tool")
	}
	out, err := (&Loop{Client: client}).Run(t.Context(), &Agent{Name: "sub", System: "[agent:sub]", Tools: sub, MaxSteps: 40, Depth: 1}, nil, userMsg("use the secret tool"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	if ran {
		t.Fatal("a sub-agent ran a LeadOnly tool by naming it")
	}
	for _, r := range srv.Requests() {
		if slices.Contains(r.Tools, "secret_lead_tool") {
			t.Fatalf("request %d declared the LeadOnly tool", r.N)
		}
	}
	if !strings.Contains(out.Messages[2].Content, `there is no tool "secret_lead_tool"`) {
		t.Errorf("result = %q", out.Messages[2].Content)
	}
}

func TestGates(t *testing.T) {
	mk := func(name, family string, f Flags) *Tool { return &Tool{Name: name, Family: family, Flags: f} }
	reg := NewRegistry(
		mk("read_file", "fs", Core), mk("write_file", "fs", Writes), mk("delegate", "director", LeadOnly),
		mk("chat_note_save", "chat", LeadOnly|MasterOnly), mk("chat_note_read", "chat", LeadOnly|MasterOnly|IndexedNotesOnly),
		mk("mcp_gh__issues", "mcp_gh", 0),
	)
	tests := []struct {
		name  string
		gates Gates
		want  []string
	}{
		{"lead master inline", Gates{Master: true}, []string{"chat_note_save", "delegate", "mcp_gh__issues", "read_file", "write_file"}},
		{"lead master index", Gates{Master: true, NotesIndexed: true}, []string{"chat_note_read", "chat_note_save", "delegate", "mcp_gh__issues", "read_file", "write_file"}},
		{"lead not master", Gates{}, []string{"delegate", "mcp_gh__issues", "read_file", "write_file"}},
		{"sub-agent", Gates{SubAgent: true, Master: true, NotesIndexed: true}, []string{"mcp_gh__issues", "read_file", "write_file"}},
		{"read-only sub-agent", Gates{SubAgent: true, ReadOnly: true}, []string{"mcp_gh__issues", "read_file"}},
		{"whitelist", Gates{SubAgent: true, Allow: []string{"read_file", "family:mcp_gh", "delegate"}}, []string{"mcp_gh__issues", "read_file"}},
		{"glob whitelist", Gates{Allow: []string{"mcp_*"}}, []string{"mcp_gh__issues"}},
	}
	for _, tt := range tests {
		if got := Names(reg.Reachable(tt.gates)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: reachable = %v; want %v", tt.name, got, tt.want)
		}
	}
}

func TestLoopStallCheck(t *testing.T) {
	srv, client := scenario(t, "loop-stall")
	w := demoWorkspace(t)
	out, err := (&Loop{Client: client, StallRepeats: 3}).Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("go"))
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
	if len(results) != 3 || strings.HasPrefix(results[1], "error") || !strings.Contains(results[2], "call number 3 of list_dir with the same arguments") {
		t.Errorf("results = %q; want the third identical call stopped", results)
	}
}

// TestLoopStallCheckSideBySide: four identical calls in one answer all
// run (they count once: the model has seen no result yet), and the same
// call is stopped in the third answer that repeats it.
func TestLoopStallCheckSideBySide(t *testing.T) {
	srv, client := scenario(t, "loop-stall-side-by-side")
	w := demoWorkspace(t)
	out, err := (&Loop{Client: client, StallRepeats: 3}).Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("go"))
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
	if len(results) != 6 {
		t.Fatalf("%d results %q; want 4 + 1 + 1", len(results), results)
	}
	for i, r := range results[:5] {
		if strings.Contains(r, "will not change") {
			t.Errorf("result %d = %q; want it run (copies in one answer count once)", i, r)
		}
	}
	if !strings.Contains(results[5], "call number 3 of list_dir with the same arguments") {
		t.Errorf("last result = %q; want the third answer's repeat stopped", results[5])
	}
}

// TestLoopStallCheckSkipsUneventful: results flagged Uneventful (the
// notebook's) do not count as progress — a notebook write beside each of
// three identical calls does not hide the stall — and they are not
// stall-checked themselves.
func TestLoopStallCheckSkipsUneventful(t *testing.T) {
	srv, client := scenario(t, "loop-stall-uneventful")
	w := demoWorkspace(t)
	jot, err := NewDynamicTool(Tool{Name: "jot", Family: "chat", Description: "Write a note.", Flags: Uneventful,
		Schema: []byte(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		func(context.Context, *Call) (Result, error) { return Result{Content: "noted"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&Loop{Client: client, StallRepeats: 3}).Run(t.Context(), leadAgent(append(FSTools(w, ShellPolicy{}), jot)), nil, userMsg("go"))
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
	if len(results) != 6 || !strings.Contains(results[4], "call number 3 of list_dir with the same arguments") || results[5] != "noted" {
		t.Errorf("results = %q; want the third list_dir stopped and every jot run", results)
	}
}

func TestLoopMaxStepsWrapUp(t *testing.T) {
	srv, client := scenario(t, "loop-max-steps")
	w := demoWorkspace(t)
	a := leadAgent(FSTools(w, ShellPolicy{}))
	a.MaxSteps = 2
	out, err := (&Loop{Client: client}).Run(t.Context(), a, nil, userMsg("go"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	if out.Reason != ReasonMaxSteps || out.Final != "Partial findings: go.mod names example.com/demo." || out.Steps != 3 {
		t.Errorf("outcome reason %q final %q steps %d", out.Reason, out.Final, out.Steps)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want 2 with tools and 1 wrap-up", len(reqs))
	}
	if !strings.Contains(string(reqs[2].Body), `"tool_choice":"none"`) {
		t.Errorf("wrap-up request did not set tool_choice none: %s", reqs[2].Body)
	}
}

func TestLoopCancelMidStream(t *testing.T) {
	srv, client := scenario(t, "loop-multistep")
	_ = srv
	ctx, cancel := context.WithCancel(t.Context())
	w := demoWorkspace(t)
	var appended []llm.Message
	loop := &Loop{Client: client, Events: SinkFunc(func(e Event) {
		if e.Type == EventTextDelta {
			cancel()
		}
	}), Append: func(m llm.Message) error { appended = append(appended, m); return nil }}
	start := time.Now()
	out, err := loop.Run(ctx, leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("go"))
	if !errors.Is(err, context.Canceled) || out.Reason != ReasonCancelled {
		t.Fatalf("Run = %v, reason %q; want context.Canceled", err, out.Reason)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("cancellation was not prompt")
	}
	// Whatever was recorded is whole: an answer is kept complete or not at
	// all, and no tool starts after the cancel.
	for _, m := range appended {
		if m.Role == llm.RoleAssistant && m.Content != "Reading go.mod first." {
			t.Errorf("a half-streamed answer was recorded: %q", m.Content)
		}
		if m.Role == llm.RoleTool && !strings.Contains(m.Content, "cancelled before it ran") {
			t.Errorf("a tool ran after the cancel: %q", m.Content)
		}
	}
}

// TestLoopStallCheckOff pins StallRepeats 0 = off (config's meaning of
// agents.stall_repeats: 0): the same call three times in a row all run.
func TestLoopStallCheckOff(t *testing.T) {
	srv, client := scenario(t, "loop-stall-off")
	w := demoWorkspace(t)
	out, err := (&Loop{Client: client, StallRepeats: 0}).Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("go"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	for _, m := range out.Messages {
		if m.Role == llm.RoleTool && strings.HasPrefix(m.Content, "error") {
			t.Errorf("result %q; want every identical call run with the stall check off", m.Content)
		}
	}
}

// TestLoopParallelToolsZeroIsUnbounded pins ParallelTools 0 = no bound
// (agents.parallel_tools: 0): nine calls that each wait for all the others
// run at once.
func TestLoopParallelToolsZeroIsUnbounded(t *testing.T) {
	srv, client := scenario(t, "loop-parallel-unbounded")
	var started sync.WaitGroup
	started.Add(9)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	rendezvous, err := NewDynamicTool(Tool{Name: "rendezvous", Schema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *Call) (Result, error) {
			started.Done()
			select {
			case <-all:
				return Result{Content: "met"}, nil
			case <-time.After(30 * time.Second): // generous: a loaded machine starts goroutines late
				return ErrorResult("alone: the calls did not run at once"), nil
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&Loop{Client: client, ParallelTools: 0}).Run(t.Context(), leadAgent([]*Tool{rendezvous}), nil, userMsg("meet"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	for _, m := range out.Messages {
		if m.Role == llm.RoleTool && m.Content != "met" {
			t.Errorf("result %q; want all nine calls running at once", m.Content)
		}
	}
}

// TestLoopHasNoDefaults pins that the loop takes resolved values and
// invents none: a step budget of 0 or a tail without a role is refused
// before any model call, naming what is missing.
func TestLoopHasNoDefaults(t *testing.T) {
	srv, client := scenario(t, "basic-text")
	tail := func(context.Context) (string, error) { return "tail", nil }
	a := leadAgent(nil)
	a.MaxSteps = 0
	if _, err := (&Loop{Client: client}).Run(t.Context(), a, nil, userMsg("hi")); err == nil || !strings.Contains(err.Error(), "step budget of 0") {
		t.Errorf("Run with MaxSteps 0 = %v; want an error naming the step budget", err)
	}
	if _, err := (&Loop{Client: client, Tail: tail}).Run(t.Context(), leadAgent(nil), nil, userMsg("hi")); err == nil || !strings.Contains(err.Error(), "tail role") {
		t.Errorf("Run with a tail and no tail role = %v; want an error naming agents.tail_role", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests; want none", n)
	}
}

// TestLoopAnswersThatAreNotAnswers: a final answer cut at the output limit
// ends the turn with reason length and a warning (the text is kept); an
// empty final answer is an error and is not recorded.
func TestLoopAnswersThatAreNotAnswers(t *testing.T) {
	_, client := scenario(t, "loop-answer-cut")
	rec := &Recorder{}
	loop := &Loop{Client: client, Events: rec}
	out, err := loop.Run(t.Context(), leadAgent(nil), nil, userMsg("write a long story"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != ReasonLength || out.Final != "Once upon a time there was a very long story that" {
		t.Errorf("cut answer: reason %q, final %q; want length and the text", out.Reason, out.Final)
	}
	var warned bool
	var finished string
	for _, e := range rec.Events() {
		switch e.Type {
		case EventNotice:
			warned = warned || strings.Contains(e.Text, "cut at the model's output limit (finish_reason length)")
		case EventTurnFinished:
			finished = e.Reason
		}
	}
	if !warned || finished != ReasonLength {
		t.Errorf("cut answer: warning %v, turn_finished reason %q; want a warning and length", warned, finished)
	}
	// A sub-agent's cut answer is a partial note that says why.
	if n := handoffFromOutcome("explorer", "t", out, nil, 5); n.Handoff.Status != "partial" || !strings.Contains(n.Handoff.Reason, "output limit") || !strings.Contains(n.Body, "Once upon a time") {
		t.Errorf("note of a cut answer: %+v", n)
	}

	var appended []llm.Message
	loop = &Loop{Client: client, Append: func(m llm.Message) error { appended = append(appended, m); return nil }}
	out, err = loop.Run(t.Context(), leadAgent(nil), nil, userMsg("say nothing"))
	if !errors.Is(err, ErrEmptyAnswer) || out.Reason != ReasonError {
		t.Errorf("empty answer: %v, reason %q; want ErrEmptyAnswer", err, out.Reason)
	}
	if len(appended) != 1 || appended[0].Role != llm.RoleUser {
		t.Errorf("empty answer recorded: %+v", appended)
	}
}

// TestRegistryNamesAreUnique: a second tool under a name the registry
// holds is refused and the first one stays (an MCP server's tool named
// like a built-in never replaces it, flags and gates included); a
// built-in registered twice is a defect of the build and panics.
func TestRegistryNamesAreUnique(t *testing.T) {
	first := &Tool{Name: "write_file", Family: "fs", Flags: Writes}
	reg := NewRegistry(first)
	if err := reg.Add(&Tool{Name: "write_file", Family: "mcp_evil", Flags: 0}); err == nil || !strings.Contains(err.Error(), "write_file") {
		t.Errorf("Add(a second write_file) = %v; want an error naming it", err)
	}
	if got, _ := reg.Get("write_file"); got != first {
		t.Errorf("Get(write_file) = %+v after a refused Add; want the first tool", got)
	}
	if got := Names(reg.Reachable(Gates{ReadOnly: true})); len(got) != 0 {
		t.Errorf("read-only turn reaches %v; want nothing (write_file is gated)", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustAdd of a duplicate built-in did not panic")
		}
	}()
	reg.MustAdd(&Tool{Name: "write_file"})
}
