package director

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSkills (issue 31 item 2): a person's skill with a resource file is
// in the first request's catalogue, loaded on demand by the skill tool,
// its resource read, a path out of its directory refused; an agent
// definition's skills: preloads its text; curation counts the skill's
// use (skill:NAME); a broken SKILL.md and an untrusted workspace's skills
// are notices, never a failure.
func TestSkills(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "skills.yaml"))
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "skills/pdf-forms/SKILL.md"), "---\nname: pdf-forms\ndescription: Fill PDF forms. Use when a PDF form must be filled.\n---\nFill the form top to bottom; see references/forms.md.\n")
	writeFile(t, filepath.Join(home, "skills/pdf-forms/references/forms.md"), "Field 3 is the date.\n")
	writeFile(t, filepath.Join(home, "secret.txt"), "SECRET\n")
	writeFile(t, filepath.Join(home, "skills/broken/SKILL.md"), "# no front matter\n")
	writeFile(t, filepath.Join(ws, ".claude/skills/ws-skill/SKILL.md"), "---\nname: ws-skill\ndescription: From a cloned repository.\n---\nbody\n")
	writeFile(t, filepath.Join(ws, ".yagent/agents/filler.md"), "---\nname: filler\ndescription: Fills forms.\ntools: read_file\nskills: pdf-forms\n---\nYou fill forms.\n")
	rec := &agents.Recorder{}
	store := blackboard.Open(filepath.Join(home, "notes"))
	d, _, _ := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "sess-s", kind: memory.KindRun, events: rec, workspace: ws})

	out, err := d.Turn(t.Context(), "fill the PDF form")
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != "The form is filled." {
		t.Errorf("Final = %q; want the scenario's answer", out.Final)
	}
	srv.AssertDone(t)

	reqs := srv.Requests()
	first := reqs[0]
	system := first.Messages[0].Content
	if !strings.Contains(system, "- pdf-forms: Fill PDF forms. Use when a PDF form must be filled.") || strings.Contains(system, "ws-skill") {
		t.Errorf("first request's system prompt:\n%s\nwant the person's skill listed and not the untrusted workspace's", system)
	}
	var results []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	all := strings.Join(results, "\n---\n")
	for _, want := range []string{"Fill the form top to bottom", "- references/forms.md", "Field 3 is the date.", "outside the skill's directory"} {
		if !strings.Contains(all, want) {
			t.Errorf("tool results lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "SECRET") {
		t.Error("a path out of the skill's directory was read")
	}
	var notices []string
	for _, e := range rec.Events() {
		if e.Type == agents.EventNotice {
			notices = append(notices, e.Text)
		}
	}
	n := strings.Join(notices, "\n")
	if !strings.Contains(n, "1 skill skipped: "+filepath.Join(home, "skills/broken/SKILL.md")+" (no YAML front matter") || !strings.Contains(n, "not reading the skills of "+filepath.Join(ws, ".claude", "skills")+": this directory is not trusted") {
		t.Errorf("notices:\n%s\nwant the broken skill and the untrusted directory named", n)
	}
	var calls int
	if err := d.SleepStore().DB.QueryRowContext(t.Context(), `SELECT COALESCE(SUM(calls), 0) FROM tool_stats WHERE chat_id = ? AND tool = ?`, "sess-s", "skill:pdf-forms").Scan(&calls); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("curation counted %d uses of skill:pdf-forms; want 3", calls)
	}
}
