package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeCtx(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadContext: the person's file first, then every directory from the
// project's root (its .git) down to the working directory — AGENTS.md, or
// CLAUDE.md where there is none —, each followed by its @imports; an
// import out of the project, a cycle, one too deep and a missing one are
// notes, never read; files below the working directory and beside its
// path are not read.
func TestLoadContext(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repo, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
	writeCtx(t, base, map[string]string{
		"secret.md":                 "SECRET",
		"home/.yagent/AGENTS.md":    "Person: be brief. @prefs.md",
		"home/.yagent/prefs.md":     "Prefer tabs.",
		"home/.claude/CLAUDE.md":    "NOT READ: the first person's file wins",
		"repo/.git/HEAD":            "ref: refs/heads/main\n",
		"repo/AGENTS.md":            "Root rules. See @docs/style.md and `@not/an-import.md`.\n```\n@fenced/out.md\n```\nMail me at a@b.co. Also @../secret.md and @missing/file.md.",
		"repo/CLAUDE.md":            "NOT READ: AGENTS.md wins here",
		"repo/docs/style.md":        "Style: short names. @cycle.md",
		"repo/docs/cycle.md":        "Cycle back: @style.md",
		"repo/svc/CLAUDE.md":        "Service rules (a CLAUDE.md where no AGENTS.md is).",
		"repo/svc/api/AGENTS.md":    "API rules.",
		"repo/svc/api/v2/AGENTS.md": "NOT READ: below the working directory",
		"repo/web/AGENTS.md":        "NOT READ: beside the path",
	})
	if err := os.Symlink(filepath.Join(base, "secret.md"), filepath.Join(repo, "docs", "link.md")); err != nil {
		t.Fatal(err)
	}
	writeCtx(t, repo, map[string]string{"svc/api/AGENTS.md": "API rules. @../../docs/link.md"})

	c := LoadContext(ContextOptions{Dir: filepath.Join(repo, "svc", "api"), User: []string{filepath.Join(home, ".yagent", "AGENTS.md"), filepath.Join(home, ".claude", "CLAUDE.md")}, Home: home})
	var paths []string
	for _, f := range c.Files {
		paths = append(paths, f.Path+"<"+f.ImportedBy)
	}
	want := []string{
		filepath.Join(home, ".yagent", "AGENTS.md") + "<", filepath.Join(home, ".yagent", "prefs.md") + "<" + filepath.Join(home, ".yagent", "AGENTS.md"),
		"AGENTS.md<", "docs/style.md<AGENTS.md", "docs/cycle.md<docs/style.md",
		"svc/CLAUDE.md<", "svc/api/AGENTS.md<",
	}
	if !slices.Equal(paths, want) {
		t.Errorf("files = %q\nwant %q", paths, want)
	}
	for _, s := range []string{"Person: be brief.", "Prefer tabs.", "Root rules.", "## docs/style.md (imported by AGENTS.md)\nStyle: short names.", "## svc/CLAUDE.md (applies to svc/ and below)\nService rules", "## svc/api/AGENTS.md (applies to svc/api/ and below)\nAPI rules."} {
		if !strings.Contains(c.Text, s) {
			t.Errorf("text lacks %q:\n%s", s, c.Text)
		}
	}
	if strings.Contains(c.Text, "NOT READ") || strings.Contains(c.Text, "SECRET") {
		t.Errorf("text holds what must not be read:\n%s", c.Text)
	}
	notes := strings.Join(c.Notes, "\n")
	for _, s := range []string{"@style.md in docs/cycle.md: an import cycle", "@../secret.md in AGENTS.md: outside " + repo, "@missing/file.md in AGENTS.md: no such file or directory; not read", "@../../docs/link.md in svc/api/AGENTS.md: outside"} {
		if !strings.Contains(notes, s) {
			t.Errorf("notes lack %q:\n%s", s, notes)
		}
	}
	if strings.Contains(notes, "not/an-import") || strings.Contains(notes, "fenced") || strings.Contains(notes, "b.co") {
		t.Errorf("code and mail addresses were taken for imports:\n%s", notes)
	}
}

// TestLoadContextCap: past the cap the text ends with a note naming what
// was cut, and the files say so.
func TestLoadContextCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCtx(t, dir, map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		"AGENTS.md":       strings.Repeat("root line\n", 30),
		"sub/AGENTS.md":   strings.Repeat("sub line\n", 40),
		"sub/x/CLAUDE.md": "last",
	})
	c := LoadContext(ContextOptions{Dir: filepath.Join(dir, "sub", "x"), Max: 600})
	if len(c.Text) > 600+200 || !strings.HasSuffix(c.Text, "… [context files cut at 600 bytes: the end of sub/AGENTS.md, sub/x/CLAUDE.md not included (read them with read_file)]") {
		t.Errorf("capped text (%d bytes) ends:\n%s", len(c.Text), c.Text[max(0, len(c.Text)-300):])
	}
	if len(c.Files) != 3 || c.Files[0].Cut || !c.Files[1].Cut || !c.Files[2].Cut {
		t.Errorf("files = %+v; want the root whole, the others cut", c.Files)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "cut at 600 bytes") {
		t.Errorf("notes = %q; want the cap's", c.Notes)
	}
	if LoadContext(ContextOptions{Dir: t.TempDir()}).Text != "" {
		t.Error("a directory without context files got a text")
	}
}

// TestImports: what counts as an @import.
func TestImports(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"@README.md and @docs/a.md.":                {"README.md", "docs/a.md"},
		"see (@x/y.md), @~/.claude/p.md":            {"~/.claude/p.md"},
		"`@code.md` and ``` inline @b.md ``` @c.md": {"c.md"},
		"```\n@in/fence.md\n```\n@after.md":         {"after.md"},
		"~~~go\n@in.md\n~~~":                        nil,
		"mail a@b.co, @user, @ and @. @/ @..":       nil,
		"@/abs/path.md":                             {"/abs/path.md"},
	} {
		if got := Imports(text); !slices.Equal(got, want) {
			t.Errorf("Imports(%q) = %q; want %q", text, got, want)
		}
	}
}

// FuzzImports: any text is scanned without a panic, and every import is a
// path: no space, no @, never empty.
func FuzzImports(f *testing.F) {
	f.Add("@README.md and `@x.md`\n```\n@y.md\n```\n@~/z.md")
	f.Add("a@b.co @.. @/")
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range Imports(text) {
			if p == "" || strings.ContainsAny(p, " \t\n@`") {
				t.Fatalf("Imports(%q) returned %q", text, p)
			}
		}
	})
}
