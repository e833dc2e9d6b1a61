package memory

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	home := t.TempDir()
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := NewStore(db, home)
	var mu sync.Mutex
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	st.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	return st
}

func newSession(t *testing.T, st *Store, kind, cwd string) *Session {
	t.Helper()
	s, err := st.Create(t.Context(), CreateOptions{Kind: kind, Cwd: cwd, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func user(s string) llm.Message      { return llm.Message{Role: llm.RoleUser, Content: s} }
func assistant(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }

// turn appends one whole turn (user, assistant) to a session.
func turn(t *testing.T, s *Session, q, a string) {
	t.Helper()
	n, err := s.BeginTurn(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []llm.Message{user(q), assistant(a)} {
		if err := s.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EndTurn(t.Context(), n, "answer"); err != nil {
		t.Fatal(err)
	}
}
