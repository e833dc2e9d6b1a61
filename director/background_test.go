package director

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// gate stands in front of a scripted server and holds the requests a
// rule matches until the test releases that rule (or the client gives
// up): a sub-agent that "is still running" for exactly as long as the
// test says, whatever the machine's load.
type gate struct {
	url   string
	mu    sync.Mutex
	rules []*gateRule
}

type gateRule struct {
	name  string
	match func(body string) bool
	open  chan struct{}
	held  chan struct{}
}

func newGate(t *testing.T, srv *llmtest.Server) *gate {
	t.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	proxy.FlushInterval = -1
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		if rule := g.rule(string(body)); rule != nil {
			select {
			case rule.held <- struct{}{}:
			default:
			}
			select {
			case <-rule.open:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	g.url = hs.URL + u.Path
	return g
}

func (g *gate) rule(body string) *gateRule {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.rules {
		if r.match(body) {
			return r
		}
	}
	return nil
}

// hold holds every request match accepts until release(name).
func (g *gate) hold(name string, match func(body string) bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rules = append(g.rules, &gateRule{name: name, match: match, open: make(chan struct{}), held: make(chan struct{}, 16)})
}

func (g *gate) find(name string) *gateRule {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.rules {
		if r.name == name {
			return r
		}
	}
	panic("no gate rule " + name)
}

func (g *gate) release(names ...string) {
	for _, n := range names {
		close(g.find(n).open)
	}
}

// waitHeld waits until a request of rule name is being held.
func (g *gate) waitHeld(t *testing.T, name string) {
	t.Helper()
	select {
	case <-g.find(name).held:
	case <-time.After(60 * time.Second):
		t.Fatalf("no request reached the gate's rule %s within a minute", name)
	}
}

// client resolves every model name to the scripted model behind the gate.
func (g *gate) client(t *testing.T) agents.ClientFunc {
	t.Helper()
	c, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: g.url, Model: "scripted", Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return func(string) (llm.Client, string, error) { return c, "scripted", nil }
}

// explorerTask matches the first request of the explorer given task
// (the task's first word: "Task:\nBG-ONE" as the JSON body spells it).
func explorerTask(word string) func(string) bool {
	return func(body string) bool {
		return strings.Contains(body, "[agent:explorer]") && strings.Contains(body, `Task:\n`+word)
	}
}

// backgroundFixture is a director over scenario with a gate in front of
// its scripted model, in an interactive session bg-1 under home.
func backgroundFixture(t *testing.T, scenario string) (*Director, *gate, *llmtest.Server, *memory.Store, *blackboard.Store, string) {
	t.Helper()
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", scenario+".yaml"))
	g := newGate(t, srv)
	home := t.TempDir()
	store := blackboard.Open(filepath.Join(home, "notes"))
	d, sessions, _ := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "bg-1", kind: memory.KindInteractive, client: g.client(t)})
	return d, g, srv, sessions, store, home
}

// request is the last request the scripted server answered with step id.
func request(t *testing.T, srv *llmtest.Server, id string) llmtest.Recorded {
	t.Helper()
	var out *llmtest.Recorded
	for _, r := range srv.Requests() {
		if r.StepID == id {
			out = &r
		}
	}
	if out == nil {
		t.Fatalf("no request was answered by step %s", id)
	}
	return *out
}

// tailOf is the transient tail of the request answered by step id.
func tailOf(t *testing.T, srv *llmtest.Server, id string) string {
	t.Helper()
	for _, m := range request(t, srv, id).Messages {
		if strings.HasPrefix(m.Content, agents.TailHeader) {
			return m.Content
		}
	}
	t.Fatalf("the request of step %s has no transient tail", id)
	return ""
}

// waitStep waits until the scripted server has answered step id.
func waitStep(t *testing.T, srv *llmtest.Server, id string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, r := range srv.Requests() {
			if r.StepID == id {
				return
			}
		}
	}
	t.Fatalf("step %s was not answered within a minute", id)
}

// TestBackgroundDelegations is issue 30 item 1's "Done when" (scenario
// background.yaml): the director starts three explorers in the
// background — each delegate returns at once with the ref its note then
// lands at — and answers the person's next message while all three are
// held (that request's tail lists them under "running"); once they have
// landed, the next call's tail lists all three under "finished since your
// last call", and the call after it no longer does (the mark is the
// session's: a resumed session reports nothing again). A fourth is
// awaited: await_delegations returns only when it lands, with its status.
func TestBackgroundDelegations(t *testing.T) {
	d, g, srv, sessions, store, _ := backgroundFixture(t, "background")
	for _, w := range []string{"BG-ONE", "BG-TWO", "BG-THREE", "BG-FOUR"} {
		g.hold(w, explorerTask(w))
	}
	ctx := t.Context()
	out, err := d.Turn(ctx, "START: look at this repository in the background")
	if err != nil || out.Final != "Three explorers are working in the background; ask me anything meanwhile." {
		t.Fatalf("turn 1 = %+v, %v", out, err)
	}
	refs := d.Running()
	if len(refs) != 3 {
		t.Fatalf("running after turn 1: %v; want three", refs)
	}
	// Each delegate result named its ref at once.
	var told []string
	for _, m := range request(t, srv, "started").Messages {
		if m.Role == llm.RoleTool {
			if !strings.HasPrefix(m.Content, "started in the background\nref: ") {
				t.Errorf("a background delegate's result: %q", m.Content)
			}
			told = append(told, strings.Fields(m.Content)[5])
		}
	}
	if !sameSet(told, refs) {
		t.Fatalf("delegate told refs %v; running %v", told, refs)
	}

	// The person's next message is answered while all three are held.
	out, err = d.Turn(ctx, "WEATHER: how is it outside?")
	if err != nil || !strings.Contains(out.Final, "still at it") {
		t.Fatalf("turn 2 = %+v, %v", out, err)
	}
	tail := tailOf(t, srv, "chat")
	if !strings.Contains(tail, "[background · running] 3 ") || strings.Contains(tail, "[background · finished") {
		t.Errorf("turn 2's tail does not list three running and none finished:\n%s", tail)
	}
	for _, ref := range refs {
		if !strings.Contains(tail, "- "+ref+" · explorer · step 0 · last tool none yet · ") {
			t.Errorf("turn 2's tail does not list %s as running:\n%s", ref, tail)
		}
	}
	if len(noteRefs(t, store)) != 0 {
		t.Errorf("notes landed while every explorer was held")
	}

	g.release("BG-ONE", "BG-TWO", "BG-THREE")
	if err := d.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}

	// Turn 3: all three finished since the last call; a fourth, awaited.
	done := make(chan struct{})
	var out3 *agents.Outcome
	var err3 error
	go func() {
		defer close(done)
		out3, err3 = d.Turn(ctx, "COLLECT what they found")
	}()
	waitStep(t, srv, "await")
	g.waitHeld(t, "BG-FOUR")
	select {
	case <-done:
		t.Fatalf("the turn ended while await_delegations' delegation was held: %+v, %v", out3, err3)
	case <-time.After(300 * time.Millisecond):
	}
	g.release("BG-FOUR")
	<-done
	if err3 != nil || out3.Final != "All four explorers landed their notes." {
		t.Fatalf("turn 3 = %+v, %v", out3, err3)
	}
	srv.AssertDone(t)

	tail = tailOf(t, srv, "collect")
	if !strings.Contains(tail, "[background · finished since your last call] 3 ") || strings.Contains(tail, "[background · running]") {
		t.Errorf("turn 3's first tail does not list three finished and none running:\n%s", tail)
	}
	for _, ref := range refs {
		if !strings.Contains(tail, "- "+ref+" · ok · ") {
			t.Errorf("turn 3's first tail does not list %s as finished:\n%s", ref, tail)
		}
	}
	last := request(t, srv, "done")
	awaited := last.Messages[len(last.Messages)-2] // the await's result, before the tail
	ref4 := ""
	for _, m := range request(t, srv, "await").Messages {
		if m.Role == llm.RoleTool && strings.HasPrefix(m.Content, "started in the background") {
			ref4 = strings.Fields(m.Content)[5]
		}
	}
	if awaited.Role != llm.RoleTool || !strings.Contains(awaited.Content, ref4+": ok — named the Go version") || strings.Contains(awaited.Content, "still running") {
		t.Errorf("await_delegations' result: %q; want %s landed ok", awaited.Content, ref4)
	}
	tail = tailOf(t, srv, "done")
	if !strings.Contains(tail, "[background · finished since your last call] 1 ") || !strings.Contains(tail, ref4) {
		t.Errorf("the last tail does not list the fourth as finished:\n%s", tail)
	}
	_, bg, _ := strings.Cut(tail, "[background ·")
	for _, ref := range refs {
		if strings.Contains(bg, ref) {
			t.Errorf("the last tail reports %s again:\n%s", ref, tail)
		}
	}

	// Exactly one note per delegation, each at the ref delegate gave.
	if got := noteRefs(t, store); !sameSet(got, append(refs, ref4)) {
		t.Errorf("notes %v; want exactly %v", got, append(refs, ref4))
	}
	// What the lead was shown is the session's: reopened, nothing to report.
	re, err := sessions.ResumeWith(ctx, "bg-1", memory.ResumeOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if u := re.Unseen(); len(u) != 0 || len(re.Pending) != 0 {
		t.Errorf("reopened: unseen %v, pending %v; want none", u, re.Pending)
	}
}

// TestCancelDelegation (scenario background-cancel.yaml): the explorer
// said something, read a file and hangs; cancel_delegation stops it and
// its ref gets exactly one note, degraded, whose body is what it said
// (the recovery path of an interrupted delegation); a second cancel of
// the ref and a ref that names nothing are error results naming the ref.
func TestCancelDelegation(t *testing.T) {
	d, g, srv, _, store, _ := backgroundFixture(t, "background-cancel")
	g.hold("hang", func(body string) bool {
		return strings.Contains(body, "[agent:explorer]") && strings.Contains(body, `"role":"tool"`)
	})
	g.hold("cancel", func(body string) bool {
		return strings.Contains(body, "[agent:director]") && strings.Contains(body, "started in the background")
	})
	done := make(chan struct{})
	var out *agents.Outcome
	var err error
	go func() {
		defer close(done)
		out, err = d.Turn(t.Context(), "CANCEL it once it has started")
	}()
	g.waitHeld(t, "hang") // the explorer is in its second step
	g.release("cancel")
	<-done
	if err != nil || out.Final != "Stopped it." {
		t.Fatalf("turn = %+v, %v", out, err)
	}
	srv.AssertDone(t)

	results := map[string]llm.Message{}
	for _, m := range request(t, srv, "done").Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	started := results["call_bg"].Content
	if !strings.HasPrefix(started, "started in the background\nref: ") {
		t.Fatalf("delegate's result %q", started)
	}
	ref := strings.Fields(started)[5]
	tests := []struct {
		call string
		want []string
	}{
		{"call_cancel", []string{"cancelled\nstatus: degraded\nref: " + ref}},
		{"call_again", []string{"error", "cancel " + ref, "already finished (degraded"}},
		{"call_unknown", []string{"error", "cancel explorer/20991231T000000Z_0000-1-000001", "names no background delegation", "running: none"}},
	}
	for _, tt := range tests {
		got := results[tt.call].Content
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s's result %q; want it to contain %q", tt.call, got, w)
			}
		}
	}

	notes := noteRefs(t, store)
	if len(notes) != 1 || notes[0] != ref {
		t.Fatalf("notes %v; want exactly %s", notes, ref)
	}
	n, err := store.ReadNote("bg-1", ref)
	if err != nil {
		t.Fatal(err)
	}
	if n.Handoff.Status != blackboard.StatusDegraded || n.Handoff.Reason != agents.CancelledReason ||
		strings.TrimSpace(n.Body) != "Partial finding: the module is github.com/yagent/yagent." {
		t.Errorf("the cancelled delegation's note: %s, reason %q, body %q; want degraded, cancelled, its last words", n.Handoff.Status, n.Handoff.Reason, n.Body)
	}
}

// TestAwaitTimeout (scenario background-await.yaml): await_delegations
// with nothing landing returns at its timeout naming the one still
// running. The session then closes with it in flight (as yagent run
// --detach leaves it): nothing lands, and the resume recovers it as one
// degraded note at the ref delegate gave, reported as finished.
func TestAwaitTimeout(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "background-await.yaml"))
	g := newGate(t, srv)
	g.hold("late", explorerTask("BG-LATE"))
	home := t.TempDir()
	store := blackboard.Open(filepath.Join(home, "notes"))
	d, _, sess := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "bg-1", kind: memory.KindRun, client: g.client(t)})
	start := time.Now()
	out, err := d.Turn(t.Context(), "AWAIT it for a second")
	if err != nil || out.Final != "It is still running." {
		t.Fatalf("turn = %+v, %v", out, err)
	}
	if el := time.Since(start); el < time.Second {
		t.Errorf("the turn took %s; await_delegations did not wait its second", el)
	}
	refs := d.Running()
	if len(refs) != 1 {
		t.Fatalf("running %v; want one", refs)
	}
	last := request(t, srv, "done")
	res := last.Messages[len(last.Messages)-2].Content
	if !strings.HasPrefix(res, "still running after 1s: "+refs[0]+" (explorer, step 0, ") {
		t.Errorf("await_delegations' result %q; want it to name %s as still running", res, refs[0])
	}

	// Closed with it in flight: nothing lands, nothing ends in the rollout.
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if notes := noteRefs(t, store); len(notes) != 0 {
		t.Fatalf("notes after Close: %v; want none (left to the resume)", notes)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	d2, _, sess2 := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "bg-1", resume: true, client: g.client(t)})
	if len(sess2.Pending) != 1 || sess2.Pending[0].Ref != refs[0] || !sess2.Pending[0].Background {
		t.Fatalf("pending on resume: %+v; want the background delegation at %s", sess2.Pending, refs[0])
	}
	if _, err := d2.RecoverInterrupted(t.Context()); err != nil {
		t.Fatal(err)
	}
	if notes := noteRefs(t, store); len(notes) != 1 || notes[0] != refs[0] {
		t.Fatalf("notes after the resume: %v; want exactly %s", notes, refs[0])
	}
	u := sess2.Unseen()
	if len(u) != 1 || u[0].Ref != refs[0] || u[0].Status != string(blackboard.StatusDegraded) {
		t.Errorf("unseen after the resume: %+v; want %s degraded", u, refs[0])
	}
	if text, _ := d2.backgroundSections(time.Now()); !strings.Contains(text, "- "+refs[0]+" · degraded · Interrupted") {
		t.Errorf("the resumed session's index sections:\n%s\nwant %s finished, degraded", text, refs[0])
	}
}

// TestDetachedBeforeRecorded: a background delegation the process leaves
// (Close, as yagent run --detach does) while its sub-agent session is
// still being recorded is abandoned, not refused — the finished event
// says "abandoned", nothing lands — and the resume recovers it as one
// degraded note at its ref. (Seen under load: run --detach printed
// "refused (no note) — record the delegation …: context canceled".)
func TestDetachedBeforeRecorded(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "background-await.yaml"))
	g := newGate(t, srv)
	home := t.TempDir()
	store := blackboard.Open(filepath.Join(home, "notes"))
	rec := &agents.Recorder{}
	d, _, sess := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "bg-1", kind: memory.KindRun, client: g.client(t), events: rec})
	recording := make(chan struct{})
	d.delegator.Runner.Recorder = func(ctx context.Context, _ agents.Delegation) (agents.DelegationHooks, error) {
		close(recording)
		<-ctx.Done()
		return agents.DelegationHooks{}, fmt.Errorf("record session: %w", ctx.Err())
	}
	if out, err := d.Turn(t.Context(), "AWAIT it for a second"); err != nil || out.Final != "It is still running." {
		t.Fatalf("turn = %+v, %v", out, err)
	}
	<-recording
	refs := d.Running()
	if len(refs) != 1 {
		t.Fatalf("running %v; want one", refs)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	var fin *agents.DelegationEvent
	for _, e := range rec.Events() {
		if e.Type == agents.EventDelegationFinished {
			fin = e.Delegation
		}
	}
	if fin == nil || fin.Status != "abandoned" || !strings.Contains(fin.Conclusion, "the process ended") {
		t.Errorf("finished event %+v; want abandoned because the process ended", fin)
	}
	if notes := noteRefs(t, store); len(notes) != 0 {
		t.Fatalf("notes after Close: %v; want none (left to the resume)", notes)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	d2, _, sess2 := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "bg-1", resume: true, client: g.client(t)})
	if len(sess2.Pending) != 1 || sess2.Pending[0].Ref != refs[0] {
		t.Fatalf("pending on resume: %+v; want the background delegation at %s", sess2.Pending, refs[0])
	}
	if _, err := d2.RecoverInterrupted(t.Context()); err != nil {
		t.Fatal(err)
	}
	if notes := noteRefs(t, store); len(notes) != 1 || notes[0] != refs[0] {
		t.Fatalf("notes after the resume: %v; want exactly %s", notes, refs[0])
	}
}

// noteRefs lists the refs of board bg-1's notes.
func noteRefs(t *testing.T, store *blackboard.Store) []string {
	t.Helper()
	res, err := store.ListNotes("bg-1", blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, m := range res.Notes {
		refs = append(refs, m.Ref)
	}
	return refs
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
