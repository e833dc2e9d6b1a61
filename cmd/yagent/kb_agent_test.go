package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/kb"
)

// kbFactory is a factory over a fresh YAGENT_HOME holding config.
func kbFactory(t *testing.T, config string) *Factory {
	t.Helper()
	home := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	env := map[string]string{"YAGENT_HOME": home, "USER": "alice"}
	f.Getenv = func(k string) string { return env[k] }
	f.Dir = t.TempDir()
	t.Cleanup(f.Close)
	return f
}

// TestAgentCaller pins the agents' token: created once per scope and
// reused (its secret kept in a 0600 file), scoped to kb.project, and
// revocable — a revoked token is not silently replaced.
func TestAgentCaller(t *testing.T) {
	f := kbFactory(t, "")
	ctx := t.Context()
	store, person, err := kbOpen(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"acme/web", "acme/other"} {
		if _, err := store.CreateProject(ctx, person, h, ""); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	spec := agentToken(true, "acme/web")
	c1, err := agentCaller(ctx, store, person, home, spec)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := agentCaller(ctx, store, person, home, spec)
	if err != nil {
		t.Fatal(err)
	}
	if c1.TokenID == 0 || c1.TokenID != c2.TokenID || c1.Kind != kb.KindAgent || !c1.Write {
		t.Errorf("callers %+v and %+v; want one write agent token, reused", c1, c2)
	}
	files, _ := filepath.Glob(filepath.Join(home, "kb-agents", "*.token"))
	if len(files) != 1 {
		t.Fatalf("token files %v; want one", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v; want 0600", fi.Mode().Perm())
	}
	// Scoped: the other project is out of reach.
	if _, err := store.Call(ctx, c1, "remember_about_project", []byte(`{"project":"acme/other","category":"c","observation":"o"}`)); kb.ErrorCode(err) != kb.CodeNotFound {
		t.Errorf("write to acme/other through the acme/web token: %v; want notFound", err)
	}
	// Another scope is another token.
	if c3, err := agentCaller(ctx, store, person, home, agentToken(false, "")); err != nil || c3.TokenID == c1.TokenID || c3.Write {
		t.Errorf("read scope: %+v, %v; want a separate read token", c3, err)
	}
	if err := store.RevokeToken(ctx, person, spec.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := agentCaller(ctx, store, person, home, spec); err == nil || !strings.Contains(err.Error(), "was revoked") {
		t.Errorf("after revoke: %v; want a refusal naming the revocation", err)
	}
	os.Remove(files[0])
	if c4, err := agentCaller(ctx, store, person, home, spec); err != nil || c4.TokenID == c1.TokenID {
		t.Errorf("after removing the file: %+v, %v; want a new token", c4, err)
	}
}

// TestSessionKBTools pins what a session's agents get: kb.agent_tools
// (default recall and remember_about_project), nothing when kb.enabled is
// false, kb.db opened at the first KB call and not before, a warning (not
// a failure) for an unknown kb.project, and the registry's gates for
// sub-agents (only when their definition lists them).
func TestSessionKBTools(t *testing.T) {
	ctx := t.Context()
	s1 := func() string { return "s1" }
	f := kbFactory(t, "kb:\n  project: acme/web\n")
	var warnings []error
	warn := func(err error) { warnings = append(warnings, err) }
	tools, err := sessionKBTools(f, s1, warn)
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	if names := agents.Names(tools); !slices.Equal(names, []string{"recall", "remember_about_project"}) {
		t.Errorf("tools = %v; want recall and remember_about_project", names)
	}
	cfg, _ := f.Config()
	dbPath := cfg.KB.DBPath(cfg.Home)
	if _, err := os.Stat(dbPath); !errors.Is(err, fs.ErrNotExist) || f.kb != nil {
		t.Fatalf("building the session's KB tools opened the knowledge base (stat %s: %v); want it opened at the first call", dbPath, err)
	}
	store, person, err := kbOpen(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateProject(ctx, person, "acme/web", ""); err != nil {
		t.Fatal(err)
	}
	res, err := tools[1].Run(ctx, &agents.Call{Name: tools[1].Name, Args: json.RawMessage(`{"category":"c","observation":"Opened late."}`)})
	if err != nil || res.IsError || res.Summary != "remembered" {
		t.Errorf("remember_about_project = %+v, %v; want it remembered", res, err)
	}
	reg := agents.NewRegistry(tools...)
	for _, tc := range []struct {
		g    agents.Gates
		want []string
	}{
		{agents.Gates{Master: true}, []string{"recall", "remember_about_project"}},
		{agents.Gates{SubAgent: true, Master: true, Allow: []string{"read_file", "grep"}}, nil},
		{agents.Gates{SubAgent: true, Master: true, Allow: []string{"recall"}}, []string{"recall"}},
		{agents.Gates{SubAgent: true, Master: true, Allow: []string{"family:kb"}}, []string{"recall", "remember_about_project"}},
		{agents.Gates{ReadOnly: true}, []string{"recall"}},
	} {
		if got := agents.Names(reg.Reachable(tc.g)); !slices.Equal(got, tc.want) {
			t.Errorf("gates %+v reach %v; want %v", tc.g, got, tc.want)
		}
	}

	if tools, err := sessionKBTools(kbFactory(t, "kb:\n  enabled: false\n"), s1, warn); err != nil || tools != nil || warnings != nil {
		t.Errorf("kb.enabled false: %v, %v, %v; want no tools and no warning", agents.Names(tools), err, warnings)
	}
	tools, err = sessionKBTools(kbFactory(t, "kb:\n  project: no/such\n"), s1, warn)
	if err != nil || len(tools) != 2 || warnings != nil {
		t.Fatalf("unknown kb.project: %v, %v, %v; want the tools, and nothing said before they are called", agents.Names(tools), err, warnings)
	}
	res, err = tools[0].Run(ctx, &agents.Call{Name: tools[0].Name, Args: json.RawMessage(`{"topic":"x"}`)})
	if err != nil || !res.IsError || !strings.Contains(res.Content, "not available") {
		t.Errorf("recall with an unknown kb.project = %+v, %v; want an error result saying the knowledge base is not available", res, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "yagent kb projects create no/such") {
		t.Errorf("unknown kb.project warns %v; want a message saying how to create it", warnings)
	}
	for _, config := range []string{"kb:\n  agent_tools: [no_such_tool]\n", "kb:\n  embeddings: {model: e, endpoint: nosuch}\n"} {
		if _, err := sessionKBTools(kbFactory(t, config), s1, warn); !badInput(err) {
			t.Errorf("%q: %v; want a configuration error (exit 2) before any tool runs", config, err)
		}
	}
}
