package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

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
	_, screen, answer := onPTY(t, cmd)
	answer("provider [1-14 or a name]: ", "vllm\r")
	answer("base URL [http://localhost:8000/v1]: ", srv.URL()+"\r")
	answer(`or "none" [none]: `, "paste\r")
	answer("paste the key (it is not shown", "sk-pasted-secret\r")
	answer("model [number, id, or part of an id]: ", "big\r")
	answer("› ", "\x04") // the session's prompt: end it (typed at the banner, before the line editor's raw mode, the tty may drop it)
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

// TestSetupCtrlCAtTheKey pins that Ctrl-C while the key is read (echo
// off) ends the setup at once (exit 130), writes nothing and gives the
// terminal its echo back.
func TestSetupCtrlCAtTheKey(t *testing.T) {
	bin, err := exec.LookPath("yagent")
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	work := t.TempDir()
	home := filepath.Join(work, "home", ".yagent")
	cmd := testio.Command(t, testio.ChildTimeout, bin, "setup")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(work, "home"), "YAGENT_HOME="+home, "YAGENT_NOTES_ROOT="+filepath.Join(work, "notes"), "TERM=dumb")
	ptmx, screen, answer := onPTY(t, cmd)
	answer("provider [1-14 or a name]: ", "generic\r")
	answer("base URL: ", "http://127.0.0.1:9/v1\r")
	answer(`or "none" [none]: `, "paste\r")
	answer("paste the key (it is not shown", "")
	// The key is read with the echo off; wait until it is, then Ctrl-C.
	for deadline := time.Now().Add(screenWait); ; time.Sleep(20 * time.Millisecond) {
		if tio, err := unix.IoctlGetTermios(int(ptmx.Fd()), unix.TCGETS); err == nil && tio.Lflag&unix.ECHO == 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the echo was never turned off for the key; the terminal showed:\n%s", screen)
		}
	}
	ptmx.Write([]byte("\x03"))
	err = cmd.Wait()
	if code := exitCodeOf(err); code != 130 {
		t.Fatalf("yagent setup after Ctrl-C exited %d (%v); want 130; the terminal showed:\n%s", code, err, screen)
	}
	tio, err := unix.IoctlGetTermios(int(ptmx.Fd()), unix.TCGETS)
	if err != nil || tio.Lflag&unix.ECHO == 0 {
		t.Errorf("after Ctrl-C the terminal's echo is off (%v); want it restored", err)
	}
	if _, err := os.Stat(filepath.Join(home, "config.yaml")); err == nil {
		t.Error("a setup stopped by Ctrl-C wrote config.yaml")
	}
}

// TestWindowNoticeOnATerminal pins "else 128 000 with a notice": an
// interactive session, and a yagent run, on a terminal whose model no
// file, table or setup gave a window says so before it starts.
func TestWindowNoticeOnATerminal(t *testing.T) {
	bin, err := exec.LookPath("yagent")
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	sc, err := llmtest.Parse([]byte("steps: [{optional: true, repeat: true, reply: {text: Answered.}}]"), "notice")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc)
	defer srv.Close()
	for _, tc := range []struct {
		name, wait string
		args       []string
	}{
		{"chat", "› ", nil}, // the prompt: the line editor reads from here (a key typed before it may be flushed)
		{"run", "Answered.", []string{"run", "hi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			cmd := testio.Command(t, testio.ChildTimeout, bin, tc.args...)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(work, "home"), "YAGENT_HOME="+filepath.Join(work, "home", ".yagent"),
				"YAGENT_NOTES_ROOT="+filepath.Join(work, "notes"), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=", "YAGENT_MODEL=my-finetune", "TERM=dumb")
			_, screen, answer := onPTY(t, cmd)
			answer(tc.wait, "\x04") // the session started (or the run answered); end it
			if err := cmd.Wait(); err != nil {
				t.Fatalf("yagent: %v; the terminal showed:\n%s", err, screen)
			}
			if !strings.Contains(screen.String(), `notice: the context window of model "my-finetune" is not known`) {
				t.Errorf("the terminal showed:\n%s\nwant the notice of the assumed window", screen)
			}
		})
	}
}

// onPTY starts cmd on a 200×40 pseudo-terminal (skipping the test where
// there is none) and returns it, what it shows, and answer: wait for a
// question, then type keys — failing the test with the screen when the
// question never comes.
func onPTY(t *testing.T, cmd *exec.Cmd) (*os.File, *testio.Buffer, func(question, keys string)) {
	t.Helper()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	screen := &testio.Buffer{}
	go io.Copy(screen, ptmx)
	return ptmx, screen, func(question, keys string) {
		t.Helper()
		if !waitFor(screen, question, screenWait) {
			cmd.Process.Kill()
			t.Fatalf("no %q on the terminal; it showed:\n%s", question, screen)
		}
		ptmx.Write([]byte(keys))
	}
}
