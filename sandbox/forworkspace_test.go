package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestForWorkspace pins a delegation's worktree under $YAGENT_HOME: its
// commands write there and only there; the person's workspace is read,
// never written; in a view the rest of $YAGENT_HOME — another
// delegation's worktree, the configuration — stays hidden.
func TestForWorkspace(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		tree := filepath.Join(b.home, "worktrees", "board", "n1")
		other := filepath.Join(b.home, "worktrees", "board", "n2")
		mustMkdir(t, tree)
		mustMkdir(t, other)
		mustWrite(t, filepath.Join(other, "o.txt"), "other\n")
		mustWrite(t, filepath.Join(b.home, "config.yaml"), "sandbox: off\n")
		q, err := p.ForWorkspace(tree)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		out, ok := run(t, q, tree, "echo made > made.txt && cat "+filepath.Join(b.ws, "README"))
		if !ok || !strings.Contains(out, "hello") {
			t.Fatalf("in the worktree: %s", out)
		}
		if got, err := os.ReadFile(filepath.Join(tree, "made.txt")); err != nil || string(got) != "made\n" {
			t.Errorf("made.txt in the worktree: %q, %v", got, err)
		}
		for _, target := range []string{filepath.Join(b.ws, "x.txt"), filepath.Join(other, "x.txt"), filepath.Join(b.home, "config.yaml")} {
			if out, ok := run(t, q, tree, "echo x >> "+target); ok {
				t.Errorf("wrote %s from a delegation's worktree: %s", target, out)
			}
		}
		if mech == View {
			for _, hidden := range []string{filepath.Join(other, "o.txt"), filepath.Join(b.home, "config.yaml")} {
				if out, ok := run(t, q, tree, "cat "+hidden); ok {
					t.Errorf("read %s from a delegation's worktree: %s", hidden, out)
				}
			}
		}
	})
}

// TestForWorkspaceCopiesEverySetting: every exported field but Workspace
// carries over (a field added later must be copied too).
func TestForWorkspaceCopiesEverySetting(t *testing.T) {
	p := &Policy{Mode: ReadOnly, Workspace: t.TempDir(), Writable: []string{"/w"}, Home: "/h", UserHome: "/u",
		Visible: []string{"/v"}, Env: []string{"E"}, TempDir: "/t", ABI: func() int { return 1 },
		Namespaces: func() error { return nil }, Helper: "/x"}
	q, err := p.ForWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pv, qv := reflect.ValueOf(p).Elem(), reflect.ValueOf(q).Elem()
	for i := range pv.NumField() {
		f := pv.Type().Field(i)
		if !f.IsExported() || f.Name == "Workspace" {
			continue
		}
		a, b := pv.Field(i), qv.Field(i)
		if a.Kind() == reflect.Func {
			if a.Pointer() != b.Pointer() {
				t.Errorf("%s not carried over", f.Name)
			}
		} else if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			t.Errorf("%s not carried over: %v, want %v", f.Name, b.Interface(), a.Interface())
		}
	}
	if q.Workspace == p.Workspace {
		t.Error("the workspace did not change")
	}
}
