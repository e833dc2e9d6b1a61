package demo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlace pins the demo's throwaway place: the sample workspace in it
// (or the person's directory, untouched), a home of its own that hides
// $YAGENT_HOME and $YAGENT_NOTES_ROOT, and nothing left after Remove.
func TestPlace(t *testing.T) {
	p, err := NewPlace("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.Workspace, "README.md")); err != nil {
		t.Errorf("sample workspace: %v", err)
	}
	env := map[string]string{"YAGENT_HOME": "/mine", "YAGENT_NOTES_ROOT": "/my/notes", "PATH": "/bin"}
	getenv := p.Getenv(func(k string) string { return env[k] })
	if getenv("YAGENT_HOME") != p.Home || getenv("YAGENT_NOTES_ROOT") != "" || getenv("PATH") != "/bin" {
		t.Errorf("getenv: home %q, notes root %q, PATH %q", getenv("YAGENT_HOME"), getenv("YAGENT_NOTES_ROOT"), getenv("PATH"))
	}
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Root); !os.IsNotExist(err) {
		t.Errorf("after Remove: stat %s: %v", p.Root, err)
	}

	mine := t.TempDir()
	q, err := NewPlace(mine)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Remove()
	if q.Workspace != mine {
		t.Errorf("workspace = %s; want %s", q.Workspace, mine)
	}
}
