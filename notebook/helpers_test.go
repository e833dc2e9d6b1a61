package notebook

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/memory"
)

func testConfig() config.Notes {
	return config.Notes{Enabled: true, MaxNoteChars: 200, IndexEnterChars: 600, IndexEnterNotes: 6, IndexLeaveChars: 400, IndexLeaveNotes: 4,
		CompactChars: 1200, CompactNotes: 12, CompactTargetChars: 600, MaxNotes: 6, PinnedChars: 300, PinnedMax: 2}
}

// newBook returns a notebook of a fresh session in a temp state database.
func newBook(t *testing.T) (*Book, *memory.Store, string) {
	t.Helper()
	home := t.TempDir()
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := memory.NewStore(db, home)
	s, err := st.Create(t.Context(), memory.CreateOptions{Kind: memory.KindInteractive, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	b := Open(db, s.ID(), testConfig())
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	b.now = func() time.Time { now = now.Add(time.Second); return now }
	return b, st, s.ID()
}

func save(t *testing.T, b *Book, name, desc, body string) {
	t.Helper()
	if _, err := b.Save(t.Context(), name, desc, body); err != nil {
		t.Fatalf("Save(%s): %v", name, err)
	}
}

type agentsCall struct{ name, args string }

func (c agentsCall) call() *agents.Call { return &agents.Call{Name: c.name, Args: []byte(c.args)} }
