package director

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// TestContextFiles (issue 31 item 4): the context files from the
// project's root down to the working directory — AGENTS.md, CLAUDE.md
// where a directory has none, their @imports — and the person's
// $YAGENT_HOME/AGENTS.md reach the request (llmtest's request dump); a
// file below the working directory does not; past the cap, the request
// and a notice say what was cut.
func TestContextFiles(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "context-files.yaml"))
	home, base := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "AGENTS.md"), "Person: PERSON-RULE.")
	repo := filepath.Join(base, "repo")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, "AGENTS.md"), "Root rules: ROOT-AGENTS. Style in @docs/style.md.")
	writeFile(t, filepath.Join(repo, "CLAUDE.md"), "IGNORED-ROOT-CLAUDE")
	writeFile(t, filepath.Join(repo, "docs", "style.md"), "Style: IMPORTED-STYLE.")
	writeFile(t, filepath.Join(repo, "svc", "CLAUDE.md"), "Service rules: CLAUDE-SVC.")
	writeFile(t, filepath.Join(repo, "svc", "api", "AGENTS.md"), "API rules: API-AGENTS.")
	writeFile(t, filepath.Join(repo, "svc", "api", "v2", "AGENTS.md"), "BELOW-THE-WORKING-DIRECTORY")
	rec := &agents.Recorder{}
	d, _, _ := testDirector(t, testEnv{srv: srv, home: home, store: blackboard.Open(filepath.Join(home, "notes")), id: "sess-c", kind: memory.KindRun,
		events: rec, workspace: filepath.Join(repo, "svc", "api")})
	if _, err := d.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	system := srv.Requests()[0].Messages[0].Content
	order := []string{"## " + filepath.Join(home, "AGENTS.md") + " (the person's)\nPerson: PERSON-RULE.", "## AGENTS.md\nRoot rules: ROOT-AGENTS.",
		"## docs/style.md (imported by AGENTS.md)\nStyle: IMPORTED-STYLE.", "## svc/CLAUDE.md (applies to svc/ and below)\nService rules: CLAUDE-SVC.",
		"## svc/api/AGENTS.md (applies to svc/api/ and below)\nAPI rules: API-AGENTS."}
	at := 0
	for _, s := range order {
		i := strings.Index(system[at:], s)
		if i < 0 {
			t.Errorf("the system prompt lacks %q after byte %d:\n%s", s, at, system)
			break
		}
		at += i
	}
	if strings.Contains(system, "IGNORED-ROOT-CLAUDE") || strings.Contains(system, "BELOW-THE-WORKING-DIRECTORY") {
		t.Errorf("the system prompt holds a file it must not:\n%s", system)
	}
	if got := d.app.Context.Summary(); got != "context files: "+filepath.Join(home, "AGENTS.md")+", AGENTS.md, docs/style.md (imported by AGENTS.md), svc/CLAUDE.md, svc/api/AGENTS.md" {
		t.Errorf("Summary (what /status lists) = %q", got)
	}

	big := filepath.Join(t.TempDir(), "big")
	writeFile(t, filepath.Join(big, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(big, "AGENTS.md"), strings.Repeat("A long rule.\n", 3000))
	writeFile(t, filepath.Join(big, "sub", "AGENTS.md"), "CUT-SUB")
	rec2 := &agents.Recorder{}
	d2, _, _ := testDirector(t, testEnv{srv: srv, home: t.TempDir(), store: blackboard.Open(filepath.Join(home, "notes2")), id: "sess-d", kind: memory.KindRun,
		events: rec2, workspace: filepath.Join(big, "sub")})
	if _, err := d2.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	var notices []string
	for _, e := range rec2.Events() {
		if e.Type == agents.EventNotice {
			notices = append(notices, e.Text)
		}
	}
	if n := strings.Join(notices, "\n"); !strings.Contains(n, "context files cut at 32768 bytes: the end of AGENTS.md, sub/AGENTS.md not included") {
		t.Errorf("notices:\n%s\nwant the cap's note", n)
	}
	if system := srv.Requests()[len(srv.Requests())-1].Messages[0].Content; strings.Contains(system, "CUT-SUB") || len(system) > 40<<10 {
		t.Errorf("the capped system prompt is %d bytes and holds CUT-SUB: %v", len(system), strings.Contains(system, "CUT-SUB"))
	}
}
