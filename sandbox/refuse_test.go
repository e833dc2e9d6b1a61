package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			if !errors.As(err, &ue) || !containsAll(err.Error(), "--sandbox off", "refused", "user namespaces") {
				t.Errorf("ABI %d, %s: Command err = %v; want a refusal naming --sandbox off", abi, mode, err)
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
	force(p, LandlockOnly)
	if d := p.Describe(); !containsAll(d, "sandbox: workspace-write (Landlock ABI 7 only: user namespaces are unavailable", errNoNamespaces.Error(), "no network", "nothing can be created directly in a workspace root that holds .git") {
		t.Errorf("landlock: %q", d)
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
	for _, root := range []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(home, "sessions")} {
		p, err := New(WorkspaceWrite, ws, []string{root})
		if err != nil {
			t.Fatal(err)
		}
		p.Home = home
		if err := p.Check(); err == nil || !containsAll(err.Error(), "agents.sandbox_writable", root) {
			t.Errorf("writable root %s: Check = %v", root, err)
		}
	}
}
