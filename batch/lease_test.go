package batch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/statedb"
)

// TestLease pins an in-process batch's lease on the state database: of
// batches taking it at once exactly one gets it, the others are refused
// naming the holder; a holder that stops renewing (killed) keeps it until
// it expires, then the next takes it over and the old one finds it lost;
// a clean release frees it at once.
func TestLease(t *testing.T) {
	db, err := statedb.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	opts := LeaseOptions{Board: "b", Plan: "plan.yaml", Digest: "d1", Duration: time.Second}
	ls, errs := make([]*Lease, 4), make([]error, 4)
	var wg sync.WaitGroup
	for i := range ls {
		wg.Go(func() { ls[i], errs[i] = AcquireLease(t.Context(), db.DB, opts) })
	}
	wg.Wait()
	var held *Lease
	for i, l := range ls {
		if l != nil {
			if held != nil {
				t.Fatal("two batches took the lease at once")
			}
			held = l
			continue
		}
		var b *BusyError
		if !errors.As(errs[i], &b) || !errors.Is(errs[i], ErrRunBusy) || b.PID != os.Getpid() || !strings.Contains(errs[i].Error(), "try again after") {
			t.Errorf("a refused batch: %v; want a *BusyError naming pid %d", errs[i], os.Getpid())
		}
	}
	if held == nil {
		t.Fatalf("no batch took the lease: %v", errs)
	}
	// Renewed past its duration: still held.
	time.Sleep(1500 * time.Millisecond)
	if err := held.LeaseErr(); err != nil {
		t.Fatalf("the holder lost a lease it renews: %v", err)
	}
	if _, err := AcquireLease(t.Context(), db.DB, opts); !errors.Is(err, ErrRunBusy) {
		t.Fatalf("after 1.5s of renewals: %v; want refused", err)
	}
	// Killed: no more renewals.
	held.keeper.Halt()
	time.Sleep(1100 * time.Millisecond)
	next, err := AcquireLease(t.Context(), db.DB, opts)
	if err != nil {
		t.Fatalf("after the holder's lease expired: %v; want it taken over", err)
	}
	if next.token <= held.token {
		t.Errorf("the new holder's token %d; want above the old one's %d", next.token, held.token)
	}
	if err := held.LeaseErr(); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("the old holder: %v; want ErrLeaseLost", err)
	}
	next.Release()
	if l, err := AcquireLease(t.Context(), db.DB, opts); err != nil {
		t.Errorf("after a release: %v; want the lease free at once", err)
	} else {
		l.Release()
	}
}
