package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
		{"dotted name", "---\nname: powershell-5.1-expert\ndescription: d\n---\nx\n", "", nil, ""},
		{"leading dot", "---\nname: .hidden\ndescription: d\n---\nx\n", `name ".hidden"`, nil, ""},
		{"unquoted colon", "---\nname: a\ndescription: Use when: the user asks\n---\nx\n", "quote a value", nil, ""},
		{"no tools at all", "---\nname: a\ndescription: d\ntools: []\n---\nx\n", "", []string{}, ""},
		{"claude mcp spelling", "---\nname: a\ndescription: d\ntools: Read, mcp__github__get_issue, mcp__linear, mcp__jira__*\n---\nx\n", "",
			[]string{"read_file", "mcp_github__get_issue", "family:mcp_linear", "family:mcp_jira"}, ""},
		{"claude argument rule", "---\nname: a\ndescription: d\ntools: Read, Bash(git log:*)\n---\nx\n", "", []string{"read_file"}, `"Bash(git log:*)" limits the tool's arguments`},
		{"not utf-8", "---\nname: a\ndescription: \xff\n---\nx\n", "not UTF-8", nil, ""},
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
			if !slices.Equal(d.Tools, tt.wantTools) || (d.Tools == nil) != (tt.wantTools == nil) {
				t.Errorf("tools = %q; want %q", d.Tools, tt.wantTools)
			}
			if tt.wantWarning != "" && !strings.Contains(strings.Join(d.Warnings, ";"), tt.wantWarning) {
				t.Errorf("warnings = %q; want %q", d.Warnings, tt.wantWarning)
			}
		})
	}
}

// TestLoadCatalogPrecedence pins the documented order: project (.yagent
// over .claude) > user ($YAGENT_HOME over ~/.claude) > built-in, with a
// warning on each definition that shadows another.
func TestLoadCatalogPrecedence(t *testing.T) {
	ws, home, user := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	def := func(name, from string) string {
		return "---\nname: " + name + "\ndescription: from " + from + "\n---\nx\n"
	}
	write(filepath.Join(user, ".claude", "agents", "tester.md"), def("tester", "claude user"))
	write(filepath.Join(user, ".claude", "agents", "mine.md"), def("mine", "claude user"))
	write(filepath.Join(home, "agents", "tester.md"), def("tester", "yagent user"))
	write(filepath.Join(home, "agents", "mine.md"), def("mine", "yagent user"))
	write(filepath.Join(ws, ".claude", "agents", "explorer.md"), def("explorer", "claude project"))
	write(filepath.Join(ws, ".claude", "agents", "tester.md"), def("tester", "claude project"))
	write(filepath.Join(ws, ".yagent", "agents", "tester.md"), def("tester", "yagent project"))
	c := LoadCatalog(Sources{Workspace: ws, Home: home, UserHome: user}, nil)
	got := map[string]string{}
	for _, d := range c.All() {
		got[d.Name] = d.Description + " (" + d.Scope + ")"
	}
	want := map[string]string{
		"tester": "from yagent project (project)", "explorer": "from claude project (project)",
		"mine": "from yagent user (user)", "worker": got["worker"], "reviewer": got["reviewer"],
	}
	if diff := cmp.Diff(want, got); diff != "" || !strings.HasSuffix(got["worker"], "(builtin)") {
		t.Errorf("catalog (-want +got):\n%s", diff)
	}
	tester, _ := c.Get("tester")
	if len(tester.Warnings) != 1 || !strings.Contains(tester.Warnings[0], "shadows "+filepath.Join(ws, ".claude", "agents", "tester.md")+" project definition") {
		t.Errorf("tester warnings = %q; want one naming the project .claude definition it shadows", tester.Warnings)
	}
	explorer, _ := c.Get("explorer")
	if len(explorer.Warnings) != 1 || !strings.Contains(explorer.Warnings[0], "shadows the built-in") {
		t.Errorf("explorer warnings = %q", explorer.Warnings)
	}
	if n := c.Notice(); !strings.Contains(n, "3 definitions shadow another") || strings.Contains(n, "skipped") {
		t.Errorf("Notice() = %q", n)
	}
	// Without a user home, ~/.claude/agents is not read.
	c = LoadCatalog(Sources{Workspace: ws, Home: home}, nil)
	if m, _ := c.Get("mine"); m.Description != "from yagent user" || len(m.Warnings) != 0 {
		t.Errorf("without UserHome: mine = %+v", m)
	}
}

// TestLoadCatalogRealShapes loads definition files with the defects found
// in public Claude Code collections: every usable one loads, each unusable
// one is skipped with a problem naming it, and nothing stops the rest.
func TestLoadCatalogRealShapes(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("testdata", "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	known := func(n string) bool {
		return slices.Contains([]string{"read_file", "write_file", "edit_file", "shell", "grep", "glob", "list_dir", "list_notes"}, n)
	}
	c := LoadCatalog(Sources{Workspace: filepath.Join(root, "project"), Home: filepath.Join(root, "yagent-home"), UserHome: filepath.Join(root, "home")}, known)
	var names []string
	for _, d := range c.All() {
		names = append(names, d.Name)
	}
	wantNames := []string{"code-reviewer", "explorer", "issue-triager", "planner", "powershell-5.1-expert", "reviewer", "tester", "translator", "worker"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("agents = %q; want %q", names, wantNames)
	}
	agentsDir := filepath.Join(root, "project", ".claude", "agents")
	var problems []string
	for _, p := range c.Problems() {
		problems = append(problems, strings.TrimPrefix(p.Source, agentsDir+string(filepath.Separator))+": "+p.Message)
	}
	wantProblems := []string{
		`Data Scientist.md: name "Data Scientist"`,
		"notes.md: no YAML front matter",
		"release-notes-writer.md: front matter: yaml: line 2: mapping values are not allowed in this context",
		`unit-tester.md: agent "tester" is already defined by ` + filepath.Join(agentsDir, "tester.md"),
	}
	if len(problems) != len(wantProblems) {
		t.Fatalf("problems = %q; want %d", problems, len(wantProblems))
	}
	for i, w := range wantProblems {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d = %q; want it to start with %q", i, problems[i], w)
		}
	}
	if n := c.Notice(); !strings.Contains(n, "4 agent definition files skipped: "+filepath.Join(agentsDir, "Data Scientist.md")) {
		t.Errorf("Notice() = %q", n)
	}

	tools := func(name string) []string {
		d, ok := c.Get(name)
		if !ok {
			t.Fatalf("no agent %s", name)
		}
		return d.Tools
	}
	if got := tools("planner"); got == nil || len(got) != 0 {
		t.Errorf("planner (tools: []) tools = %#v; want an empty, non-nil list", got)
	}
	if got := tools("tester"); got != nil {
		t.Errorf("tester (no tools key) tools = %#v; want nil (every tool)", got)
	}
	if got, want := tools("issue-triager"), []string{"read_file", "mcp_github__list_issues", "mcp_github__get_issue", "family:mcp_linear"}; !slices.Equal(got, want) {
		t.Errorf("issue-triager tools = %q; want %q", got, want)
	}
	if got, want := tools("powershell-5.1-expert"), []string{"read_file", "write_file", "edit_file", "shell", "glob", "grep"}; !slices.Equal(got, want) {
		t.Errorf("powershell-5.1-expert tools = %q; want %q", got, want)
	}
	tr, _ := c.Get("translator")
	if tr.Scope != ScopeUser || !strings.HasSuffix(tr.Source, filepath.Join("yagent-home", "agents", "translator.md")) ||
		len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], filepath.Join("home", ".claude", "agents", "translator.md")) {
		t.Errorf("translator = %+v; want $YAGENT_HOME's copy shadowing ~/.claude's", tr)
	}

	// JSON tells "every tool" (null) from "none" ([]).
	b, err := json.Marshal([]*Definition{mustGet(t, c, "planner"), mustGet(t, c, "tester")})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"name":"planner","description":"Plans work without touching anything.","tools":[]`) ||
		!strings.Contains(s, `"name":"tester","description":"Project tester, knows this repository's test layout.","tools":null`) {
		t.Errorf("JSON = %s", s)
	}
}

func mustGet(t *testing.T, c *Catalog, name string) *Definition {
	t.Helper()
	d, ok := c.Get(name)
	if !ok {
		t.Fatalf("no agent %s", name)
	}
	return d
}

// TestLoadCatalogUnreadableDirIsAProblem: a directory that cannot be read
// is reported, not fatal.
func TestLoadCatalogUnreadableDirIsAProblem(t *testing.T) {
	ws := t.TempDir()
	// A file where the directory should be cannot be listed.
	if err := os.MkdirAll(filepath.Join(ws, ".yagent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".yagent", "agents"), []byte("oops"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := LoadCatalog(Sources{Workspace: ws}, nil)
	if p := c.Problems(); len(p) != 1 || p[0].Source != filepath.Join(ws, ".yagent", "agents") {
		t.Errorf("problems = %+v", p)
	}
	if _, ok := c.Get("worker"); !ok {
		t.Error("the built-ins are gone")
	}
}

func TestBuiltinDefinitions(t *testing.T) {
	c := LoadCatalog(Sources{Workspace: t.TempDir()}, nil)
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

// FuzzParseDefinition: any bytes either load as a definition with a valid
// name and no empty tool names, or fail with an error naming the file.
func FuzzParseDefinition(f *testing.F) {
	for _, seed := range []string{
		"---\nname: a\ndescription: d\ntools: Read, mcp__s__t, mcp__s, Bash(x:*)\n---\nx\n",
		"---\nname: powershell-5.1-expert\ndescription: Use when: asked\n---\nx\n",
		"---\nname: a\ndescription: d\ntools: []\n---\nx\n", "no front matter", "---\n---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDefinition("x.md", data, nil)
		if err != nil {
			if !strings.Contains(err.Error(), "x.md") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if !ValidAgentName(d.Name) || d.Name == "director" || d.Description == "" || d.Prompt == "" {
			t.Fatalf("loaded an unusable definition %+v", d)
		}
		for _, tool := range d.Tools {
			if tool == "" || strings.HasPrefix(tool, "mcp__") && strings.Count(tool, "__") > 1 {
				t.Fatalf("tool %q kept as written", tool)
			}
		}
	})
}

// TestParseDefinitionSkills: skills: as Claude Code writes it (a
// comma-separated string) or as a list; anything else names the field.
func TestParseDefinitionSkills(t *testing.T) {
	for src, want := range map[string][]string{
		"skills: pdf-forms, review\n":   {"pdf-forms", "review"},
		"skills: [pdf-forms, review]\n": {"pdf-forms", "review"},
		"":                              nil,
	} {
		d, err := ParseDefinition("agents/x.md", []byte("---\nname: a\ndescription: d\n"+src+"---\nx\n"), nil)
		if err != nil || !slices.Equal(d.Skills, want) {
			t.Errorf("ParseDefinition(%q) skills = %q, %v; want %q", src, d.Skills, err, want)
		}
	}
	if _, err := ParseDefinition("agents/x.md", []byte("---\nname: a\ndescription: d\nskills: {a: b}\n---\nx\n"), nil); err == nil || !strings.Contains(err.Error(), "skills: line 3: want a list of skill names") {
		t.Errorf("skills as a map: err = %v; want one naming skills", err)
	}
}
