package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKBShowShowsControls: agents write knowledge-base notes too, so `kb
// show` and `kb recall` render a note's control characters visibly (␛, ␍)
// and --json keeps them as data.
func TestKBShowShowsControls(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env := map[string]string{"YAGENT_HOME": home, "USER": "tester"}
	docs := filepath.Join(work, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "# Deploy guide\n\nRun make deploy.\x1b[2J\r\x1b]52;c;cm0gLXJmIH4=\x07 Then wait.\n"
	if err := os.WriteFile(filepath.Join(docs, "deploy.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"kb", "projects", "create", "acme/web"},
		{"kb", "import", docs, "--project", "acme/web"},
	} {
		if code, _, errOut := runCLI(t, t.Context(), env, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	const shown = "Run make deploy.␛[2J␍␛]52;c;cm0gLXJmIH4=␇ Then wait."
	for _, args := range [][]string{{"kb", "show", "[[Deploy guide]]"}, {"kb", "recall", "deploy", "--project", "acme/web"}} {
		code, out, errOut := runCLI(t, t.Context(), env, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out, shown) || strings.ContainsAny(out, "\x1b\r\x07") {
			t.Errorf("%v does not show the note's controls visibly:\n%q", args, out)
		}
	}
	if code, out, _ := runCLI(t, t.Context(), env, "kb", "show", "[[Deploy guide]]", "--json"); code != 0 || !strings.Contains(out, `\u001b[2J\r`) {
		t.Errorf("kb show --json does not keep the body as data (exit %d):\n%s", code, out)
	}
}
