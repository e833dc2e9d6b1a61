package director

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// TestLongSessionCompactsAndNudgesOnce drives a session across the
// compaction threshold: the [window] line appears past 60 % of the wall,
// the wrap-up invitation exactly once near it, compaction fires when the
// measure crosses the threshold, the "just compacted" nudge exactly once
// after it — and the board index and the session keep working.
func TestLongSessionCompactsAndNudgesOnce(t *testing.T) {
	f := newFixture(t, "long-session", smallWindow)
	if _, err := f.store.WriteNote(f.board, blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Conclusion: "An early finding."}}); err != nil {
		t.Fatal(err)
	}
	var last string
	for n := 1; n <= 7; n++ {
		out, err := f.d.Turn(t.Context(), "turn-"+string(rune('0'+n))+" please")
		if err != nil {
			t.Fatalf("turn %d: %v", n, err)
		}
		last = out.Final
	}
	// The note saved in turn 1 was in the request after the compaction.
	if last != "Quoting my note: Ship the parser by Friday." {
		t.Errorf("turn 7 answered %q; want it to quote the note saved before the compaction", last)
	}
	f.srv.AssertDone(t)
	tails := map[string]string{}
	for _, r := range f.srv.Requests() {
		if r.StepID == "summary" || r.StepID == "turn-1-note" {
			continue
		}
		tails[r.StepID] = r.Messages[len(r.Messages)-1].Content
	}
	want := map[string]string{
		"turn-1": "", "turn-2": "",
		"turn-3": "[window] about",
		"turn-4": "finish the current step",
		"turn-5": "[window] about",
		"turn-6": "just compacted",
		"turn-7": "",
	}
	for step, w := range want {
		tail := tails[step]
		if !strings.Contains(tail, "An early finding.") {
			t.Errorf("%s: the board index is missing from the tail:\n%s", step, tail)
		}
		hasWindow := strings.Contains(tail, "[window]")
		if w == "" && hasWindow || w != "" && !strings.Contains(tail, w) {
			t.Errorf("%s: tail %q; want %q", step, firstStateLine(tail), w)
		}
	}
	if strings.Contains(tails["turn-5"], "finish the current step") || strings.Contains(tails["turn-7"], "just compacted") {
		t.Error("a one-time nudge appeared twice")
	}
	// The compaction happened before turn 6 and replaced turns 1–3.
	h := f.sess.History()
	if !strings.HasPrefix(h[0].Content, memory.SummaryHeader) || !strings.Contains(h[0].Content, "Turns 1 to 4") {
		t.Fatalf("history does not start with the summary: %q", h[0].Content)
	}
	for _, m := range h[1:] {
		if strings.Contains(m.Content, "turn-1 please") || strings.Contains(m.Content, "turn-2 please") {
			t.Errorf("a compacted message is still in the history: %q", m.Content)
		}
	}
	if f.sess.Info().SummaryUpto == 0 {
		t.Error("summary_upto not recorded")
	}
	data, _ := os.ReadFile(f.sess.Info().Rollout)
	if !strings.Contains(string(data), `"type":"compacted"`) {
		t.Error("the compaction is not in the rollout")
	}
	if strings.Contains(string(data), agents.TailHeader) || strings.Contains(string(data), blackboard.IndexHeaderPrefix) {
		t.Error("the rollout holds a transient tail")
	}
}

func firstStateLine(tail string) string {
	for _, l := range strings.Split(tail, "\n") {
		if strings.HasPrefix(l, "[window]") {
			return l
		}
	}
	return "(no [window] line)"
}

// TestRecoveryNeverTwice: a recovery cut short after its note was written
// (the rollout never got the record) finds that note by its key on the next
// resume and writes no second one.
func TestRecoveryNeverTwice(t *testing.T) {
	f := newFixture(t, "demo", nil)
	s := f.sess
	if err := s.DelegationStarted(agents.DelegationEvent{CallID: "d1", Agent: "explorer", Task: "look"}); err != nil {
		t.Fatal(err)
	}
	// The first recovery wrote its note and died before recording it.
	key := agents.RecoveryKey(s.ID(), "d1")
	if _, err := agents.RecoverDelegation(f.store, f.board, key, agents.RecoveredReason, agents.Delegation{CallID: "d1", Agent: "explorer", Task: "look"}, "", nil, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	resumed, err := f.sessions.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	if len(resumed.Pending) != 1 {
		t.Fatalf("pending = %+v", resumed.Pending)
	}
	f.d.opts.Session = resumed
	notes, err := f.d.RecoverInterrupted(t.Context())
	if err != nil || len(notes) != 1 {
		t.Fatalf("RecoverInterrupted = %v, %v", notes, err)
	}
	if all := f.notes(t); len(all) != 1 || all[0].Handoff.Status != blackboard.StatusDegraded || all[0].Handoff.Key != key {
		t.Errorf("board holds %d notes; want exactly the one recovered note", len(all))
	}
}

// TestPromptCacheStability reports the share of each director request that
// is a byte-identical prefix of the previous one (tools, then messages, the
// order providers cache in). Only the transient tail at the end differs, so
// the share stays near 1 — except at the one request after a compaction,
// which rewrites the history on purpose.
func TestPromptCacheStability(t *testing.T) {
	f := newFixture(t, "long-session", smallWindow)
	for n := 1; n <= 7; n++ {
		if _, err := f.d.Turn(t.Context(), "turn-"+string(rune('0'+n))+" please"); err != nil {
			t.Fatal(err)
		}
	}
	render := func(r llmtest.Recorded) []byte {
		var req struct {
			Tools    json.RawMessage   `json:"tools"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatal(err)
		}
		out := append([]byte(nil), req.Tools...)
		for _, m := range req.Messages {
			out = append(out, m...)
		}
		return out
	}
	var prev []byte
	var shares []float64
	for _, r := range f.srv.Requests() {
		if r.Agent != "director" {
			continue
		}
		cur := render(r)
		if prev != nil && r.StepID != "turn-6" { // turn 6 follows the compaction
			n := 0
			for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
				n++
			}
			shares = append(shares, float64(n)/float64(len(prev)))
		}
		prev = cur
	}
	t.Logf("byte-identical prefix share of consecutive director requests: %.3f", shares)
	for i, s := range shares {
		if s < 0.9 {
			t.Errorf("request %d shares only %.2f of the previous request's bytes", i+1, s)
		}
	}
}

// TestLongTurnSqueezesItsOldOutputs: past turn_squeeze_percent of the
// compaction threshold a turn shrinks its own older tool outputs in the
// request, keeps the newest whole, says so in [state], and the rollout
// keeps every output in full.
func TestLongTurnSqueezesItsOldOutputs(t *testing.T) {
	f := newFixture(t, "long-turn", func(c *config.Config) {
		m := c.Models["default"]
		m.ContextWindow = 50_000 // three whole reads of the README fit below the threshold: squeezed, not compacted
		c.Models["default"] = m
		c.Context.CompactBudget = 0.8
		c.Context.TurnSqueezePercent = 30
		c.Agents.StallRepeats = 0 // the same read five times is the point here
	})
	if _, err := f.d.Turn(t.Context(), "read the readme a lot"); err != nil {
		t.Fatal(err)
	}
	f.srv.AssertDone(t)
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	shrunk, whole := 0, 0
	for _, m := range last.Messages {
		if m.Role == "tool" {
			if strings.HasPrefix(m.Content, "[shrunk to save room") {
				shrunk++
			} else {
				whole++
			}
		}
	}
	if shrunk == 0 || whole != 3 {
		t.Errorf("last request: %d shrunk, %d whole tool outputs; want some shrunk and the newest 3 whole", shrunk, whole)
	}
	if tail := last.Messages[len(last.Messages)-1].Content; !strings.Contains(tail, "[turn] this turn is long") {
		t.Errorf("the tail does not say the turn was squeezed:\n%s", tail)
	}
	data, _ := os.ReadFile(f.sess.Info().Rollout)
	if strings.Contains(string(data), "[shrunk to save room") || strings.Count(string(data), "The two commands") < 5 {
		t.Error("the rollout does not keep every tool output whole")
	}
}

// smallWindow gives the long-session scenario its walls: a 10 000-token
// window, compaction at 80 % (8 000), the wrap-up invitation 1 000 before.
func smallWindow(c *config.Config) {
	m := c.Models["default"]
	m.ContextWindow = 10_000
	c.Models["default"] = m
	c.Context.CompactBudget = 0.8
	c.Context.WrapUpReserveTokens = 1000
	c.Context.KeepRecentTurns = 2
}

// TestRecoveryReleasesDeadClaims: a team member whose process died held
// claims; its recovery on resume releases the one whose note never landed
// (the task is open again, another member claims it and lands the one
// note of that task), keeps the one whose note landed (done, never a
// second note) and never touches another session's claim.
func TestRecoveryReleasesDeadClaims(t *testing.T) {
	f := newFixture(t, "demo", nil)
	s, st := f.sess, f.store
	post := func(title string) string {
		task, err := st.PostTask(f.board, blackboard.Task{Title: title, Team: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return task.Ref
	}
	claim := func(task, session string) blackboard.ClaimResult {
		t.Helper()
		ref := blackboard.Ref{Agent: "worker", Stem: st.NewStem()}.String()
		res, err := st.ClaimTask(f.board, task, blackboard.Claim{Agent: "worker", Session: session, Ref: ref})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	land := func(c *blackboard.Claim) {
		t.Helper()
		r, _ := blackboard.ParseNoteRef(c.Ref)
		if _, err := st.WriteNote(f.board, blackboard.NewNote{Stem: r.Stem, Handoff: blackboard.Handoff{Status: blackboard.StatusOK,
			Agent: "worker", Task: c.Task, Conclusion: "did " + c.Task}}); err != nil {
			t.Fatal(err)
		}
	}
	open, landed, other := post("open when it died"), post("landed before it died"), post("held by a live member")
	claim(open, "sub-dead")
	land(claim(landed, "sub-dead").Holder)
	claim(other, "sub-alive")

	if err := s.DelegationStarted(agents.DelegationEvent{CallID: "d1", Agent: "worker", Task: "work team t", SubSession: "sub-dead"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	resumed, err := f.sessions.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	f.d.opts.Session = resumed
	if _, err := f.d.RecoverInterrupted(t.Context()); err != nil {
		t.Fatal(err)
	}
	state := func() map[string]blackboard.TaskState {
		list, err := st.Tasks(f.board)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]blackboard.TaskState{}
		for _, task := range list.Tasks {
			out[task.Ref] = task.State
		}
		return out
	}
	want := map[string]blackboard.TaskState{open: blackboard.TaskOpen, landed: blackboard.TaskDone, other: blackboard.TaskClaimed}
	if got := state(); !maps.Equal(got, want) {
		t.Errorf("after the recovery tasks are %v; want %v", got, want)
	}
	// Another member takes the released task and lands its one note.
	res := claim(open, "sub-next")
	if !res.Won {
		t.Fatalf("the released task cannot be claimed again: held by %+v", res.Holder)
	}
	land(res.Holder)
	if got := state()[open]; got != blackboard.TaskDone {
		t.Errorf("the re-claimed task is %s; want done", got)
	}
	perTask := map[string]int{}
	degraded := 0
	for _, n := range f.notes(t) {
		if n.Handoff.Status == blackboard.StatusDegraded {
			degraded++
			continue
		}
		perTask[n.Handoff.Task]++
	}
	if degraded != 1 || perTask[open] != 1 || perTask[landed] != 1 || len(perTask) != 2 {
		t.Errorf("notes: %d degraded, per task %v; want one degraded and one note for each of %s, %s", degraded, perTask, open, landed)
	}
}

// TestRecoveryOfARoundOnAWorker: a background team member whose rounds
// ran on workers died while one ran; the session has both in flight —
// the member and its round, at the task's ref. The resume lands the
// round's degraded note there before any claim goes back, so the task
// is failed with its one note at its claim's ref (not open again beside
// a note no claim names), and the member gets its own note.
func TestRecoveryOfARoundOnAWorker(t *testing.T) {
	f := newFixture(t, "demo", nil)
	s, st := f.sess, f.store
	task, err := st.PostTask(f.board, blackboard.Task{Title: "running on a worker", Team: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ref := blackboard.Ref{Agent: "worker", Stem: st.NewStem()}.String()
	if res, err := st.ClaimTask(f.board, task.Ref, blackboard.Claim{Agent: "worker", Session: "sub-member", Ref: ref}); err != nil || !res.Won {
		t.Fatalf("claim: %v, %+v", err, res)
	}
	member := blackboard.Ref{Agent: "worker", Stem: st.NewStem()}.String()
	for _, d := range []agents.DelegationEvent{
		{CallID: "call_1", Agent: "worker", Task: "work team t", SubSession: "sub-member", Ref: member, Background: true},
		{CallID: "call_1/" + strings.TrimPrefix(ref, "worker/"), Agent: "worker", Task: "the round", SubSession: "sub-round", Ref: ref},
	} {
		if err := s.DelegationStarted(d); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	resumed, err := f.sessions.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	f.d.opts.Session = resumed
	notes, err := f.d.RecoverInterrupted(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.Tasks(f.board)
	if err != nil {
		t.Fatal(err)
	}
	if got := list.Tasks[0]; got.State != blackboard.TaskFailed || got.Claim == nil || got.Claim.Ref != ref {
		t.Errorf("the task is %s (claim %+v); want failed, its claim's ref %s holding the round's note", got.State, got.Claim, ref)
	}
	var refs []string
	for _, n := range notes {
		refs = append(refs, n.Ref)
	}
	if len(f.notes(t)) != 2 || !slices.Contains(refs, ref) || !slices.Contains(refs, member) {
		t.Errorf("recovered %v (%d notes on the board); want the round's at %s and the member's at %s", refs, len(f.notes(t)), ref, member)
	}
}
