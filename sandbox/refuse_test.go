package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yagent/yagent/sandbox/helper"
)

// Where commands can get neither a view nor Landlock ABI 4, a confining
// mode refuses every command and names --sandbox off; off still runs; a
// view needs no Landlock.
func TestUnavailableRefuses(t *testing.T) {
	if !osSupported {
		t.Skip("no OS sandbox on this system: the mode in force is off")
	}
	b := newBox(t, LandlockOnly)
	for _, abi := range []int{0, 3} {
		for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
			p := b.policy(t, mode)
			p.ABI = func() int { return abi }
			_, err := p.Command(childCtx(t), b.ws, "sh", "-c", "echo x > ran")
			var ue *UnavailableError
			has := "this kernel has no Landlock"
			if abi > 0 {
				has = fmt.Sprintf("this kernel has only Landlock ABI %d", abi)
			}
			if !errors.As(err, &ue) || !containsAll(err.Error(), "--sandbox off", "refused", "user namespaces are unavailable ("+errNoNamespaces.Error()+")", has) {
				t.Errorf("ABI %d, %s: Command err = %v; want a refusal naming --sandbox off, why and what the kernel has", abi, mode, err)
			}
			if d := p.Describe(); !containsAll(d, "unavailable", "--sandbox off") {
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
	if probeNamespaces() == nil {
		v := newBox(t, View).policy(t, WorkspaceWrite)
		v.ABI = func() int { return 0 }
		if out, ok := run(t, v, v.Workspace, "echo x > ran"); !ok {
			t.Errorf("a view without Landlock refused: %q", out)
		}
		if d := v.Describe(); !strings.Contains(d, "no Landlock") {
			t.Errorf("Describe = %q; want it to say there is no Landlock layer", d)
		}
	}
}

// A system can confine commands with namespaces for a view, or with
// Landlock alone from MinABI on.
func TestConfinable(t *testing.T) {
	for _, c := range []struct {
		ns   error
		abi  int
		want bool
	}{
		{nil, 0, true}, {errNoNamespaces, MinABI, true}, {errNoNamespaces, MinABI + 3, true},
		{errNoNamespaces, MinABI - 1, false}, {errNoNamespaces, 0, false},
	} {
		if got := confinable(c.ns, c.abi); got != c.want {
			t.Errorf("confinable(%v, %d) = %v; want %v", c.ns, c.abi, got, c.want)
		}
	}
}

// The helper never downgrades: rules the kernel cannot enforce stop the
// command before it runs.
func TestHelperFailsClosed(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		p.ABI = func() int { return 99 } // more than any kernel has
		out, ok := run(t, p, b.ws, "echo x > src/ran")
		if ok || !strings.Contains(out, "could not confine the command, so it did not run") {
			t.Errorf("unenforceable rules: ok = %v, %q; want a refusal", ok, out)
		}
		if _, err := os.Stat(filepath.Join(b.ws, "src", "ran")); err == nil {
			t.Error("the command ran although the sandbox could not be applied")
		}
	})
}

// A view step that fails stops the command before it runs (exit 126,
// the step named), whatever the steps before it did.
func TestViewFailsClosed(t *testing.T) {
	needView(t)
	ws, outside := visibleDir(t), visibleDir(t)
	at := filepath.Join(outside, "missing", "ws") // on the read-only root
	spec := helper.Spec{Mechanism: helper.View, ABI: probeABI(), Dir: ws, Argv: []string{"sh", "-c", "echo ran"},
		Ops: []helper.Op{{Kind: helper.Tmp, Path: t.TempDir()}, {Kind: helper.Bind, Path: ws, At: at}}}
	cmd := exec.Command(selfExe, spec.Args()...)
	cmd.SysProcAttr = nsAttr()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.WaitDelay = time.Minute
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 126 || strings.Contains(string(out), "ran") ||
		!containsAll(string(out), "could not build the sandbox's view", at) {
		t.Errorf("a view step failed: %v, %q; want exit 126 naming the step, the command not run", err, out)
	}
}

// The probe that chooses the view fails where a user namespace has no
// power over mounts (here: one without a mount namespace of its own, as
// Ubuntu's AppArmor restriction leaves it), so the Landlock mechanism is
// chosen rather than a view that cannot be built.
func TestProbeFailsClosed(t *testing.T) {
	needView(t)
	attr := nsAttr()
	attr.Cloneflags = syscall.CLONE_NEWUSER
	if err := probeView(attr); err == nil || !strings.Contains(err.Error(), "make the mounts private") {
		t.Errorf("probe in a user namespace that cannot mount: %v; want the failed step named", err)
	}
	if err := probeView(nsAttr()); err != nil {
		t.Errorf("probe in the namespaces a command gets: %v", err)
	}
}

// Describe names the mode and the mechanism in force.
func TestDescribe(t *testing.T) {
	if !osSupported {
		t.Skip("no OS sandbox here")
	}
	b := newBox(t, View)
	p := b.policy(t, WorkspaceWrite)
	p.Namespaces = func() error { return nil }
	p.ABI = func() int { return 7 }
	if d := p.Describe(); !containsAll(d, "sandbox: workspace-write (a view", "Landlock ABI 7", "own loopback only") {
		t.Errorf("view: %q", d)
	}
	if d := p.Describe(); !strings.Contains(d, "write only in the workspace (not .git") || strings.Contains(d, "write nowhere") {
		t.Errorf("view, workspace-write: %q", d)
	}
	p.ABI = func() int { return 1 }
	if d := p.Describe(); !strings.Contains(d, "Landlock ABI 1 and seccomp inside") {
		t.Errorf("view on Landlock ABI 1: %q", d)
	}
	ro := b.policy(t, ReadOnly)
	ro.Namespaces, ro.ABI = p.Namespaces, p.ABI
	if d := ro.Describe(); !containsAll(d, "sandbox: read-only (a view", "write nowhere of yours") {
		t.Errorf("view, read-only: %q", d)
	}
	p.ABI = func() int { return 7 }
	force(p, LandlockOnly)
	if d := p.Describe(); !containsAll(d, "sandbox: workspace-write (Landlock ABI 7 only: user namespaces are unavailable", errNoNamespaces.Error(), "no network", "nothing can be created directly in a workspace root that holds .git") {
		t.Errorf("landlock: %q", d)
	}
	if d := b.policy(t, Off).Describe(); d != "sandbox: off — shell commands run with all of your permissions" {
		t.Errorf("off: %q", d)
	}
}

// Cancelling a command's context kills everything it started, not only
// its first process: under Landlock alone its process group, in a view
// its pid namespace.
func TestCancelKillsGroup(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cmd, err := p.Command(ctx, b.ws, "sh", "-c", "(trap '' TERM HUP; i=0; while [ $i -lt 400 ] && echo x >> src/tick; do i=$((i+1)); sleep 0.05; done) & wait")
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tick := filepath.Join(b.ws, "src", "tick")
		size := func() int64 {
			fi, err := os.Stat(tick)
			if err != nil {
				return 0
			}
			return fi.Size()
		}
		for deadline := time.Now().Add(10 * time.Second); size() == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the command's child never ticked")
			}
		}
		cancel()
		cmd.Wait()
		time.Sleep(200 * time.Millisecond)
		before := size()
		time.Sleep(300 * time.Millisecond)
		if after := size(); after != before {
			t.Errorf("a child of the cancelled command still runs (%d → %d bytes)", before, after)
		}
	})
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

// A writable root that does not exist, is relative, or overlaps what the
// sandbox keeps shut is refused naming agents.sandbox_writable.
func TestNewWritableRoots(t *testing.T) {
	ws := t.TempDir()
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := New(WorkspaceWrite, ws, []string{missing}); err == nil || !containsAll(err.Error(), missing, "agents.sandbox_writable") {
		t.Errorf("missing root: err = %v", err)
	}
	if _, err := New(WorkspaceWrite, ws, []string{"rel/dir"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative root: err = %v", err)
	}
	if _, err := New("bogus", ws, nil); err == nil {
		t.Error("bogus mode accepted")
	}
	home := t.TempDir()
	mustMkdir(t, filepath.Join(ws, ".git", "hooks"))
	mustMkdir(t, filepath.Join(home, "sessions"))
	mustMkdir(t, filepath.Join(ws, ".husky", "_"))
	mustWrite(t, filepath.Join(ws, ".git", "config"), "[core]\n\thooksPath = .husky/_\n")
	for _, root := range []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(home, "sessions"), filepath.Join(ws, ".husky", "_")} {
		p, err := New(WorkspaceWrite, ws, []string{root})
		if err != nil {
			t.Fatal(err)
		}
		p.Home = home
		if err := p.Check(); err == nil || !containsAll(err.Error(), "agents.sandbox_writable", root) {
			t.Errorf("writable root %s: Check = %v", root, err)
		}
	}
	for _, root := range []string{filepath.Join(ws, ".husky"), home} {
		p, err := New(WorkspaceWrite, ws, []string{root})
		if err != nil {
			t.Fatal(err)
		}
		p.Home = filepath.Join(home, "sessions")
		if err := p.Check(); err != nil {
			t.Errorf("writable root %s, around what is kept shut: Check = %v", root, err)
		}
	}
}

// The usable Landlock ABI: none when the kernel has none; 6 and newer
// only with the signal-scoping erratum fixed.
func TestUsableABI(t *testing.T) {
	errNo := errors.New("no")
	fixed := func() (int, error) { return 0x3, nil }
	unfixed := func() (int, error) { return 0x1, nil }
	unknown := func() (int, error) { return 0, errNo }
	for _, c := range []struct {
		v      int
		err    error
		errata func() (int, error)
		want   int
	}{
		{0, errNo, fixed, 0}, {-1, nil, fixed, 0}, {0, nil, fixed, 0}, {4, nil, unknown, 4},
		{5, nil, unfixed, 5}, {6, nil, fixed, 6}, {6, nil, unfixed, 5}, {7, nil, fixed, 7},
		{7, nil, unfixed, 5}, {7, nil, unknown, 5},
	} {
		if got := usableABI(c.v, c.err, c.errata); got != c.want {
			t.Errorf("usableABI(%d, %v, errata) = %d; want %d", c.v, c.err, got, c.want)
		}
	}
}

// resolved resolves the symbolic links of a path's longest existing part
// (a path that may not exist yet, under a linked directory).
func TestResolved(t *testing.T) {
	dir, err := realPath(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, filepath.Join(dir, "real", "sub"))
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{filepath.Join(dir, "link"), filepath.Join(dir, "real")},
		{filepath.Join(dir, "link", "sub") + "/", filepath.Join(dir, "real", "sub")},
		{filepath.Join(dir, "link", "missing", "x"), filepath.Join(dir, "real", "missing", "x")},
		{filepath.Join(dir, "none", "..", "link", "y"), filepath.Join(dir, "real", "y")},
		{"/", "/"},
	} {
		if got := resolved(c.in); got != c.want {
			t.Errorf("resolved(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}
