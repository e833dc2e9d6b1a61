package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/toolspec"
)

func agentCaller(t *testing.T, f *fixture, token string) kb.Caller {
	t.Helper()
	c, err := f.store.Authenticate(t.Context(), token)
	if err != nil {
		t.Fatal(err)
	}
	c.Client = "yagent"
	return c
}

// opened is an opener of an open store.
func opened(store *kb.Store, c kb.Caller) KBOpener {
	return func(context.Context) (KBBackend, kb.Caller, error) { return store, c, nil }
}

func runTool(t *testing.T, tool *agents.Tool, args string) agents.Result {
	t.Helper()
	r, err := toolspec.Compile(tool.Schema)
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", tool.Name, err)
	}
	if _, err := toolspec.ValidateWith(r, json.RawMessage(args)); err != nil {
		t.Fatalf("%s(%s): arguments rejected by its schema: %v", tool.Name, args, err)
	}
	res, err := tool.Run(t.Context(), &agents.Call{Name: tool.Name, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s(%s): %v", tool.Name, args, err)
	}
	return res
}

// TestKBToolsInProcess pins the agents' KB tools: family kb, names as in
// kb (list_notes, owned by the board, becomes kb_list_notes), Writes on
// write tools, every tool's schema compiles, calls go straight to the
// store as the given caller.
func TestKBToolsInProcess(t *testing.T) {
	f := newFixture(t)
	var names []string
	for _, ti := range kb.Tools() {
		names = append(names, ti.Name)
	}
	tools, err := KBTools(opened(f.store, agentCaller(t, f, f.write)), KBToolsOptions{Names: names, Project: "acme/web"})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*agents.Tool{}
	for i, tool := range tools {
		ti := kb.Tools()[i]
		if tool.Family != "kb" || tool.Name != AgentToolName(ti.Name) || tool.Description != ti.Description {
			t.Errorf("tool %d = %s (family %s); want %s of family kb with kb's description", i, tool.Name, tool.Family, ti.Name)
		}
		if tool.Flags.Has(agents.Writes) == ti.ReadOnly {
			t.Errorf("%s: Writes flag %v; kb says read-only %v", tool.Name, tool.Flags.Has(agents.Writes), ti.ReadOnly)
		}
		if _, err := toolspec.Compile(tool.Schema); err != nil {
			t.Errorf("%s: schema: %v", tool.Name, err)
		}
		byName[tool.Name] = tool
	}
	if byName["list_notes"] != nil || byName["kb_list_notes"] == nil {
		t.Error("kb's list_notes must be registered as kb_list_notes (the board owns list_notes)")
	}
	// The project argument defaults to kb.project.
	res := runTool(t, byName["remember_about_project"], `{"category":"conventions","observation":"Tabs, not spaces."}`)
	if res.IsError || res.Summary != "remembered" {
		t.Fatalf("remember_about_project without project = %+v", res)
	}
	res = runTool(t, byName["recall"], `{"topic":"tabs"}`)
	if res.IsError || !strings.Contains(res.Content, "Tabs, not spaces.") {
		t.Errorf("recall = %+v; want the memory", res)
	}
	res = runTool(t, byName["kb_list_notes"], `{}`)
	if res.IsError || !strings.Contains(res.Content, `"project":"acme/web"`) {
		t.Errorf("kb_list_notes without project = %+v; want acme/web", res)
	}
	// Mistakes are results; the store's failures are errors.
	if res := runTool(t, byName["get_note"], `{"ref":"n404"}`); !res.IsError {
		t.Errorf("get_note of a missing note = %+v; want an error result", res)
	}
	f.store.Close()
	if _, err := byName["whoami"].Run(t.Context(), &agents.Call{Name: "whoami", Args: json.RawMessage(`{}`)}); err == nil {
		t.Error("whoami on a closed store: want an infrastructure error")
	}
	if _, err := KBTools(opened(f.store, kb.Caller{}), KBToolsOptions{Names: []string{"recal"}}); !errors.Is(err, ErrUnknownKBTool) || !strings.Contains(err.Error(), `no knowledge-base tool "recal"`) {
		t.Errorf("unknown tool name: err = %v; want ErrUnknownKBTool naming it", err)
	}
}

// TestKBToolsNoProjectConfigured pins "no silent default project": with
// kb.project empty, a call that needs a project, or a write naming one,
// is refused with a message saying to set kb.project; reads across
// projects still work.
func TestKBToolsNoProjectConfigured(t *testing.T) {
	f := newFixture(t)
	tools, err := KBTools(opened(f.store, agentCaller(t, f, f.write)), KBToolsOptions{Names: []string{"recall", "remember_about_project", "create_note", "list_notes"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool  int
		args  string
		error bool
	}{
		{1, `{"category":"c","observation":"o"}`, true},
		{1, `{"project":"acme/web","category":"c","observation":"o"}`, true},
		{2, `{"project":"acme/web","body":"# X"}`, true},
		{3, `{}`, true},
		{3, `{"project":"acme/web"}`, false},
		{0, `{"topic":"anything"}`, false},
	} {
		res := runTool(t, tools[tc.tool], tc.args)
		if res.IsError != tc.error || tc.error && !strings.Contains(res.Content, "no project configured: set kb.project") {
			t.Errorf("%s(%s) = %+v; want error %v", tools[tc.tool].Name, tc.args, res, tc.error)
		}
	}
	if notes, _ := f.store.TrashList(t.Context(), f.person); len(notes) != 0 {
		t.Errorf("trash = %v", notes)
	}
	if out, _ := f.store.Call(t.Context(), f.person, "recent_activity", []byte(`{}`)); strings.Contains(string(out), `"id"`) {
		t.Errorf("a refused call wrote: %s", out)
	}
}

// TestKBToolsOpenLazily pins that the knowledge base is opened at the
// first call of a KB tool, not when the tools are built, and once: every
// later call (of any of the tools) uses what the first opened. An opener
// that fails makes every call an error result the model can act on (the
// turn goes on), without trying again; a call cancelled while the store
// opened leaves the next call to open it.
func TestKBToolsOpenLazily(t *testing.T) {
	f := newFixture(t)
	caller := agentCaller(t, f, f.write)
	var opens atomic.Int32
	tools, err := KBTools(func(ctx context.Context) (KBBackend, kb.Caller, error) {
		opens.Add(1)
		return f.store, caller, nil
	}, KBToolsOptions{Names: []string{"recall", "remember_about_project"}, Project: "acme/web"})
	if err != nil {
		t.Fatal(err)
	}
	if n := opens.Load(); n != 0 {
		t.Fatalf("building the tools opened the knowledge base %d times; want 0", n)
	}
	if res := runTool(t, tools[1], `{"category":"c","observation":"Lazy."}`); res.IsError {
		t.Fatalf("remember_about_project = %+v", res)
	}
	if res := runTool(t, tools[0], `{"topic":"lazy"}`); res.IsError || !strings.Contains(res.Content, "Lazy.") {
		t.Errorf("recall = %+v; want the memory", res)
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("two calls opened the knowledge base %d times; want 1", n)
	}

	opens.Store(0)
	broken, err := KBTools(func(ctx context.Context) (KBBackend, kb.Caller, error) {
		opens.Add(1)
		return nil, kb.Caller{}, errors.New("kb.db is not a database")
	}, KBToolsOptions{Names: []string{"recall"}, Project: "acme/web"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res := runTool(t, broken[0], `{"topic":"x"}`)
		if !res.IsError || !strings.Contains(res.Content, "kb.db is not a database") {
			t.Errorf("recall with a knowledge base that cannot open = %+v; want an error result naming why", res)
		}
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("a failed open was tried %d times; want once per session", n)
	}

	opens.Store(0)
	ctx, cancel := context.WithCancel(t.Context())
	retried, err := KBTools(func(octx context.Context) (KBBackend, kb.Caller, error) {
		if opens.Add(1) == 1 {
			cancel()
			return nil, kb.Caller{}, octx.Err()
		}
		return f.store, caller, nil
	}, KBToolsOptions{Names: []string{"recall"}, Project: "acme/web"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := retried[0].Run(ctx, &agents.Call{Name: "recall", Args: json.RawMessage(`{"topic":"lazy"}`)}); !errors.Is(err, context.Canceled) {
		t.Errorf("a call cancelled while opening: %v; want the cancellation", err)
	}
	if res := runTool(t, retried[0], `{"topic":"lazy"}`); res.IsError || !strings.Contains(res.Content, "Lazy.") {
		t.Errorf("the call after a cancelled open = %+v; want it to open the store and answer", res)
	}
}
