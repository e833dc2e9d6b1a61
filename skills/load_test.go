package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nDo the " + name + " thing.\n"
}

// TestLoad: the five places, the person's skills over a project's (as in
// Claude Code), broken ones as problems, an untrusted workspace's skipped
// and said.
func TestLoad(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, home, user := filepath.Join(base, "ws"), filepath.Join(base, "yhome"), filepath.Join(base, "user")
	write(t, filepath.Join(ws, ".agents/skills/lint/SKILL.md"), skillMD("lint", "Project lint."))
	write(t, filepath.Join(ws, ".claude/skills/deploy/SKILL.md"), skillMD("deploy", "Project deploy."))
	write(t, filepath.Join(ws, ".claude/skills/broken/SKILL.md"), "# no front matter\n")
	write(t, filepath.Join(ws, ".claude/skills/Bad Name/SKILL.md"), "---\ndescription: d\n---\n")
	write(t, filepath.Join(ws, ".claude/skills/empty/notes.txt"), "no SKILL.md here")
	write(t, filepath.Join(ws, ".claude/skills/README.md"), "a file beside the skills")
	write(t, filepath.Join(user, ".claude/skills/deploy/SKILL.md"), skillMD("deploy", "Person's deploy."))
	write(t, filepath.Join(user, ".agents/skills/pdf/SKILL.md"), skillMD("pdf", "Shared pdf."))
	write(t, filepath.Join(home, "skills/pdf/SKILL.md"), skillMD("pdf", "yagent pdf."))

	c := Load(Sources{Workspace: ws, Trusted: true, Home: home, UserHome: user})
	var got []string
	for _, s := range c.All() {
		got = append(got, s.Name+"="+s.Description+"@"+s.Scope)
	}
	want := "deploy=Person's deploy.@user lint=Project lint.@project pdf=yagent pdf.@user"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("Load = %s; want %s", g, want)
	}
	if s, _ := c.Get("deploy"); len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "shadows the project skill") {
		t.Errorf("deploy warnings = %q; want one naming the project skill it shadows", s.Warnings)
	}
	var probs []string
	for _, p := range c.Problems() {
		probs = append(probs, filepath.Base(filepath.Dir(p.Source))+": "+p.Message)
	}
	if len(probs) != 3 || !strings.Contains(strings.Join(probs, "\n"), "Bad Name: name") || !strings.Contains(strings.Join(probs, "\n"), "broken: no YAML front matter") || !strings.Contains(strings.Join(probs, "\n"), "empty: no SKILL.md") {
		t.Errorf("problems = %q; want Bad Name, broken and empty", probs)
	}

	u := Load(Sources{Workspace: ws, Trusted: false, Home: home, UserHome: user})
	if _, ok := u.Get("lint"); ok {
		t.Error("an untrusted workspace's skill was loaded")
	}
	if s, _ := u.Get("deploy"); s == nil || s.Scope != ScopeUser || len(s.Warnings) != 0 {
		t.Errorf("untrusted: deploy = %+v; want the person's alone", s)
	}
	if len(u.Skipped()) != 2 || len(u.Problems()) != 0 {
		t.Errorf("untrusted: skipped %q, problems %v; want both project dirs skipped, no problems", u.Skipped(), u.Problems())
	}
	if n := strings.Join(u.Notices(ws), "\n"); !strings.Contains(n, "not trusted") || !strings.Contains(n, "yagent trust") {
		t.Errorf("untrusted notices = %q; want them to say to run yagent trust", n)
	}
}

// TestLoadWorkspaceIsHome: a workspace that is the person's home reads
// ~/.claude/skills once, as theirs.
func TestLoadWorkspaceIsHome(t *testing.T) {
	t.Parallel()
	user := t.TempDir()
	write(t, filepath.Join(user, ".claude/skills/pdf/SKILL.md"), skillMD("pdf", "Mine."))
	c := Load(Sources{Workspace: user, Trusted: false, UserHome: user})
	if s, ok := c.Get("pdf"); !ok || s.Scope != ScopeUser || len(c.Skipped()) != 0 {
		t.Errorf("Load of a workspace in $HOME: pdf %+v, skipped %q; want the person's skill, nothing skipped", s, c.Skipped())
	}
}

// TestReadFileConfined: a resource is read inside the skill's directory;
// a path out of it — absolute, .., or a link that points out — is
// refused with ErrOutside, and a link that stays inside is followed.
func TestReadFileConfined(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	sdir := filepath.Join(base, "skills", "pdf")
	write(t, filepath.Join(sdir, "SKILL.md"), skillMD("pdf", "PDF."))
	write(t, filepath.Join(sdir, "references/forms.md"), "Fill field 3 first.")
	write(t, filepath.Join(base, "secret.txt"), "SECRET")
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(sdir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../secret.txt", filepath.Join(sdir, "references", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("references/forms.md", filepath.Join(sdir, "in")); err != nil {
		t.Fatal(err)
	}
	c := Load(Sources{Home: base})
	s, ok := c.Get("pdf")
	if !ok {
		t.Fatalf("pdf not loaded: %v", c.Problems())
	}
	for _, p := range []string{"references/forms.md", "./references/../references/forms.md", "in"} {
		if got, err := ReadFile(s, p); err != nil || got != "Fill field 3 first." {
			t.Errorf("ReadFile(%q) = %q, %v; want the file", p, got, err)
		}
	}
	for _, p := range []string{"../../secret.txt", filepath.Join(base, "secret.txt"), "out", "references/up", "/etc/passwd", ".."} {
		got, err := ReadFile(s, p)
		if !errors.Is(err, ErrOutside) || strings.Contains(got, "SECRET") {
			t.Errorf("ReadFile(%q) = %q, %v; want ErrOutside", p, got, err)
		}
	}
	if got, err := ReadFile(s, "references"); err != nil || !strings.Contains(got, "forms.md") {
		t.Errorf("ReadFile(a directory) = %q, %v; want its listing", got, err)
	}
	text, err := Loaded(s)
	if err != nil || !strings.Contains(text, "Do the pdf thing.") || !strings.Contains(text, "- references/forms.md") {
		t.Errorf("Loaded = %q, %v; want the body and the file list", text, err)
	}
}
