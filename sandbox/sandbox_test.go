package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets this test binary act as the helper (a confined command
// re-executes it) and as the network client the network tests run inside
// the sandbox (SANDBOXTEST_NET).
func TestMain(m *testing.M) {
	MaybeRunHelper()
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
	os.Exit(m.Run())
}

// netClient does one network operation: "tcp ADDR" and "mptcp ADDR"
// connect, "udp ADDR" sends a datagram, "listen" listens on a loopback
// port (Go listens with MPTCP by default).
func netClient(spec string) error {
	kind, addr, _ := strings.Cut(spec, " ")
	switch kind {
	case "tcp", "mptcp":
		var d net.Dialer
		d.Timeout = 5 * time.Second
		d.SetMultipathTCP(kind == "mptcp")
		c, err := d.Dial("tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	case "udp":
		c, err := net.Dial("udp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("ping"))
		return err
	case "listen":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		return l.Close()
	}
	return fmt.Errorf("SANDBOXTEST_NET %q", spec)
}

// needLandlock skips a test that confines real commands on a kernel that
// cannot (the refusal itself is TestNoLandlockRefuses).
func needLandlock(t *testing.T) {
	t.Helper()
	if !osSupported || probeABI() < MinABI {
		t.Skipf("no Landlock ABI %d here (have %d)", MinABI, probeABI())
	}
}

// box is a workspace with a .git, a subdirectory and a top-level file, a
// separate temp dir, an extra writable root and a directory outside all.
type box struct {
	ws, tmp, extra, outside string
}

func newBox(t *testing.T) box {
	t.Helper()
	b := box{ws: t.TempDir(), tmp: t.TempDir(), extra: t.TempDir(), outside: t.TempDir()}
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
	p.TempDir = b.tmp
	return p
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
// and whether it exited 0.
func run(t *testing.T, p *Policy, dir, script string, env ...string) (string, bool) {
	t.Helper()
	cmd, err := p.Command(t.Context(), dir, "sh", "-c", script)
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %q: %v", script, err)
	}
	return out.String(), err == nil
}

func TestWorkspaceWrite(t *testing.T) {
	needLandlock(t)
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	tests := []struct {
		name   string
		script string
		path   string // must exist after the script exactly when wantOK
		wantOK bool
	}{
		{"inside the workspace", "echo x > src/new.go", "src/new.go", true},
		{"a new directory tree inside", "mkdir -p src/a/b && echo x > src/a/b/c", "src/a/b/c", true},
		{"an existing top-level file in place", "echo more >> README", "", true},
		{"the temp dir", "echo x > " + filepath.Join(b.tmp, "t"), filepath.Join(b.tmp, "t"), true},
		{"an extra writable root", "echo x > " + filepath.Join(b.extra, "e"), filepath.Join(b.extra, "e"), true},
		{"/dev/null", "echo x > /dev/null", "", true},
		{"its own stderr", "echo x > /dev/stderr", "", true},
		{"outside every root", "echo x > " + filepath.Join(b.outside, "o"), filepath.Join(b.outside, "o"), false},
		{"a hook in .git", "echo evil > .git/hooks/pre-commit", ".git/hooks/pre-commit", false},
		{".git/config", "echo '[core] fsmonitor = evil' >> .git/config", "", false},
		{"removing .git", "rm -rf .git", "", false},
		{"renaming .git away", "mv .git src/g", "src/g", false},
		{"a new entry in the split workspace root", "echo x > top.txt", "top.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := run(t, p, b.ws, tt.script)
			if ok != tt.wantOK {
				t.Errorf("%q: ok = %v; want %v (output %q)", tt.script, ok, tt.wantOK, out)
			}
			if tt.path == "" {
				return
			}
			path := tt.path
			if !filepath.IsAbs(path) {
				path = filepath.Join(b.ws, path)
			}
			if _, err := os.Stat(path); (err == nil) != tt.wantOK {
				t.Errorf("%q: %s exists = %v; want %v", tt.script, path, err == nil, tt.wantOK)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(b.ws, ".git", "config")); string(data) != "[core]\n" {
		t.Errorf(".git/config changed: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(b.ws, "README")); string(data) != "hello\nmore\n" {
		t.Errorf("README = %q; want the appended line", data)
	}
}

// Confining a command never confines the process that started it.
func TestParentStaysFree(t *testing.T) {
	needLandlock(t)
	b := newBox(t)
	if _, ok := run(t, b.policy(t, ReadOnly), b.ws, "true"); !ok {
		t.Fatal("a confined true failed")
	}
	if err := os.WriteFile(filepath.Join(b.outside, "parent"), []byte("x"), 0o644); err != nil {
		t.Errorf("the parent lost its write access: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("the parent lost its network: %v", err)
	}
	l.Close()
}

// A workspace without .git is granted whole: new top-level files work.
func TestWorkspaceWithoutGitIsWholeTree(t *testing.T) {
	needLandlock(t)
	b := newBox(t)
	if err := os.RemoveAll(filepath.Join(b.ws, ".git")); err != nil {
		t.Fatal(err)
	}
	p := b.policy(t, WorkspaceWrite)
	if out, ok := run(t, p, b.ws, "echo x > top.txt && rm README"); !ok {
		t.Fatalf("write at the top of a workspace without .git refused: %q", out)
	}
}

// A temp dir (or writable root) that contains the workspace does not
// reopen its .git.
func TestRootContainingWorkspaceKeepsGit(t *testing.T) {
	needLandlock(t)
	parent := t.TempDir()
	ws := filepath.Join(parent, "proj")
	mustMkdir(t, filepath.Join(ws, ".git"))
	mustMkdir(t, filepath.Join(parent, "other"))
	p, err := New(WorkspaceWrite, ws, []string{parent})
	if err != nil {
		t.Fatal(err)
	}
	p.TempDir = parent
	if out, ok := run(t, p, ws, "echo x > .git/HEAD"); ok {
		t.Errorf(".git writable through a root containing the workspace: %q", out)
	}
	if out, ok := run(t, p, ws, "echo x > "+filepath.Join(parent, "other", "f")); !ok {
		t.Errorf("a sibling of the workspace inside the root refused: %q", out)
	}
}

func TestReadOnly(t *testing.T) {
	needLandlock(t)
	b := newBox(t)
	p := b.policy(t, ReadOnly)
	for _, target := range []string{filepath.Join(b.ws, "src", "f"), filepath.Join(b.tmp, "f"), filepath.Join(b.extra, "f")} {
		if out, ok := run(t, p, b.ws, "echo x > "+target); ok {
			t.Errorf("read-only: wrote %s (%q)", target, out)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("read-only: %s exists", target)
		}
	}
	if out, ok := run(t, p, b.ws, "cat README > /dev/null && ls src"); !ok {
		t.Errorf("read-only: reading refused: %q", out)
	}
}

// No network under a confining mode: TCP connect (Landlock), MPTCP
// connect and listen and UDP (seccomp: Landlock does not see them), each
// checked against a live listener; off reaches them all.
func TestNetwork(t *testing.T) {
	needLandlock(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := newBox(t)
	for _, mode := range []Mode{WorkspaceWrite, ReadOnly, Off} {
		for _, spec := range []string{"tcp " + tcp.Addr().String(), "mptcp " + tcp.Addr().String(), "udp " + udp.LocalAddr().String(), "listen"} {
			out, ok := run(t, b.policy(t, mode), b.ws, self, "SANDBOXTEST_NET="+spec)
			if want := mode == Off; ok != want {
				t.Errorf("%s: %s: ok = %v; want %v (%q)", mode, spec, ok, want, out)
			}
			if mode != Off && !strings.Contains(out, "permission denied") {
				t.Errorf("%s: %s failed, but not with EACCES: %q", mode, spec, out)
			}
			if strings.HasPrefix(spec, "tcp") || strings.HasPrefix(spec, "mptcp") {
				select {
				case <-accepted:
					if mode != Off {
						t.Errorf("%s: %s reached the listener", mode, spec)
					}
				case <-time.After(map[bool]time.Duration{true: 5 * time.Second, false: 100 * time.Millisecond}[mode == Off]):
					if mode == Off {
						t.Errorf("off: %s never reached the listener", spec)
					}
				}
			}
		}
	}
	udp.SetReadDeadline(time.Now().Add(time.Second))
	buf := make([]byte, 16)
	if n, _, err := udp.ReadFrom(buf); err != nil || string(buf[:n]) != "ping" {
		t.Errorf("off: the datagram did not arrive (%v)", err)
	}
	udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, from, err := udp.ReadFrom(buf); err == nil {
		t.Errorf("a second datagram arrived from %s: a confined command sent it", from)
	}
}

// From ABI 6 on, a confined command cannot signal a process outside its
// sandbox (yagent, or anything else of the person's).
func TestSignalsScoped(t *testing.T) {
	needLandlock(t)
	if probeABI() < 6 {
		t.Skipf("Landlock ABI %d has no signal scoping", probeABI())
	}
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	b := newBox(t)
	pid := fmt.Sprint(victim.Process.Pid)
	if out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, "kill -TERM "+pid); ok {
		t.Errorf("a confined command signalled pid %s: %q", pid, out)
	}
	// Its own children it can still signal.
	if out, _ := run(t, b.policy(t, WorkspaceWrite), b.ws, "sleep 30 & kill $!; wait $!; echo status $?"); !strings.Contains(out, "status 143") {
		t.Errorf("a confined command could not signal its own child: %q", out)
	}
	if victim.ProcessState != nil {
		t.Error("the victim exited")
	}
	if out, ok := run(t, b.policy(t, Off), b.ws, "kill -0 "+pid); !ok {
		t.Errorf("off: kill -0 refused: %q", out)
	}
}

// A kernel without the Landlock the mode needs refuses every command and
// names --sandbox off; off still runs.
func TestNoLandlockRefuses(t *testing.T) {
	if !osSupported {
		t.Skip("no OS sandbox on this system: the mode in force is off")
	}
	b := newBox(t)
	for _, abi := range []int{0, 3} {
		for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
			p := b.policy(t, mode)
			p.ABI = func() int { return abi }
			_, err := p.Command(t.Context(), b.ws, "sh", "-c", "echo x > ran")
			var ue *UnavailableError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--sandbox off") || !strings.Contains(err.Error(), "refused") {
				t.Errorf("ABI %d, %s: Command err = %v; want a refusal naming --sandbox off", abi, mode, err)
			}
			if d := p.Describe(); !strings.Contains(d, "unavailable") || !strings.Contains(d, "--sandbox off") {
				t.Errorf("ABI %d, %s: Describe = %q", abi, mode, d)
			}
		}
		p := b.policy(t, Off)
		p.ABI = func() int { return abi }
		if out, ok := run(t, p, b.ws, "echo x > ran"); !ok {
			t.Errorf("ABI %d, off: %q", abi, out)
		}
	}
	if _, err := os.Stat(filepath.Join(b.ws, "ran")); err != nil {
		t.Errorf("off did not run the command: %v", err)
	}
}

// The helper never downgrades: rules the kernel cannot enforce stop the
// command before it runs.
func TestHelperFailsClosed(t *testing.T) {
	needLandlock(t)
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	p.ABI = func() int { return 99 } // more than any kernel has
	out, ok := run(t, p, b.ws, "echo x > src/ran")
	if ok || !strings.Contains(out, "could not confine the command, so it did not run") {
		t.Errorf("unenforceable rules: ok = %v, %q; want a refusal", ok, out)
	}
	if _, err := os.Stat(filepath.Join(b.ws, "src", "ran")); err == nil {
		t.Error("the command ran although the sandbox could not be applied")
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"workspace-write", "read-only", "off"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "on", "Workspace-Write", "danger-full-access"} {
		if _, err := ParseMode(s); err == nil || !strings.Contains(err.Error(), "want workspace-write, read-only or off") {
			t.Errorf("ParseMode(%q) err = %v", s, err)
		}
	}
}

func TestNewWritableRoots(t *testing.T) {
	ws := t.TempDir()
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := New(WorkspaceWrite, ws, []string{missing}); err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "agents.sandbox_writable") {
		t.Errorf("missing root: err = %v", err)
	}
	if _, err := New(WorkspaceWrite, ws, []string{"rel/dir"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative root: err = %v", err)
	}
	if _, err := New("bogus", ws, nil); err == nil {
		t.Error("bogus mode accepted")
	}
}
