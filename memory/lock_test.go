package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

// TestOneWriterPerSession: of several resumes of one session at once,
// exactly one gets it; the others are told who holds it. With Wait they
// all get it, one after the other, and their turns never interleave.
func TestOneWriterPerSession(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "q1", "a1")
	if _, err := st.Resume(t.Context(), s.ID()); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("Resume of a session its creator still holds = %v; want busy", err)
	}
	s.Close()

	const n = 6
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		won  []*Session
		busy []error
	)
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			r, err := st.Resume(t.Context(), s.ID())
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				busy = append(busy, err)
				return
			}
			won = append(won, r)
		})
	}
	close(start)
	wg.Wait()
	if len(won) != 1 || len(busy) != n-1 {
		t.Fatalf("%d resumes got the session, %d were refused; want exactly 1 and %d", len(won), len(busy), n-1)
	}
	want := fmt.Sprintf("session %s is in use by pid %d (since ", s.ID(), os.Getpid())
	for _, err := range busy {
		var be *BusyError
		if !errors.As(err, &be) || !strings.HasPrefix(err.Error(), want) || be.Since.IsZero() {
			t.Errorf("refused resume = %v; want %q…", err, want)
		}
	}
	won[0].Close()

	// With Wait every resume gets the session in turn.
	waited := 0
	for i := range n {
		wg.Go(func() {
			r, err := st.ResumeWith(t.Context(), s.ID(), ResumeOptions{LockOptions: LockOptions{Wait: true, OnWait: func(*BusyError) {
				mu.Lock()
				waited++
				mu.Unlock()
			}}})
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			q := fmt.Sprintf("waited %d", i)
			n, err := r.BeginTurn(t.Context(), q)
			if err != nil {
				t.Error(err)
				return
			}
			// Calls and results written in steps, as a turn does.
			call := llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: "{}"}
			for _, m := range []llm.Message{user(q), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
				{Role: llm.RoleTool, ToolCallID: "call_1", Content: "ok"}, assistant("done " + q)} {
				if err := r.Append(m); err != nil {
					t.Error(err)
				}
			}
			if err := r.EndTurn(t.Context(), n, "answer"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if waited == 0 {
		t.Error("no resume waited: the test did not exercise --wait")
	}
	ro, err := LoadRollout(s.Info().Rollout)
	if err != nil {
		t.Fatal(err)
	}
	open, turns := 0, map[int]bool{}
	for _, it := range ro.Items {
		switch it.Type {
		case event.TurnStarted:
			if open != 0 {
				t.Fatalf("turn %d started inside turn %d: two writers interleaved", it.Turn, open)
			}
			if turns[it.Turn] {
				t.Errorf("two turns numbered %d", it.Turn)
			}
			open, turns[it.Turn] = it.Turn, true
		case event.TurnFinished:
			open = 0
		}
	}
	if len(turns) != n+1 {
		t.Errorf("%d turns recorded; want %d", len(turns), n+1)
	}
	mem, _ := Rebuild(ro.Items)
	if rep := mem.Check(); rep != (Repairs{}) {
		t.Errorf("the serialised rollout needs repairs: %s", rep)
	}
}

// TestReadOnlyResume: a session opened to look at it takes no lock and
// records nothing.
func TestReadOnlyResume(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "q1", "a1")
	ro, err := st.ResumeWith(t.Context(), s.ID(), ResumeOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only resume of a held session = %v", err)
	}
	defer ro.Close()
	if pid, _ := LockHolder(s.Info().Rollout); pid != os.Getpid() {
		t.Errorf("LockHolder = pid %d; want this process (%d), which holds the session", pid, os.Getpid())
	}
	if pid, _ := LockHolder(filepath.Join(t.TempDir(), "rollout-x.jsonl")); pid != 0 {
		t.Errorf("LockHolder of a session never locked = pid %d; want 0", pid)
	}
	if len(ro.History()) != 2 {
		t.Errorf("history = %+v", ro.History())
	}
	if err := ro.Append(user("x")); err == nil {
		t.Error("a read-only session recorded a message")
	}
}

// TestDeleteRefusesHeldSession: sessions rm does not pull a session from
// under the process working in it.
func TestDeleteRefusesHeldSession(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	if _, err := st.Delete(t.Context(), s.ID()); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("Delete of a held session = %v; want busy", err)
	}
	s.Close()
	if _, err := st.Delete(t.Context(), s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(s.Info().Rollout)); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
}
