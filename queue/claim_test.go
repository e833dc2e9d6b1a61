package queue

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
)

// TestClaimsInPostgres: with queue.dsn, claims are rows decided by
// INSERT … ON CONFLICT DO NOTHING. Four claimants over two connections
// (two hosts) race for each of 20 tasks: exactly one wins each, the
// others are told who holds it; a task's state is derived from its row
// and the note it names; a release frees only the releaser's own claim;
// no claim file is written.
func TestClaimsInPostgres(t *testing.T) {
	dsn := pgtest.New(t)
	root := filepath.Join(t.TempDir(), "notes")
	var stores []*blackboard.Store
	for range 2 {
		q, err := Open(t.Context(), Options{DSN: dsn, RescueAfter: time.Hour, MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(q.Close)
		stores = append(stores, blackboard.Open(root).WithClaims(q.Claims(t.Context())))
	}
	var refs []string
	for i := range 20 {
		tk, err := stores[0].PostTask("b", blackboard.Task{Title: fmt.Sprint("task ", i), Team: "t"})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, tk.Ref)
	}
	var mu sync.Mutex
	won := map[string][]string{}
	var wg sync.WaitGroup
	for c := range 4 {
		s := stores[c%2]
		wg.Go(func() {
			for _, ref := range refs {
				note := blackboard.Ref{Agent: "worker", Stem: s.NewStem()}.String()
				res, err := s.ClaimTask("b", ref, blackboard.Claim{Agent: "worker", Session: fmt.Sprint("s", c), Ref: note})
				if err != nil {
					t.Error(err)
					return
				}
				if !res.Won && (res.Holder == nil || res.Holder.Agent != "worker") {
					t.Errorf("a lost claim of %s names no holder: %+v", ref, res)
				}
				if res.Won {
					mu.Lock()
					won[ref] = append(won[ref], note)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for _, ref := range refs {
		if len(won[ref]) != 1 {
			t.Errorf("%s won by %d claimants; want exactly 1", ref, len(won[ref]))
		}
	}
	r, _ := blackboard.ParseNoteRef(won[refs[0]][0])
	if _, err := stores[1].WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "worker", Conclusion: "done"}, Stem: r.Stem}); err != nil {
		t.Fatal(err)
	}
	l, err := stores[0].Tasks("b")
	if err != nil {
		t.Fatal(err)
	}
	if n := l.Counts(); n[blackboard.TaskDone] != 1 || n[blackboard.TaskClaimed] != 19 {
		t.Errorf("counts %v; want 1 done, 19 claimed", n)
	}
	held := l.Tasks[1].Claim
	other := *held
	other.Ref = "worker/" + stores[0].NewStem()
	stores[0].ReleaseClaim("b", other)
	stores[0].ReleaseClaim("b", *l.Tasks[0].Claim) // its note landed: kept
	if l, _ := stores[1].Tasks("b"); l.Tasks[0].State != blackboard.TaskDone || l.Tasks[1].State != blackboard.TaskClaimed {
		t.Fatalf("after releases of a landed and another's claim: %s, %s; want done, claimed", l.Tasks[0].State, l.Tasks[1].State)
	}
	if err := stores[1].ReleaseClaim("b", *held); err != nil {
		t.Fatal(err)
	}
	if l, _ := stores[0].Tasks("b"); l.Tasks[1].State != blackboard.TaskOpen {
		t.Errorf("released task is %s; want open", l.Tasks[1].State)
	}
	if _, err := os.Stat(filepath.Join(root, "b", ".claims")); !os.IsNotExist(err) {
		t.Errorf("claims were written as files too: %v", err)
	}
}
