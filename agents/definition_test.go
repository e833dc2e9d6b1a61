package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseDefinition(t *testing.T) {
	known := func(n string) bool {
		return slices.Contains([]string{"read_file", "grep", "shell", "edit_file", "write_file", "glob", "list_dir"}, n)
	}
	tests := []struct {
		name, src   string
		wantErr     string
		wantTools   []string
		wantWarning string
	}{
		{"yagent list", "---\nname: scout\ndescription: Scouts.\ntools: [read_file, grep]\nmax_steps: 5\n---\nYou scout.\n", "", []string{"read_file", "grep"}, ""},
		{"claude string", "---\nname: code-reviewer\ndescription: Reviews.\ntools: Read, Grep, Bash, WebFetch\nmodel: sonnet\ncolor: red\n---\nReview.\n", "", []string{"read_file", "grep", "shell"}, `tool "WebFetch" does not exist`},
		{"all tools", "---\nname: any\ndescription: Anything.\n---\nDo.\n", "", nil, ""},
		{"patterns kept", "---\nname: mcp\ndescription: d\ntools: [\"mcp_github__*\", \"family:fs\"]\n---\nx\n", "", []string{"mcp_github__*", "family:fs"}, ""},
		{"no front matter", "You are nobody.\n", "no YAML front matter", nil, ""},
		{"no name", "---\ndescription: d\n---\nx\n", "name is missing", nil, ""},
		{"bad name", "---\nname: Big Agent\ndescription: d\n---\nx\n", `name "Big Agent"`, nil, ""},
		{"reserved", "---\nname: director\ndescription: d\n---\nx\n", "reserved", nil, ""},
		{"no description", "---\nname: a\n---\nx\n", "description is missing", nil, ""},
		{"empty body", "---\nname: a\ndescription: d\n---\n", "body", nil, ""},
		{"bad yaml", "---\nname: [a\ndescription: d\n---\nx\n", "front matter", nil, ""},
		{"bad steps", "---\nname: a\ndescription: d\nmax_steps: lots\n---\nx\n", "front matter", nil, ""},
		{"bad tools", "---\nname: a\ndescription: d\ntools: {read: true}\n---\nx\n", "tools", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDefinition("agents/x.md", []byte(tt.src), known)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "agents/x.md") {
					t.Fatalf("err = %v; want one naming the file and containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.Tools, tt.wantTools) {
				t.Errorf("tools = %q; want %q", d.Tools, tt.wantTools)
			}
			if tt.wantWarning != "" && !strings.Contains(strings.Join(d.Warnings, ";"), tt.wantWarning) {
				t.Errorf("warnings = %q; want %q", d.Warnings, tt.wantWarning)
			}
		})
	}
}

func TestLoadCatalogPrecedence(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, ".claude", "agents", "explorer.md"), "---\nname: explorer\ndescription: from claude\n---\nx\n")
	write(filepath.Join(ws, ".claude", "agents", "tester.md"), "---\nname: tester\ndescription: from claude\n---\nx\n")
	write(filepath.Join(home, "agents", "tester.md"), "---\nname: tester\ndescription: from home\n---\nx\n")
	write(filepath.Join(ws, ".yagent", "agents", "tester.md"), "---\nname: tester\ndescription: from workspace\n---\nx\n")
	c, err := LoadCatalog(ws, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range c.All() {
		got[d.Name] = d.Description
	}
	if got["tester"] != "from workspace" || got["explorer"] != "from claude" || got["worker"] == "" || got["reviewer"] == "" {
		t.Errorf("catalog = %v", got)
	}
	write(filepath.Join(home, "agents", "broken.md"), "---\nname: [\n---\n")
	if _, err := LoadCatalog(ws, home, nil); err == nil || !strings.Contains(err.Error(), filepath.Join(home, "agents", "broken.md")) {
		t.Errorf("broken definition: err = %v; want one naming the file", err)
	}
}

func TestBuiltinDefinitions(t *testing.T) {
	c, err := LoadCatalog(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	explorer, _ := c.Get("explorer")
	worker, _ := c.Get("worker")
	reviewer, _ := c.Get("reviewer")
	for _, ro := range []*Definition{explorer, reviewer} {
		for _, w := range []string{"write_file", "edit_file", "shell"} {
			if slices.Contains(ro.Tools, w) {
				t.Errorf("%s is read-only but has %s", ro.Name, w)
			}
		}
	}
	if !slices.Contains(worker.Tools, "shell") || !slices.Contains(worker.Tools, "edit_file") {
		t.Errorf("worker tools = %q", worker.Tools)
	}
}
