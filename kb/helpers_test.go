package kb

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond) // every write gets its own instant
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a store with one person (alice), her project "acme/web" and
// tokens for her agents.
type fixture struct {
	s      *Store
	be     backend
	target string // the store's path or DSN, for another store on it
	clock  *clock
	alice  Principal
	person Caller
	agent  Caller // write token, every project
	reader Caller // read token
}

func newFixture(t testing.TB, be backend, opts Options) *fixture {
	t.Helper()
	ctx := context.Background()
	clk := newClock()
	if opts.Now == nil {
		opts.Now = clk.Now
	}
	s, target := be.open(t, opts)
	t.Cleanup(func() { s.Close() })
	alice, err := s.CreatePrincipal(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{s: s, be: be, target: target, clock: clk, alice: alice, person: PersonCaller(alice.ID, "test-cli")}
	if _, err := s.CreateProject(ctx, f.person, "acme/web", "Acme web"); err != nil {
		t.Fatal(err)
	}
	f.agent = f.token(t, TokenSpec{Name: "agent", Write: true})
	f.reader = f.token(t, TokenSpec{Name: "reader"})
	return f
}

func (f *fixture) token(t testing.TB, spec TokenSpec) Caller {
	t.Helper()
	ctx := context.Background()
	plain, _, err := f.s.CreateToken(ctx, f.person, spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.s.Authenticate(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	c.Client, c.Session = "test-client", "s1"
	return c
}

func (f *fixture) create(t testing.TB, project, body string) CreateNoteOutput {
	t.Helper()
	out, err := f.s.CreateNote(context.Background(), f.agent, CreateNoteInput{Project: project, Body: body})
	if err != nil {
		t.Fatalf("CreateNote(%q): %v", body, err)
	}
	return out
}

func (f *fixture) get(t testing.TB, ref string) Note {
	t.Helper()
	n, err := f.s.GetNote(context.Background(), f.agent, GetNoteInput{Ref: ref, Detailed: true})
	if err != nil {
		t.Fatalf("GetNote(%q): %v", ref, err)
	}
	return n
}

// wantCode fails unless err carries the tool error code.
func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil; want a %s error", code)
	}
	if got := ErrorCode(err); got != code {
		var ce *ConflictError
		t.Fatalf("ErrorCode(%v) = %q; want %q (conflict error: %v)", err, got, code, errors.As(err, &ce))
	}
}
