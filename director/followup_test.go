package director

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
)

// TestFollowUp pins follow_up (issue 30 item 2), scenario follow-up.yaml:
// the follow-up continues the very sub-agent session of the first run —
// its first request carries the first run's history, then the message;
// its rollout grows, no second sub-agent session is made — and lands a
// second note that supersedes the first (the first stays as written).
// Bad input: a ref that names no note, a note that names no session, a
// note whose rollout is gone — each an error naming the note, before any
// model call.
func TestFollowUp(t *testing.T) {
	f := newFixture(t, "follow-up", nil)
	ctx := t.Context()
	if _, err := f.d.Turn(ctx, "FIRST: which module is this?"); err != nil {
		t.Fatal(err)
	}
	f.srv.AssertDone(t)

	notes := f.notes(t) // newest first
	if len(notes) != 2 {
		t.Fatalf("%d notes; want 2", len(notes))
	}
	second, first := notes[0], notes[1]
	if first.Handoff.Session == "" || second.Handoff.Session != first.Handoff.Session {
		t.Errorf("sessions: first %q, second %q; want one sub-agent session for both", first.Handoff.Session, second.Handoff.Session)
	}
	if second.Handoff.Supersedes != first.Meta.Ref || first.Handoff.Supersedes != "" {
		t.Errorf("supersedes: second %q, first %q; want %q and none", second.Handoff.Supersedes, first.Handoff.Supersedes, first.Meta.Ref)
	}
	if !strings.Contains(second.Handoff.Render(0), "supersedes: "+first.Meta.Ref) || strings.TrimSpace(first.Body) != "The module is MODULE-NAMED-ONCE." {
		t.Errorf("second renders %q, first body %q; want the supersedes line and the first note as written", second.Handoff.Render(0), first.Body)
	}

	// The follow-up's first request: the first run whole, then the message.
	var runOne, followUp []llm.Message
	for _, r := range f.srv.Requests() {
		if r.Agent != "explorer" {
			continue
		}
		msgs := conversation(r.Messages)
		if last := msgs[len(msgs)-1]; last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "Follow-up:\nSECOND") {
			followUp = msgs
			break
		}
		runOne = msgs
	}
	if len(runOne) == 0 || len(followUp) < len(runOne)+2 {
		t.Fatalf("first run's last request has %d messages, the follow-up's first %d; want the first run's and more", len(runOne), len(followUp))
	}
	for i, m := range runOne {
		if followUp[i].Role != m.Role || followUp[i].Content != m.Content {
			t.Errorf("follow-up message %d = %s %q; want the first run's %s %q", i, followUp[i].Role, followUp[i].Content, m.Role, m.Content)
		}
	}
	if a := followUp[len(runOne)]; a.Role != llm.RoleAssistant || a.Content != "The module is MODULE-NAMED-ONCE." {
		t.Errorf("after the first run's requests: %s %q; want its answer", a.Role, a.Content)
	}

	// One sub-agent session, whose rollout holds both runs in order.
	subs, err := f.sessions.List(ctx, memory.ListOptions{All: true, Kinds: []string{memory.KindSubagent}})
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 1 || subs[0].ID != first.Handoff.Session {
		t.Fatalf("sub-agent sessions %v; want exactly %s", subs, first.Handoff.Session)
	}
	r, err := memory.LoadRollout(subs[0].Rollout)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, it := range r.Items {
		if it.Type == event.Message && it.Message.Role == llm.RoleUser {
			order = append(order, strings.SplitN(it.Message.Content, "\n", 3)[1][:6])
		}
	}
	if strings.Join(order, ",") != "FIRST:,SECOND" {
		t.Errorf("the sub-agent rollout's requests: %v; want the task, then the follow-up", order)
	}
	// The parent recorded both delegations on that one session.
	pr, err := memory.LoadRollout(f.sess.Info().Rollout)
	if err != nil {
		t.Fatal(err)
	}
	started := 0
	for _, it := range pr.Items {
		if it.Type == event.DelegationStarted && it.Delegation.SubSession == subs[0].ID {
			started++
		}
	}
	if started != 2 {
		t.Errorf("the parent rollout records %d delegations on %s; want 2", started, subs[0].ID)
	}

	// Bad input, outside a turn (yagent board follow-up's way): no model call.
	requests := len(f.srv.Requests())
	if _, err := f.d.FollowUp(ctx, "explorer/20991231T000000Z_0000-1-000001", "more"); !errors.Is(err, blackboard.ErrNoteNotFound) {
		t.Errorf("a ref that names no note: %v; want ErrNoteNotFound", err)
	}
	hand, err := f.store.WriteNote(f.board, blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Conclusion: "by hand"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.d.FollowUp(ctx, hand.Ref, "more"); !errors.Is(err, ErrNoSubSession) || !strings.Contains(err.Error(), hand.Ref) {
		t.Errorf("a note by hand: %v; want ErrNoSubSession naming %s", err, hand.Ref)
	}
	if err := os.Remove(subs[0].Rollout); err != nil {
		t.Fatal(err)
	}
	_, err = f.d.FollowUp(ctx, second.Meta.Ref, "more")
	if err == nil || !strings.Contains(err.Error(), "the rollout of "+second.Meta.Ref) || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("a note whose rollout is gone: %v; want an error naming %s", err, second.Meta.Ref)
	}
	if n := len(f.srv.Requests()); n != requests {
		t.Errorf("bad input made %d model calls; want none", n-requests)
	}
	if n := len(f.notes(t)); n != 3 {
		t.Errorf("%d notes after the refused follow-ups; want 3 (nothing landed)", n)
	}
}

// conversation is a request's messages without the system prompt and the
// transient tail.
func conversation(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for _, m := range msgs {
		if m.Role == llm.RoleSystem || m.Role != llm.RoleAssistant && strings.HasPrefix(m.Content, "[yagent:transient]") {
			continue
		}
		out = append(out, m)
	}
	return out
}

// TestFollowUpIsCompacted: a follow-up whose history no longer fits its
// model's window is compacted in the sub-agent's session like any turn
// (scenario follow-up-window.yaml): one summary, recorded in that
// session's rollout; the follow-up's request carries it and the message,
// and no request exceeds the window.
func TestFollowUpIsCompacted(t *testing.T) {
	f := windowFixture(t, "follow-up-window", nil)
	out, err := f.d.Turn(t.Context(), "have big.txt read twelve times, then ask which parser comes first")
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != "Followed up." {
		t.Fatalf("turn ended with %q", out.Final)
	}
	f.srv.AssertDone(t)
	subs, err := f.sessions.List(t.Context(), memory.ListOptions{All: true, Kinds: []string{memory.KindSubagent}})
	if err != nil || len(subs) != 1 {
		t.Fatalf("sub-agent sessions = %v, %v; want one", subs, err)
	}
	spend, _ := f.sessions.Spend(t.Context(), subs[0].ID)
	summaries := windowFigures(t, f, "reader", spend)
	data, err := os.ReadFile(subs[0].Rollout)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"type":"compacted"`); summaries == 0 || n != summaries {
		t.Errorf("%d summaries, %d compactions in the reader's rollout; want the follow-up compacted there", summaries, n)
	}
	steps := map[string]int{} // the request each step answered last
	for _, r := range f.srv.Requests() {
		steps[r.StepID] = r.N
	}
	if !(steps["exit"] < steps["summary"] && steps["summary"] < steps["follow-answer"]) {
		t.Errorf("requests of exit, summary, follow-answer: %d, %d, %d; want the summary made for the follow-up", steps["exit"], steps["summary"], steps["follow-answer"])
	}
	if notes := f.notes(t); len(notes) != 2 || notes[0].Handoff.Supersedes != notes[1].Meta.Ref {
		t.Errorf("board = %v; want the follow-up's note superseding the first", notes)
	}
}
