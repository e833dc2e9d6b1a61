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
	"github.com/yagent/yagent/internal/iostreams"
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
	f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	env := map[string]string{"YAGENT_HOME": home, "USER": "alice"}
	f.Getenv = func(k string) string { return env[k] }
	f.Dir = t.TempDir()
	t.Cleanup(f.Close)
	return f
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
	tools, err := f.KBTools(s1, warn)
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	if names := agents.Names(tools); !slices.Equal(names, []string{"recall", "remember_about_project"}) {
		t.Errorf("tools = %v; want recall and remember_about_project", names)
	}
	cfg, _ := f.Config()
	dbPath := cfg.KB.DBPath(cfg.Home)
	if _, err := os.Stat(dbPath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("building the session's KB tools opened the knowledge base (stat %s: %v); want it opened at the first call", dbPath, err)
	}
	store, person, err := f.KBAsPerson(ctx)
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

	if tools, err := kbFactory(t, "kb:\n  enabled: false\n").KBTools(s1, warn); err != nil || tools != nil || warnings != nil {
		t.Errorf("kb.enabled false: %v, %v, %v; want no tools and no warning", agents.Names(tools), err, warnings)
	}
	tools, err = kbFactory(t, "kb:\n  project: no/such\n").KBTools(s1, warn)
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
		if _, err := kbFactory(t, config).KBTools(s1, warn); !badInput(err) {
			t.Errorf("%q: %v; want a configuration error (exit 2) before any tool runs", config, err)
		}
	}
}
