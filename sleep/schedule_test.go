package sleep

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// waitDone fails the test when s.Wait does not return within d (a sleep
// that holds its slot forever, a loop that never ends).
func waitDone(t *testing.T, s *Scheduler, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("the scheduler did not stop within %v of its context ending", d)
	}
}

// TestSchedulerNudgeNeverBlocks: the nudge is the hot path of every turn.
// With a curation that never answers holding the only slot
// (max_parallel 1) and the loop stuck behind it, a thousand nudges still
// each return at once — the full channel drops them (reported false) and
// the next message nudges again — and the scheduler stops when its
// context ends, the stuck curation with it.
func TestSchedulerNudgeNeverBlocks(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_slow")
	f.patientClient()
	f.cur.Config.MaxParallel = 1
	f.turns(20, 10, "read_file")
	other := f.another(20, 10, "read_file")
	f.setDue(f.now)
	f.setDueOf(other, f.now)
	s := NewScheduler(f.cur)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s.Start(ctx)
	if !s.Nudge(f.chatID) {
		t.Fatal("the first nudge was dropped")
	}
	within(t, 20*time.Second, "the curation's model call started", func() bool { return f.requestsFor("slow") == 1 })

	done := make(chan [2]int, 1)
	go func() {
		queued, dropped := 0, 0
		for i := range 1000 {
			id := other
			if i%2 == 0 {
				id = fmt.Sprintf("no-such-session-%d", i)
			}
			if s.Nudge(id) {
				queued++
			} else {
				dropped++
			}
		}
		done <- [2]int{queued, dropped}
	}()
	select {
	case n := <-done:
		if n[1] == 0 || n[0] > 17 {
			t.Errorf("%d nudges queued, %d dropped; want the channel's 16 (and one the loop holds) queued, the rest dropped", n[0], n[1])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Nudge blocked while a curation held the only slot: the turn that nudges would stall")
	}
	if n := f.requestsFor("slow"); n != 1 {
		t.Errorf("%d curations started; max_parallel is 1", n)
	}
	cancel()
	waitDone(t, s, 20*time.Second)
	runs, err := f.st.Runs(t.Context(), f.chatID, 10)
	if err != nil || len(runs) != 1 || runs[0].Status != "cancelled" {
		t.Errorf("journal = %+v, %v; want the stuck curation cancelled", runs, err)
	}
}

// TestSchedulerMaxParallel: with three sessions due and curations that
// never answer, exactly max_parallel run at once — 2 of 3 — and with
// max_parallel 0 (no bound) all three do.
func TestSchedulerMaxParallel(t *testing.T) {
	for _, tc := range []struct{ max, want int }{{2, 2}, {1, 1}, {0, 3}} {
		t.Run(fmt.Sprintf("max_parallel %d", tc.max), func(t *testing.T) {
			f := newFixture(t, "interactive", 12, "case_slow")
			f.patientClient()
			f.cur.Config.MaxParallel = tc.max
			f.turns(20, 10, "read_file")
			ids := []string{f.chatID, f.another(20, 10, "read_file"), f.another(20, 10, "read_file")}
			for _, id := range ids {
				f.setDueOf(id, f.now)
			}
			s := NewScheduler(f.cur)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s.Start(ctx)
			for _, id := range ids {
				if !s.Nudge(id) {
					t.Fatalf("nudge of %s dropped", id)
				}
			}
			within(t, 20*time.Second, fmt.Sprintf("%d curations started", tc.want), func() bool { return f.requestsFor("slow") >= tc.want })
			time.Sleep(300 * time.Millisecond) // room for one more to start, were there no bound
			if n := f.requestsFor("slow"); n != tc.want {
				t.Errorf("%d curations run at once; want %d (max_parallel %d)", n, tc.want, tc.max)
			}
			cancel()
			waitDone(t, s, 20*time.Second)
		})
	}
}

// TestSchedulerReleasesSlots: a finished curation frees its slot — with
// max_parallel 1, three due sessions are curated one after another.
func TestSchedulerReleasesSlots(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.cur.Config.MaxParallel = 1
	f.turns(20, 10, "read_file")
	ids := []string{f.chatID, f.another(20, 10, "read_file"), f.another(20, 10, "read_file")}
	var mu sync.Mutex
	curated := map[string]string{}
	s := NewScheduler(f.cur)
	s.OnRun = func(r Run, err error) {
		mu.Lock()
		defer mu.Unlock()
		curated[r.ChatID] = fmt.Sprint(r.Status, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s.Start(ctx)
	for _, id := range ids {
		f.setDueOf(id, f.now)
		s.Nudge(id)
	}
	within(t, 20*time.Second, "three curations, one after another", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(curated) == 3
	})
	for _, id := range ids {
		if curated[id] != "ok<nil>" {
			t.Errorf("curation of %s = %s; want ok", id, curated[id])
		}
	}
	cancel()
	waitDone(t, s, 20*time.Second)
}

// TestSchedulerReports: what the scheduler tells its owner after each
// nudge it served. A session never scheduled only gets its first due time
// (reported, no curation); a nudge before the due time curates nothing
// and is not reported as a run; a due one is curated (reported) and its
// next due time an interval away is reported; after the context ends
// nothing more is reported. A scheduler without callbacks serves nudges
// all the same.
func TestSchedulerReports(t *testing.T) {
	f := newFixture(t, "interactive", 12, "case_hide_rare")
	f.turns(20, 10, "read_file")
	type due struct {
		id  string
		at  *time.Time
		ok  bool
		run string
	}
	events := make(chan due, 16)
	s := NewScheduler(f.cur)
	s.OnRun = func(r Run, err error) { events <- due{id: r.ChatID, run: fmt.Sprint(r.Status, " ", err)} }
	s.OnDue = func(id string, at *time.Time, ok bool) { events <- due{id: id, at: at, ok: ok} }
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s.Start(ctx)
	next := func() due {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-time.After(20 * time.Second):
			t.Fatal("the scheduler reported nothing")
			return due{}
		}
	}
	quiet := func() {
		t.Helper()
		select {
		case e := <-events:
			t.Fatalf("unexpected report %+v", e)
		case <-time.After(100 * time.Millisecond):
		}
	}

	// Never scheduled: the first nudge only sets the due time.
	s.Nudge(f.chatID)
	if e := next(); e.id != f.chatID || !e.ok || e.at == nil || !e.at.Equal(f.now.Add(24*time.Hour)) || e.run != "" {
		t.Fatalf("first nudge reported %+v; want the due time an interval away", e)
	}
	quiet()
	if runs, _ := f.st.Runs(t.Context(), f.chatID, 10); len(runs) != 0 {
		t.Fatalf("the first nudge curated: %+v", runs)
	}

	// Not due yet: nothing curated, no run reported, the due time is.
	f.setDue(f.now.Add(time.Hour))
	s.Nudge(f.chatID)
	if e := next(); e.run != "" || !e.ok || e.at == nil || !e.at.Equal(f.now.Add(time.Hour)) {
		t.Fatalf("a nudge before the due time reported %+v; want only the due time", e)
	}
	quiet()

	// Due: curated, reported, and the next due time an interval away.
	f.setDue(f.now)
	s.Nudge(f.chatID)
	if e := next(); e.id != f.chatID || e.run != "ok <nil>" {
		t.Fatalf("a due nudge reported %+v first; want the run, ok", e)
	}
	if e := next(); !e.ok || e.at == nil || !e.at.Equal(f.now.Add(24*time.Hour)) {
		t.Fatalf("after the curation the scheduler reported %+v; want the next due time an interval away", e)
	}

	// An unknown session: the due time cannot be read, and it says so.
	s.Nudge("no-such-session")
	if e := next(); e.id != "no-such-session" || e.ok || e.at != nil {
		t.Fatalf("a nudge of an unknown session reported %+v; want not ok", e)
	}

	// Closing: a curation cut short by the end of the context is not
	// followed by a due time read under a dead context.
	g := newFixture(t, "interactive", 12, "case_slow")
	g.patientClient()
	g.turns(20, 10, "read_file")
	g.setDue(g.now)
	var mu sync.Mutex
	var after []string
	sg := NewScheduler(g.cur)
	gctx, gcancel := context.WithCancel(t.Context())
	defer gcancel()
	sg.OnDue = func(id string, _ *time.Time, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		after = append(after, fmt.Sprint(id, ok))
	}
	var runErr error
	sg.OnRun = func(_ Run, err error) { mu.Lock(); runErr = err; mu.Unlock() }
	sg.Start(gctx)
	sg.Nudge(g.chatID)
	within(t, 20*time.Second, "the slow curation started", func() bool { return g.requestsFor("slow") == 1 })
	gcancel()
	waitDone(t, sg, 20*time.Second)
	mu.Lock()
	if len(after) != 0 || !errors.Is(runErr, context.Canceled) {
		t.Errorf("after the context ended: due reported %v, run error %v; want no due time, the run cancelled", after, runErr)
	}
	mu.Unlock()

	// No callbacks: nudges are served all the same.
	h := newFixture(t, "interactive", 12, "case_hide_rare")
	h.turns(20, 10, "read_file")
	h.setDue(h.now)
	sh := NewScheduler(h.cur)
	hctx, hcancel := context.WithCancel(t.Context())
	defer hcancel()
	sh.Start(hctx)
	sh.Nudge(h.chatID)
	within(t, 20*time.Second, "the curation without callbacks", func() bool {
		runs, _ := h.st.Runs(t.Context(), h.chatID, 1)
		return len(runs) == 1 && runs[0].Status == "ok"
	})
	hcancel()
	waitDone(t, sh, 20*time.Second)
}
