package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yagent/yagent/sandbox/helper"
)

// TestMain lets this test binary act as the helper (the sandbox/helper
// package takes a re-executed process over in its init), as the network
// and system-call client the tests run inside the sandbox (SANDBOXTEST_NET,
// netClient), as a yagent-like process running confined commands
// (SANDBOXTEST_CHILD), and as a test run whose kernel refuses user
// namespaces (SANDBOXTEST_NO_USERNS: a seccomp filter, as a distribution's
// restriction would).
func TestMain(m *testing.M) {
	if os.Getenv("SANDBOXTEST_NO_USERNS") != "" {
		if err := refuseUserNamespaces(); err != nil {
			fmt.Fprintln(os.Stderr, "SANDBOXTEST_NO_USERNS:", err)
			os.Exit(2)
		}
	}
	if spec := os.Getenv("SANDBOXTEST_CHILD"); spec != "" {
		os.Exit(childRun(spec))
	}
	if spec := os.Getenv("SANDBOXTEST_NET"); spec != "" {
		if err := netClient(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if clientDir != "" {
		removeTree(clientDir)
	}
	os.Exit(code)
}

// clientDir holds a copy of this test binary that confined commands can
// run (the original lies in the system temp dir, which a view replaces).
var (
	clientOnce sync.Once
	clientDir  string
	clientErr  error
)

// client returns the path of this test binary's visible copy.
func client(t *testing.T) string {
	t.Helper()
	clientOnce.Do(func() {
		self, err := os.Executable()
		if err != nil {
			clientErr = err
			return
		}
		if clientDir, clientErr = os.MkdirTemp("/var/tmp", "yagent-sandbox-client-"); clientErr != nil {
			return
		}
		os.Chmod(clientDir, 0o755)
		data, err := os.ReadFile(self)
		if err == nil {
			err = os.WriteFile(filepath.Join(clientDir, "client"), data, 0o755)
		}
		clientErr = err
	})
	if clientErr != nil {
		t.Skipf("no copy of the test binary to run inside the sandbox: %v", clientErr)
	}
	real, _ := realPath(filepath.Join(clientDir, "client"))
	return real
}

// errNoNamespaces stands for a kernel that refuses user namespaces.
var errNoNamespaces = errors.New("user namespaces refused on purpose (test)")

// needSandbox skips a test that confines real commands where this system
// cannot (the refusal itself is TestUnavailableRefuses).
func needSandbox(t *testing.T) {
	t.Helper()
	if !Available() {
		t.Skipf("no sandbox here: namespaces: %v; Landlock ABI %d", probeNamespaces(), probeABI())
	}
}

// eachMechanism runs f under the view and under Landlock alone (user
// namespaces refused on purpose), those this machine has.
func eachMechanism(t *testing.T, f func(t *testing.T, mech Mechanism)) {
	t.Helper()
	if !osSupported {
		t.Skip("no OS sandbox on this system")
	}
	for _, mech := range []Mechanism{View, LandlockOnly} {
		t.Run(mech.String(), func(t *testing.T) {
			switch {
			case mech == View && probeNamespaces() != nil:
				t.Skipf("no user namespaces here: %v", probeNamespaces())
			case mech == LandlockOnly && probeABI() < MinABI:
				t.Skipf("no Landlock ABI %d here (have %d)", MinABI, probeABI())
			}
			f(t, mech)
		})
	}
}

// visibleDir is a fresh directory outside the system temp dir, which a
// view replaces by the command's private one: what a command may see but
// not write.
func visibleDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "yagent-sandbox-test-")
	if err != nil {
		t.Skipf("no /var/tmp to test in: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeTree(dir) })
	real, err := realPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// box is a workspace with a .git, a subdirectory and a top-level file, an
// extra writable root, a directory outside all, and $YAGENT_HOME; all but
// home outside the system temp dir.
type box struct {
	ws, extra, outside, home string
	mech                     Mechanism
}

func newBox(t *testing.T, mech Mechanism) box {
	t.Helper()
	b := box{ws: visibleDir(t), extra: visibleDir(t), outside: visibleDir(t), home: t.TempDir(), mech: mech}
	for _, d := range []string{".git/hooks", "src"} {
		mustMkdir(t, filepath.Join(b.ws, d))
	}
	mustWrite(t, filepath.Join(b.ws, ".git", "config"), "[core]\n")
	mustWrite(t, filepath.Join(b.ws, "README"), "hello\n")
	return b
}

func (b box) policy(t *testing.T, mode Mode) *Policy {
	t.Helper()
	p, err := New(mode, b.ws, []string{b.extra})
	if err != nil {
		t.Fatal(err)
	}
	p.Home = b.home
	p.UserHome = b.outside
	force(p, b.mech)
	t.Cleanup(func() { p.Close() })
	return p
}

// force makes p use mech (Landlock alone: namespaces refused).
func force(p *Policy, mech Mechanism) {
	if mech == LandlockOnly {
		p.Namespaces = func() error { return errNoNamespaces }
	}
}

func (m Mechanism) String() string {
	switch m {
	case View:
		return "view"
	case LandlockOnly:
		return "landlock"
	}
	return "none"
}

func mustMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a shell script under p in dir and returns its combined output
// and whether it exited 0. env are added to the command's environment.
func run(t *testing.T, p *Policy, dir, script string, env ...string) (string, bool) {
	t.Helper()
	cmd, err := p.Command(childCtx(t), dir, "sh", "-c", script)
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	cmd.Env = append(cmd.Env, env...)
	if helper.CHelper() {
		// The C helper takes every command of these tests: the Go one
		// refuses (TestCHelperTakesCommands).
		cmd.Env = append(cmd.Env, helper.NoGoHelper+"=1")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %q: %v", script, err)
	}
	return out.String(), err == nil
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
