package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadPermissions: the rules of every file, deny first, with their
// source; a rule, a defaultMode or an additionalDirectories yagent cannot
// map is listed as skipped with why; every rule of an untrusted file is
// skipped as untrusted and none applies; a broken file is an error naming
// it and its line.
func TestLoadPermissions(t *testing.T) {
	dir := t.TempDir()
	put := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	person := put("home/settings.json", `{"permissions": {
		"allow": ["Bash(git diff:*)", "WebFetch(domain:example.com)", "Read"],
		"deny": ["Bash(rm:*)", "Read(./secrets/**)"],
		"ask": ["Bash(git push:*)"],
		"defaultMode": "bypassPermissions",
		"additionalDirectories": ["../docs"],
		"disableBypassPermissionsMode": "disable"}}`)
	untrusted := put("ws/.claude/settings.json", `{"permissions": {"allow": ["Bash(curl:*)"], "deny": ["Edit"]}}`)
	broken := put("broken.json", "{\n \"permissions\": {\n  \"allow\": [,]}}")
	p, err := LoadPermissions([]File{{Path: person, Trusted: true}, {Path: filepath.Join(dir, "missing.json"), Trusted: true},
		{Path: untrusted}, {Path: broken, Trusted: true}})
	if err == nil || !strings.Contains(err.Error(), broken) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("LoadPermissions error = %v; want one naming %s and its line 3", err, broken)
	}
	var got []string
	for _, r := range p.Rules {
		got = append(got, string(r.Decision)+" "+r.Text+" "+filepath.Base(filepath.Dir(r.Source)))
	}
	want := []string{"deny Bash(rm:*) home", "deny Read(./secrets/**) home", "ask Bash(git push:*) home", "allow Bash(git diff:*) home", "allow Read home"}
	if !slices.Equal(got, want) {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var why []string
	for _, s := range p.Skipped() {
		why = append(why, s.What+": "+s.Why)
	}
	for _, w := range []string{
		"allow WebFetch(domain:example.com): yagent has no web fetch tool",
		"defaultMode bypassPermissions: " + whyMode["bypassPermissions"],
		`additionalDirectories ["../docs"]: ` + whyAdditionalDirs,
		"disableBypassPermissionsMode: " + whyUnknownKey,
		"allow Bash(curl:*): " + WhyUntrusted,
		"deny Edit: " + WhyUntrusted,
	} {
		if !slices.Contains(why, w) {
			t.Errorf("skipped:\n%s\nwant %q among them", strings.Join(why, "\n"), w)
		}
	}
	for _, r := range p.Rules {
		if r.Source == untrusted {
			t.Errorf("rule %s of the untrusted file applies", r)
		}
	}
}

// TestParseRule: Claude Code's rule syntax — a tool alone, a Bash
// command exact, by prefix (legacy :* and a trailing " *": word
// boundaries), or with * anywhere; path rules from the project, home or
// root, gitignore-style; MCP rules by server or tool — and the rules
// skipped, with why.
func TestParseRule(t *testing.T) {
	for _, c := range []struct {
		rule          string
		why           string // a part of why it is skipped ("" = it maps)
		tool          string
		kind          CommandKind
		match, differ []string // commands (Bash) or paths relative to the base
		base          PathBase
	}{
		{rule: "Bash", tool: "Bash"},
		{rule: "Bash(*)", tool: "Bash"},
		{rule: "Bash(:*)", tool: "Bash"},
		{rule: "Bash(git diff:*)", tool: "Bash", kind: Prefix, match: []string{"git diff", "git diff HEAD~1", "git  diff  x"}, differ: []string{"git difftool", "git dif", "sudo git diff"}},
		{rule: "Bash(npm run test *)", tool: "Bash", kind: Prefix, match: []string{"npm run test", "npm run test --watch"}, differ: []string{"npm run tests", "npm run"}},
		{rule: "Bash(npm install)", tool: "Bash", kind: Exact, match: []string{"npm install", "npm  install"}, differ: []string{"npm install x", "npm"}},
		{rule: "Bash(npm run test*)", tool: "Bash", kind: Wildcard, match: []string{"npm run test", "npm run tests", "npm run test:unit"}, differ: []string{"npm run tes"}},
		{rule: "Bash(git * main)", tool: "Bash", kind: Wildcard, match: []string{"git push origin main", "git -c x=y diff main"}, differ: []string{"git push origin main2"}},
		{rule: "Bash(curl * | sh:*)", tool: "Bash", kind: Wildcard, match: []string{"curl x | sh", "curl x | sh -s"}},
		{rule: "Bash(a.b+c)", tool: "Bash", kind: Exact, match: []string{"a.b+c"}, differ: []string{"aXb+c"}},
		{rule: "Bash()", why: "empty Bash()"},
		{rule: "Bash(\x81*)", why: "UTF-8"},
		{rule: "Read(\x81)", why: "UTF-8"},
		{rule: "Bash(git diff", why: "not closed"},
		{rule: "(x)", why: "no tool name"},
		{rule: "WebFetch(domain:example.com)", why: "web fetch"},
		{rule: "Task(Explore)", why: "delegate"},
		{rule: "Frobnicate", why: "not one of Claude Code's tools"},
		{rule: "Glob(src/**)", why: "takes no (specifier)"},
		{rule: "mcp__github", tool: "mcp__github"},
		{rule: "mcp__github__*", tool: "mcp__github__*"},
		{rule: "mcp__github__create_issue", tool: "mcp__github__create_issue"},
		{rule: "mcp__github__create(x)", why: "takes no (specifier)"},
		{rule: "mcp__", why: "names a server"},
		{rule: "mcp__git*", why: "mcp__server__*"},

		{rule: "Read(./secrets/**)", tool: "Read", base: FromProject, match: []string{"secrets/a", "secrets/x/y.txt"}, differ: []string{"secrets", "a/secrets/b", "secretsx/a", "."}},
		{rule: "Read(.env)", tool: "Read", base: FromProject, match: []string{".env", "a/b/.env", ".env/x"}, differ: []string{".envrc", "a.env"}},
		{rule: "Read(*.pem)", tool: "Read", base: FromProject, match: []string{"k.pem", "a/b/k.pem"}, differ: []string{"k.pem.txt"}},
		{rule: "Edit(src/**)", tool: "Edit", base: FromProject, match: []string{"src/a.go", "src/x/y/z.go"}, differ: []string{"src", "lib/src/a.go", "srcx/a"}},
		{rule: "Edit(/src/**/*.ts)", tool: "Edit", base: FromProject, match: []string{"src/a.ts", "src/x/y/a.ts"}, differ: []string{"src/a.go", "x/src/a.ts"}},
		{rule: "Edit(docs/)", tool: "Edit", base: FromProject, match: []string{"docs/a.md", "x/docs/a.md"}, differ: []string{"docsx/a"}},
		{rule: "Write", tool: "Write"},
		{rule: "Read(//etc/**)", tool: "Read", base: FromRoot, match: []string{"etc/passwd"}, differ: []string{"x/etc/passwd"}},
		{rule: "Read(~/.ssh/**)", tool: "Read", base: FromHome, match: []string{".ssh/id_ed25519"}, differ: []string{"ssh/x"}},
		{rule: "Read(~)", tool: "Read", base: FromHome, match: []string{"a", "."}},
		{rule: "Read(a/?.go)", tool: "Read", base: FromProject, match: []string{"a/b.go"}, differ: []string{"a/bc.go", "a/.go"}},
		{rule: "Read(../secrets/**)", why: ".."},
		{rule: "Edit(src/../../x)", why: ".."},
		{rule: "Read(~bob/x)", why: "~user"},
		{rule: "Read([ab].go)", why: "character classes"},
		{rule: "Read()", why: "empty path"},
	} {
		r, why := ParseRule(c.rule)
		switch {
		case c.why != "" && !strings.Contains(why, c.why):
			t.Errorf("ParseRule(%q) skipped for %q; want skipped for %q", c.rule, why, c.why)
			continue
		case c.why != "":
			continue
		case why != "":
			t.Errorf("ParseRule(%q) skipped for %q; want it mapped", c.rule, why)
			continue
		}
		if r.Tool != c.tool {
			t.Errorf("ParseRule(%q).Tool = %q; want %q", c.rule, r.Tool, c.tool)
		}
		if r.Command != nil {
			if r.Command.Kind != c.kind {
				t.Errorf("ParseRule(%q) kind %d; want %d", c.rule, r.Command.Kind, c.kind)
			}
			for _, m := range c.match {
				if !r.Command.MatchText(m) {
					t.Errorf("%s does not match the command %q; want it to", c.rule, m)
				}
			}
			for _, m := range c.differ {
				if r.Command.MatchText(m) {
					t.Errorf("%s matches the command %q; want it not to", c.rule, m)
				}
			}
		} else if c.kind != 0 {
			t.Errorf("ParseRule(%q) has no command pattern", c.rule)
		}
		if r.Path != nil {
			if r.Path.Base != c.base {
				t.Errorf("ParseRule(%q) base %d; want %d", c.rule, r.Path.Base, c.base)
			}
			for _, m := range c.match {
				if !r.Path.Match(m) {
					t.Errorf("%s does not match the path %q; want it to", c.rule, m)
				}
			}
			for _, m := range append(c.differ, "../"+firstOr(c.match), "..") {
				if r.Path.Match(m) {
					t.Errorf("%s matches the path %q; want it not to", c.rule, m)
				}
			}
		} else if c.base != 0 {
			t.Errorf("ParseRule(%q) has no path pattern", c.rule)
		}
	}
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return "x"
	}
	return s[0]
}

// TestRuleAppliesTo: a rule reaches the yagent tools its Claude Code tool
// stands for, an MCP rule its server's tools.
func TestRuleAppliesTo(t *testing.T) {
	for _, c := range []struct {
		rule string
		yes  []string
		no   []string
	}{
		{"Bash", []string{"shell"}, []string{"read_file", "mcp_x__Bash"}},
		{"Read", []string{"read_file", "list_dir", "grep", "glob"}, []string{"write_file", "shell"}},
		{"Edit", []string{"write_file", "edit_file"}, []string{"read_file"}},
		{"Write", []string{"write_file"}, []string{"edit_file"}},
		{"mcp__github", []string{"mcp_github__create_issue"}, []string{"mcp_githubx__a", "mcp_git__hub"}},
		{"mcp__github__*", []string{"mcp_github__create_issue"}, []string{"mcp_githubx__a"}},
		{"mcp__github__create_issue", []string{"mcp_github__create_issue"}, []string{"mcp_github__create_issue2", "mcp_github__list"}},
	} {
		r, why := ParseRule(c.rule)
		if why != "" {
			t.Fatalf("ParseRule(%q): %s", c.rule, why)
		}
		for _, tool := range c.yes {
			if !r.AppliesTo(tool) {
				t.Errorf("%s does not apply to %s; want it to", c.rule, tool)
			}
		}
		for _, tool := range c.no {
			if r.AppliesTo(tool) {
				t.Errorf("%s applies to %s; want it not to", c.rule, tool)
			}
		}
	}
}

// FuzzParseRule: any rule parses without a panic; a rule that maps names
// a tool, parses again to the same pattern, matches the command it
// describes, and its path pattern never matches a path outside its base.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(git diff:*)", "Bash(npm run test *)", "Bash(git * main)", "Read(./secrets/**)",
		"Edit(/src/**/*.ts)", "Read(//etc/**)", "Read(~/.ssh/**)", "mcp__s__t", "Read(../x)", "Bash(:*)", "Read(**)"} {
		f.Add(s, "a/b/c")
	}
	f.Fuzz(func(t *testing.T, rule, p string) {
		r, why := ParseRule(rule)
		if why != "" {
			return
		}
		if r.Tool == "" {
			t.Fatalf("ParseRule(%q) maps with no tool", rule)
		}
		again, why := ParseRule(r.Text)
		if why != "" || again.Tool != r.Tool || (again.Command == nil) != (r.Command == nil) || (again.Path == nil) != (r.Path == nil) {
			t.Fatalf("ParseRule(%q) again = %+v, %q; want %+v", rule, again, why, r)
		}
		if c := r.Command; c != nil {
			probe := strings.ReplaceAll(c.Text, "*", "x")
			if !c.MatchText(probe) {
				t.Errorf("%s does not match %q", rule, probe)
			}
		}
		if pp := r.Path; pp != nil {
			if pp.Match("../"+p) || pp.Match("..") {
				t.Errorf("%s matches a path outside its base: ../%s", rule, p)
			}
			_ = pp.Match(p)
		}
	})
}

// TestPermissionsWriteTable: `yagent hooks ls` lists each rule that
// applies with its file, then each one that does not with why — an
// untrusted workspace's rules and tools yagent lacks among them.
func TestPermissionsWriteTable(t *testing.T) {
	dir := t.TempDir()
	// write wraps its text as the hooks object; the permissions sit beside.
	person := write(t, dir, "home/settings.json", `{}, "permissions": {"allow": ["Bash(git diff:*)"], "deny": ["Read(./.env)", "WebFetch(domain:example.com)"]}`)
	ws := write(t, dir, "ws/.claude/settings.json", `{}, "permissions": {"allow": ["Bash(rm:*)"]}`)
	p, err := LoadPermissions([]File{{Path: person, Trusted: true}, {Path: ws}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(b.String(), dir, "DIR")
	want := `
PERMISSION  RULE              SOURCE
deny        Read(./.env)      DIR/home/settings.json
allow       Bash(git diff:*)  DIR/home/settings.json

SKIPPED RULE                       WHY                                          SOURCE
deny WebFetch(domain:example.com)  yagent has no web fetch tool                 DIR/home/settings.json
allow Bash(rm:*)                   the workspace is not trusted (yagent trust)  DIR/ws/.claude/settings.json
`
	if got != want {
		t.Errorf("WriteTable:\n%s\nwant:\n%s", got, want)
	}
	b.Reset()
	if err := (&Permissions{}).WriteTable(&b); err != nil || b.Len() != 0 {
		t.Errorf("WriteTable of no rules wrote %q, %v; want nothing", b.String(), err)
	}
}
