package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Deadlines of the tests that drive the binary: generous (a loaded
// machine runs three copies of the suite at once), and only a failure
// waits for them.
const (
	// buildTimeout bounds one go build of the command.
	buildTimeout = 5 * time.Minute
	// screenWait bounds the wait for what a terminal should show next.
	screenWait = 60 * time.Second
)

// yagentBinary builds the command once per test run.
func yagentBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "yagent-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "yagent")
		out, err := testio.Command(t, buildTimeout, "go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build yagent: %v", buildErr)
	}
	return binPath
}

// openPTY returns the master side and the slave path of a new pseudo-terminal.
func openPTY(t *testing.T) (*os.File, string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	_ = unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 160})
	return master, "/dev/pts/" + strconv.Itoa(n)
}

// screen collects what the terminal shows.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// expect waits until the screen shows text (after offset from), colours
// and cursor movements aside.
func (s *screen) expect(t *testing.T, from int, text string) int {
	t.Helper()
	deadline := time.Now().Add(screenWait)
	for time.Now().Before(deadline) {
		out := ansi.Strip(s.String())
		if i := strings.Index(out[min(from, len(out)):], text); i >= 0 {
			return from + i + len(text)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the terminal never showed %q; it shows:\n%s", text, s.String())
	return 0
}

// TestInteractiveChat uses interactive mode as a person would, through a
// pseudo-terminal: the prompt, an answer streamed back, slash commands,
// Ctrl-C cancelling a slow step without leaving, and /quit.
func TestInteractiveChat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := yagentBinary(t)
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "interactive.yaml"))
	master, slavePath := openPTY(t)
	defer master.Close()
	slave, err := os.OpenFile(slavePath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := testio.Command(t, testio.ChildTimeout, bin)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "YAGENT_HOME="+filepath.Join(home, ".yagent"), "YAGENT_NOTES_ROOT=",
		"OPENAI_BASE_URL="+srv.URL(), "YAGENT_MODEL=scripted", "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	scr := &screen{}
	go func() { _, _ = bufCopy(scr, master) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	}()
	type_ := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	// idle waits until the turn's closing rule is printed: the turn is
	// over and Enter is the composer's (typed while a turn ends, under
	// load, a line was lost). The rule is printed by the update that ends
	// the turn; the status line is not a witness, since the renderer
	// redraws only the cells that changed ("/help" may never be sent
	// again).
	idle := func(at int) int { return scr.expect(t, at, "── ") }
	at := scr.expect(t, 0, "new session")
	at = scr.expect(t, at, "/help")
	type_("hello\r")
	at = scr.expect(t, at, "hello back")
	at = idle(at)
	type_("/rename mychat\r")
	at = scr.expect(t, at, `this session is now "mychat"`)
	type_("slow please\r")
	for deadline := time.Now().Add(screenWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(srv.Requests()) >= 2 {
			break
		}
	}
	at = scr.expect(t, at, "esc to interrupt")
	type_("\x03") // Ctrl-C during the step, the composer empty: cancel it, stay
	at = scr.expect(t, at, "cancelled")
	at = idle(at)
	type_("after cancel\r")
	at = scr.expect(t, at, "still here")
	at = idle(at)
	type_("/board\r")
	at = scr.expect(t, at, "is empty")
	type_("/nosuch\r")
	at = scr.expect(t, at, "the commands are: /board")
	type_("/help\r")
	at = scr.expect(t, at, "/compact")
	type_("/quit\r")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("yagent exited with %v; screen:\n%s", err, scr.String())
		}
	case <-time.After(screenWait):
		t.Fatalf("yagent did not exit after /quit; screen:\n%s", scr.String())
	}
	scr.expect(t, at, "yagent resume mychat")
	ls := testio.Command(t, testio.ChildTimeout, bin, "sessions", "ls", "--all", "--json")
	ls.Env = cmd.Env
	out, err := ls.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"name": "mychat"`) || !strings.Contains(string(out), `"turns": 3`) || !strings.Contains(string(out), `"kind": "interactive"`) {
		t.Errorf("sessions ls after the chat = %s, %v", out, err)
	}
	srv.AssertDone(t)
}

func bufCopy(dst *screen, src *os.File) (int64, error) {
	buf := make([]byte, 4096)
	var n int64
	for {
		k, err := src.Read(buf)
		if k > 0 {
			dst.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}
