package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
)

// followableNote lands on board fx a note a follow-up can continue, as a
// delegation leaves one: its sub-agent session (a child of session, with
// a task and an answer) named in its front matter. It returns its ref.
func followableNote(t *testing.T, st *memory.Store, board *blackboard.Store, dir, session string) string {
	t.Helper()
	sub, err := st.Create(t.Context(), memory.CreateOptions{Kind: memory.KindSubagent, Cwd: dir, BoardID: "fx", ParentID: session})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []llm.Message{{Role: llm.RoleUser, Content: "Task:\nLook around."}, {Role: llm.RoleAssistant, Content: "Looked."}} {
		if err := sub.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := board.WriteNote("fx", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer",
		Task: "Look around.", Conclusion: "looked", Session: sub.ID()}, Body: "Looked.\n"})
	if err != nil {
		t.Fatal(err)
	}
	return m.Ref
}

// spoofNote is a note a model wrote to mislead whoever reads the board: a
// conclusion that erases itself to read "All tests pass.", a task whose
// second line poses as another field, a body that clears the screen and
// sets the clipboard (OSC 52), a right-to-left override in a fact.
const spoofNote = "---\nversion: 2\nstatus: failed\nagent: worker\n" +
	"task: \"fix the build\\nstatus: ok\"\n" +
	"conclusion: \"Tests fail: 3 of 40.\\r\\e[2KAll tests pass.\"\n" +
	"facts:\n  - \"invoice_\\u202etxt.exe\"\nartifacts: []\ncreated: 2026-12-01T10:15:00Z\n---\n" +
	"Body line.\n\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07Second line.\r\n"

// TestBoardShowShowsControls: `board show` (whole and streamed) and
// `board ls` render a note's control characters visibly — the terminal
// shows ␍ and ␛, never obeys them — and keep a field's next lines indented
// under it; --json keeps the note's text as data. The screen is read as a
// terminal draws it (testio.Screen). Before, the conclusion read "All
// tests pass." on the screen.
func TestBoardShowShowsControls(t *testing.T) {
	home, notes := t.TempDir(), t.TempDir()
	dir := filepath.Join(notes, "b1", "worker")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const ref = "worker/20261201T101500Z_ab12-4242-000001"
	if err := os.WriteFile(filepath.Join(notes, "b1", ref+".md"), []byte(spoofNote), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"YAGENT_HOME": home, "YAGENT_NOTES_ROOT": notes}
	screen := func(out string) string {
		s := &testio.Screen{Width: 200}
		s.Write([]byte(strings.ReplaceAll(out, "\n", "\r\n")))
		return s.String()
	}
	show := func(t *testing.T) {
		code, out, errOut := runCLI(t, t.Context(), env, "board", "show", "--board", "b1", ref)
		if code != 0 {
			t.Fatalf("board show: exit %d: %s", code, errOut)
		}
		shown := screen(out)
		for _, want := range []string{
			"conclusion: Tests fail: 3 of 40.␍␛[2KAll tests pass.",
			"task: fix the build\n  status: ok",
			"- invoice_\\u202etxt.exe",
			"Body line.\n␛[2J␛]52;c;cm0gLXJmIH4=␇Second line.␍",
		} {
			if !strings.Contains(shown, want) {
				t.Errorf("board show lacks %q; the terminal shows:\n%s", want, shown)
			}
		}
		for _, l := range strings.Split(shown, "\n") {
			if strings.HasPrefix(l, "conclusion: All tests pass") || l == "status: ok" {
				t.Errorf("board show lets the note draw %q; the terminal shows:\n%s", l, shown)
			}
		}
	}
	t.Run("show", show)
	t.Run("show streamed", func(t *testing.T) {
		// A note over blackboard.max_note_bytes is copied, not loaded.
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("blackboard:\n  max_note_bytes: 100\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(home, "config.yaml"))
		show(t)
	})
	t.Run("ls", func(t *testing.T) {
		code, out, errOut := runCLI(t, t.Context(), env, "board", "ls", "--board", "b1")
		if code != 0 {
			t.Fatalf("board ls: exit %d: %s", code, errOut)
		}
		if shown := screen(out); !strings.Contains(shown, "Tests fail: 3 of 40.␍␛[2KAll tests pass.") {
			t.Errorf("board ls does not show the conclusion's controls; the terminal shows:\n%s", shown)
		}
	})
	t.Run("json is data", func(t *testing.T) {
		code, out, errOut := runCLI(t, t.Context(), env, "board", "show", "--board", "b1", ref, "--json")
		if code != 0 {
			t.Fatalf("board show --json: exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, `Tests fail: 3 of 40.\r\u001b[2KAll tests pass.`) || strings.Contains(out, "␛") {
			t.Errorf("--json does not keep the note's text as data:\n%s", out)
		}
	})
}
