package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestClaimsOf: what app.RunOptions.Claims gets with queue.dsn. No DSN,
// no claims (files); a DSN opens the queue at the first claim, not
// before (an address nobody answers fails that claim naming its source,
// and only then); claims of a run whose context was cancelled still
// decide and release (a member stopped by Ctrl-C frees its task); after
// close no claim opens the queue again.
func TestClaimsOf(t *testing.T) {
	if ClaimsOf(Options{}) != nil {
		t.Fatal("ClaimsOf without a DSN gave claims; want nil (claims stay files)")
	}
	c := blackboard.Claim{Version: blackboard.ClaimVersion, Task: "task/x", Agent: "worker", Ref: "worker/x", Time: time.Now()}

	bad, closeBad := ClaimsOf(Options{DSN: "postgres://yagent@127.0.0.1:1/none?connect_timeout=2", Source: "queue.dsn",
		RescueAfter: time.Hour, MaxAttempts: 1})(t.Context())
	_, _, err := bad.Create("b", c)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "queue.dsn") {
		t.Errorf("a claim on an unreachable queue: %v; want ErrUnreachable naming queue.dsn", err)
	}
	closeBad()

	dsn := pgtest.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	claims, closeClaims := ClaimsOf(Options{DSN: dsn, RescueAfter: time.Hour, MaxAttempts: 1})(ctx)
	lazy := claims.(*lazyClaims)
	if lazy.q != nil {
		t.Fatal("the queue was opened before the first claim")
	}
	if _, won, err := claims.Create("b", c); err != nil || !won {
		t.Fatalf("first claim: won %v, %v; want won", won, err)
	}
	cancel()
	other := c
	other.Ref, other.Agent = "reviewer/y", "reviewer"
	if holder, won, err := claims.Create("b", other); err != nil || won || holder.Ref != c.Ref {
		t.Errorf("a second claim after the run's cancel: %+v, won %v, %v; want the first claim's holder", holder, won, err)
	}
	if err := claims.Release("b", c); err != nil {
		t.Errorf("release after the run's cancel: %v", err)
	}
	if h, err := claims.Get("b", c.Task); err != nil || h != nil {
		t.Errorf("after the release: %+v, %v; want no claim", h, err)
	}
	closeClaims()
	if _, _, err := claims.Create("b", c); err == nil {
		t.Error("a claim after close succeeded; want an error")
	}
}

// TestUseClaims: a store that only reads claims (board tasks, the web
// view) sees the claims a run took in PostgreSQL with queue.dsn, and the
// files without it.
func TestUseClaims(t *testing.T) {
	root := filepath.Join(t.TempDir(), "notes")
	run := blackboard.Open(root)
	tk, err := run.PostTask("b", blackboard.Task{Title: "one", Team: "t"})
	if err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.New(t)
	o := Options{DSN: dsn, RescueAfter: time.Hour, MaxAttempts: 1}
	done := UseClaims(t.Context(), o, run)
	defer done()
	note := blackboard.Ref{Agent: "worker", Stem: run.NewStem()}.String()
	if res, err := run.ClaimTask("b", tk.Ref, blackboard.Claim{Agent: "worker", Session: "s1", Ref: note}); err != nil || !res.Won {
		t.Fatalf("claim: %+v, %v", res, err)
	}
	holderOf := func(s *blackboard.Store) string {
		l, err := s.Tasks("b")
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range l.Tasks {
			if x.Ref == tk.Ref && x.Claim != nil {
				return x.Claim.Agent
			}
		}
		return ""
	}
	reader := blackboard.Open(root)
	if got := holderOf(reader); got != "" {
		t.Errorf("a store on files sees the claim %q: claims went to files too", got)
	}
	closeReader := UseClaims(t.Context(), o, reader)
	defer closeReader()
	if got := holderOf(reader); got != "worker" {
		t.Errorf("with queue.dsn the reader sees holder %q; want worker", got)
	}
	if UseClaims(t.Context(), Options{}, blackboard.Open(root)) == nil {
		t.Error("UseClaims without a DSN returned no done func")
	}
}
