package blackboard

import (
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// newTestStore returns a store in a temp dir whose clock starts at t0 and
// advances one second per note, so file-name order is unambiguous.
// testIndex are the index valves of config/defaults.yaml.
var testIndex = IndexOptions{MaxNotes: 12, LineChars: 160}

func newTestStore(t *testing.T) *Store {
	t.Helper()
	s := Open(filepath.Join(t.TempDir(), "notes"))
	var mu sync.Mutex
	now := t0
	s.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	s.namer = fixedNamer("e9fb", 4242)
	return s
}

// fixedNamer returns a namer with a pinned random tag and pid.
func fixedNamer(tag string, pid int) *namer {
	n := &namer{}
	n.once.Do(func() { n.tag, n.pid = tag, pid })
	return n
}

func put(t *testing.T, s *Store, board, agent, conclusion string, facts ...string) NoteMeta {
	t.Helper()
	m, err := s.WriteNote(board, NewNote{
		Handoff: Handoff{Status: StatusOK, Agent: agent, Task: "task of " + agent, Conclusion: conclusion, Facts: facts},
		Body:    "# Deliverable\n\nFull text from " + agent + ": " + conclusion + "\n",
	})
	if err != nil {
		t.Fatalf("WriteNote: %v", err)
	}
	return m
}

// writeRaw writes a file of note shape with arbitrary content, as a legacy
// writer or a crash might have left it.
func writeRaw(t *testing.T, s *Store, board, agent, stem, content string) {
	t.Helper()
	dir := AgentDir(s.root, board, agent)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, stem+".md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", t.Name(), name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run go test -update)", path, err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden %s (go test -update to accept):\n--- got\n%s\n--- want\n%s", t.Name(), path, got, want)
	}
}
