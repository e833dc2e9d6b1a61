package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestSetupOnATerminal pins the first ten minutes (issue 32 item 5): bare
// yagent with no model configured, on a terminal, starts the setup —
// provider, base URL, a pasted key (not echoed), a model from the
// endpoint's /models — writes $YAGENT_HOME/config.yaml and goes on into
// the session; a second run, with nothing in the environment, uses that
// configuration: the endpoint, the model, the pasted key. Every wait has
// a deadline that fails with what the terminal showed.
func TestSetupOnATerminal(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	sc, err := llmtest.Parse([]byte("steps: [{reply: {text: answered by the configured model}, repeat: true}]"), "setup")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, llmtest.WithModels("small"),
		llmtest.WithModelCards(llmtest.ModelCard{ID: "big", ContextLength: 200000, Prompt: "0.000002", Completion: "0.000008"}))
	defer srv.Close()
	work := t.TempDir()
	home := filepath.Join(work, "home", ".yagent")
	env := append(os.Environ(), "HOME="+filepath.Join(work, "home"), "YAGENT_HOME="+home, "YAGENT_NOTES_ROOT="+filepath.Join(work, "notes"),
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "YAGENT_MODEL=", "TERM=dumb")

	cmd := testio.Command(t, testio.ChildTimeout, bin)
	cmd.Dir, cmd.Env = work, env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	screen := &testio.Buffer{}
	go io.Copy(screen, ptmx)
	answer := func(question, keys string) {
		t.Helper()
		if !waitFor(screen, question, screenWait) {
			cmd.Process.Kill()
			t.Fatalf("no %q on the terminal; it showed:\n%s", question, screen)
		}
		ptmx.Write([]byte(keys))
	}
	answer("provider [1-14 or a name]: ", "vllm\r")
	answer("base URL [http://localhost:8000/v1]: ", srv.URL()+"\r")
	answer(`or "none" [none]: `, "paste\r")
	answer("paste the key (it is not shown", "sk-pasted-secret\r")
	answer("model [number, id, or part of an id]: ", "big\r")
	answer("yagent — new session", "\x04") // the session started; end it
	if err := cmd.Wait(); err != nil {
		t.Fatalf("yagent: %v; the terminal showed:\n%s", err, screen)
	}
	shown := screen.String()
	if strings.Contains(shown, "sk-pasted-secret") {
		t.Errorf("the pasted key was shown:\n%s", shown)
	}
	if !strings.Contains(shown, "context window: 200000 tokens (the endpoint's /models)") {
		t.Errorf("the terminal showed:\n%s\nwant the window /models gave", shown)
	}
	data, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err != nil || strings.Contains(string(data), "sk-pasted-secret") || !strings.Contains(string(data), "model: big") {
		t.Fatalf("config.yaml = %q, %v; want model big, without the key", data, err)
	}

	run := testio.Command(t, testio.ChildTimeout, bin, "run", "hello")
	run.Dir, run.Env = work, env
	out, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "answered by the configured model") {
		t.Fatalf("yagent run after setup: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Model != "big" || last.Header.Get("Authorization") != "Bearer sk-pasted-secret" {
		t.Errorf("the second run asked model %q with Authorization %q; want big with the pasted key", last.Model, last.Header.Get("Authorization"))
	}
}
