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

	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

// shellScenario makes the model run one shell command that leaves a file.
const shellScenario = `
name: who-can-ask
steps:
  - id: touch
    repeat: true
    match: {contains: "case:ask", last_role: user}
    reply:
      tool_calls:
        - {name: shell, arguments: {command: "echo hi > ran.txt"}}
  - id: done
    repeat: true
    match: {contains: "case:ask", last_role: tool}
    reply: {text: "Done."}
`

// TestWhoCanAsk pins that a shell command runs unasked only with
// --allow-shell, and that yagent asks only when stdin and stderr are both
// terminals. It drives the real binary with each kind of stdin/stderr a
// person meets in cron, CI, nohup, ssh and pipes; only a pseudo-terminal on
// both gets the question. Before the fix /dev/null counted as a terminal
// (a character device) and the command ran with nobody asked.
func TestWhoCanAsk(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	sc, err := llmtest.Parse([]byte(shellScenario), "who-can-ask")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := llmtest.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// setup returns a command in a fresh workspace and home.
	setup := func(t *testing.T, name string, args ...string) (*exec.Cmd, string) {
		work := t.TempDir()
		cmd := testio.Command(t, testio.ChildTimeout, name, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(),
			"HOME="+filepath.Join(work, "home"),
			"YAGENT_HOME="+filepath.Join(work, "home", ".yagent"),
			"YAGENT_NOTES_ROOT="+filepath.Join(work, "notes"),
			"OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=", "YAGENT_MODEL=scripted", "TERM=dumb",
		)
		return cmd, work
	}
	ran := func(work string) bool {
		_, err := os.Stat(filepath.Join(work, "ran.txt"))
		return err == nil
	}

	t.Run("stdin is /dev/null", func(t *testing.T) {
		cmd, work := setup(t, bin, "run", "case:ask")
		// stdin nil: os/exec opens /dev/null
		out, stderr, err := runNobodyThere(cmd)
		assertRefused(t, ran(work), out, stderr, err)
	})
	t.Run("stdin is a pipe", func(t *testing.T) {
		cmd, work := setup(t, bin, "run", "case:ask")
		cmd.Stdin = strings.NewReader("y\ny\ny\n")
		out, stderr, err := runNobodyThere(cmd)
		assertRefused(t, ran(work), out, stderr, err)
	})
	t.Run("stdin is closed", func(t *testing.T) {
		cmd, work := setup(t, "sh", "-c", `exec "$0" run case:ask <&-`, bin)
		out, stderr, err := runNobodyThere(cmd)
		assertRefused(t, ran(work), out, stderr, err)
	})
	t.Run("batch, stdin is /dev/null", func(t *testing.T) {
		cmd, work := setup(t, bin, "batch", "plan.yaml")
		plan := "delegations:\n  - id: touch\n    agent: worker\n    task: case:ask\n"
		if err := os.WriteFile(filepath.Join(work, "plan.yaml"), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("yagent batch: %v\n%s", err, out)
		}
		if ran(work) {
			t.Errorf("a sub-agent's shell command ran with nobody asked and no --allow-shell\n%s", out)
		}
	})
	t.Run("stderr redirected, stdin a terminal", func(t *testing.T) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal here: %v", err)
		}
		defer ptmx.Close()
		cmd, work := setup(t, bin, "run", "case:ask")
		cmd.Stdin = tty
		go io.Copy(io.Discard, ptmx)
		ptmx.Write([]byte("y\ny\n"))
		_, stderr, err := runNobodyThere(cmd, tty) // stdout is the terminal
		tty.Close()
		assertRefused(t, ran(work), "-", stderr, err)
	})
	t.Run("a real terminal asks", func(t *testing.T) {
		cmd, work := setup(t, bin, "run", "case:ask")
		ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			t.Skipf("no pseudo-terminal here: %v", err)
		}
		defer ptmx.Close()
		screen := &testio.Buffer{}
		go io.Copy(screen, ptmx)
		if !waitFor(screen, "allow?", screenWait) {
			cmd.Process.Kill()
			t.Fatalf("no approval question on the terminal; screen:\n%s", screen)
		}
		ptmx.Write([]byte("y\r"))
		if err := cmd.Wait(); err != nil {
			t.Fatalf("yagent run: %v; screen:\n%s", err, screen)
		}
		if !ran(work) {
			t.Errorf("approved command did not run; screen:\n%s", screen)
		}
	})
}

// runNobodyThere runs a command whose approvals nobody can answer and
// returns its stdout and stderr (stdout to tty instead, when given). A
// question on stderr is answered by killing the command: it waits for a
// key nobody will press (a regression of CanAsk hung here for minutes,
// its child reading the terminal), and assertRefused reports the question.
func runNobodyThere(cmd *exec.Cmd, tty ...*os.File) (string, string, error) {
	stdout, stderr := &testio.Buffer{}, &testio.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if len(tty) > 0 {
		cmd.Stdout = tty[0]
	}
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			return stdout.String(), stderr.String(), err
		case <-time.After(20 * time.Millisecond):
			if strings.Contains(stderr.String(), "allow?") {
				cmd.Process.Kill()
				<-done
				return stdout.String(), stderr.String(), nil // assertRefused says it asked
			}
		}
	}
}

func assertRefused(t *testing.T, ran bool, stdout, stderr string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("yagent run: %v\nstderr:\n%s", err, stderr)
	}
	if ran {
		t.Errorf("the shell command ran with nobody asked and no --allow-shell\nstderr:\n%s", stderr)
	}
	if strings.Contains(stderr, "allow?") {
		t.Errorf("asked a question nobody can answer\nstderr:\n%s", stderr)
	}
	if !strings.Contains(stderr, "nobody can be asked") || !strings.Contains(stderr, "--allow-shell") {
		t.Errorf("the refusal does not say why and what to do\nstderr:\n%s", stderr)
	}
	if stdout != "-" && strings.TrimSpace(stdout) != "Done." {
		t.Errorf("stdout = %q; want the final answer", stdout)
	}
}

func waitFor(b *testio.Buffer, text string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(b.String(), text) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestApprovalShowsCommandAsRun drives the real binary through a
// pseudo-terminal and reads the screen as a terminal draws it
// (testio.Screen): a command whose carriage return and erase-line
// sequence would redraw the question as "? run `ls -la` in …" shows them
// as ␍ and ␛ with the command that runs, whole; a command of two lines
// shows both. Before, the bytes reached the terminal: the screen read
// `ls -la` and y ran `touch pwned.txt`.
func TestApprovalShowsCommandAsRun(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "approval-spoof.yaml"))
	work := t.TempDir()
	cmd := testio.Command(t, testio.ChildTimeout, bin, "run", "make a file")
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"HOME="+filepath.Join(work, "home"),
		"YAGENT_HOME="+filepath.Join(work, "home", ".yagent"),
		"YAGENT_NOTES_ROOT="+filepath.Join(work, "notes"),
		"OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=", "YAGENT_MODEL=scripted", "TERM=dumb",
	)
	const cols = 200
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: cols})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	raw, screen := &testio.Buffer{}, &testio.Screen{Width: cols}
	go io.Copy(io.MultiWriter(raw, screen), ptmx)
	asked := func(n int) string {
		t.Helper()
		for deadline := time.Now().Add(screenWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Count(raw.String(), "allow?") >= n {
				return screen.String()
			}
		}
		cmd.Process.Kill()
		t.Fatalf("no question %d; screen:\n%s", n, screen)
		return ""
	}

	shown := asked(1)
	if want := "? run `touch pwned.txt #␍␛[2K? run `ls -la` in " + work; !strings.Contains(shown, want) {
		t.Errorf("the question does not show the command that runs, controls visible; want a line with\n%s\nscreen:\n%s", want, shown)
	}
	for _, l := range strings.Split(shown, "\n") {
		if strings.HasPrefix(l, "? run `ls -la` in") {
			t.Errorf("the screen shows the spoofed question %q; screen:\n%s", l, shown)
		}
	}
	ptmx.Write([]byte("n"))

	shown = asked(2)
	if want := "? run `ls -la\n  │ touch pwned2.txt` in " + work; !strings.Contains(shown, want) {
		t.Errorf("a command of two lines is not shown whole; want\n%s\nscreen:\n%s", want, shown)
	}
	ptmx.Write([]byte("n"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("yagent run: %v; screen:\n%s", err, screen)
	}
	for _, f := range []string{"pwned.txt", "pwned2.txt"} {
		if _, err := os.Stat(filepath.Join(work, f)); err == nil {
			t.Errorf("%s exists: a declined command ran", f)
		}
	}
}
