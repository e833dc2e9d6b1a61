package agents

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/blackboard"
)

// Teams (issue 30 item 4): post_task, claim_task and send_message, the
// member a sub-agent's run makes of it, and the team loop's helpers
// (SubRunner.Run keeps claiming for a delegation with a team).

// Arguments of the team tools (schemas.json has their descriptions).
type (
	postTaskIn struct {
		Title     string   `json:"title"`
		Body      string   `json:"body,omitempty"`
		Team      string   `json:"team,omitempty"`
		DependsOn []string `json:"depends_on,omitempty"`
		Assignee  string   `json:"assignee,omitempty"`
	}
	claimTaskIn struct {
		Ref string `json:"ref"`
	}
	sendMessageIn struct {
		To   string `json:"to"`
		Text string `json:"text"`
	}
)

// TeamToolNames are the team tools of the registry every sub-agent gets,
// whatever its definition's tool list (claim_task is added to it too).
var TeamToolNames = []string{"post_task", "send_message"}

// member is the sub-agent a delegation runs, as the team tools and its
// board index see it: who it is, which team, the task it holds this
// round, and which messages its index showed.
type member struct {
	agent, session, team, board string
	store                       *blackboard.Store

	mu sync.Mutex
	// stem reserves the stem this round's note lands at (a claim names
	// it before the note exists); set returns what it set.
	stem  func() string
	claim *blackboard.Claim // the task this round works on
	title string            // its title
	// read and markRead keep which messages the member was shown (its
	// session's record); without a recorder, local keeps them for the run.
	read     func(string) bool
	markRead func(...string) error
	local    map[string]bool
	shown    []string // refs the request being answered showed
}

type memberKey struct{}

func withMember(ctx context.Context, m *member) context.Context {
	return context.WithValue(ctx, memberKey{}, m)
}

// memberOf is the sub-agent ctx runs (nil: the director).
func memberOf(ctx context.Context) *member {
	m, _ := ctx.Value(memberKey{}).(*member)
	return m
}

// name is who the member is as an author and an addressee.
func (m *member) name() string {
	if m == nil {
		return blackboard.Director
	}
	return m.agent
}

// holding returns the task the member holds this round ("" = none).
func (m *member) holding() *blackboard.Claim {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.claim
}

// unread returns the member's unread messages and remembers them as
// shown by the request about to be sent.
func (m *member) unread() []blackboard.Message {
	msgs, err := m.store.Mailbox(m.board, m.agent)
	if err != nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	msgs = slices.DeleteFunc(msgs, func(msg blackboard.Message) bool {
		if m.read != nil {
			return m.read(msg.Ref)
		}
		return m.local[msg.Ref]
	})
	m.shown = m.shown[:0]
	for _, msg := range msgs {
		m.shown = append(m.shown, msg.Ref)
	}
	return msgs
}

// answered records that a response came back to a request that showed
// the messages remembered by unread: they are read.
func (m *member) answered() error {
	m.mu.Lock()
	shown := slices.Clone(m.shown)
	m.shown = m.shown[:0]
	if m.markRead == nil {
		if m.local == nil {
			m.local = map[string]bool{}
		}
		for _, r := range shown {
			m.local[r] = true
		}
	}
	m.mu.Unlock()
	if m.markRead == nil || len(shown) == 0 {
		return nil
	}
	return m.markRead(shown...)
}

// tail is the member's board index of one call: its unread messages
// first, then the index as it was when the delegation started.
func (m *member) tail(index string) string {
	return ComposeTail(m.withMail(index))
}

// withMail is index with the member's unread messages before it, as its
// tail shows them but without the tail's header: the index a round sent
// to another host starts from (Delegation.Rounds).
func (m *member) withMail(index string) string {
	var parts []string
	for _, p := range []string{blackboard.FormatMailbox(m.unread(), 0), index} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n\n")
}

// TeamTools returns post_task and send_message, for the registry: the
// director's and every sub-agent's. catalog gives the agents a message
// may be sent to (besides director and all).
func TeamTools(store *blackboard.Store, catalog func() *Catalog) []*Tool {
	return []*Tool{
		NewTool("post_task", "team", 0, func(ctx context.Context, _ *Call, in postTaskIn) (Result, error) {
			return postTask(ctx, store, in)
		}),
		NewTool("send_message", "team", 0, func(ctx context.Context, _ *Call, in sendMessageIn) (Result, error) {
			return sendMessage(ctx, store, catalog, in)
		}),
	}
}

// ClaimTaskTool returns claim_task, which only a sub-agent gets
// (SubRunner adds it): the director hands tasks out, it never holds one.
func ClaimTaskTool(store *blackboard.Store) *Tool {
	return NewTool("claim_task", "team", 0, func(ctx context.Context, _ *Call, in claimTaskIn) (Result, error) {
		return claimTask(ctx, store, in)
	})
}

func postTask(ctx context.Context, store *blackboard.Store, in postTaskIn) (Result, error) {
	board, err := boardOf(ctx)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	m := memberOf(ctx)
	team := in.Team
	if team == "" && m != nil {
		team = m.team
	}
	t, err := store.PostTask(board, blackboard.Task{Title: strings.TrimSpace(in.Title), Body: in.Body, Team: team,
		Assignee: in.Assignee, DependsOn: in.DependsOn, Author: m.name()})
	if err != nil {
		return ErrorResult("post the task %q: %v", in.Title, err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "posted %s: %s", t.Ref, t.Title)
	if t.Team != "" {
		fmt.Fprintf(&b, "\nteam: %s", t.Team)
	}
	if len(t.DependsOn) > 0 {
		fmt.Fprintf(&b, "\ndepends on: %s", strings.Join(t.DependsOn, ", "))
	}
	return Result{Content: b.String(), Summary: t.Ref}, nil
}

func claimTask(ctx context.Context, store *blackboard.Store, in claimTaskIn) (Result, error) {
	board, err := boardOf(ctx)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	m := memberOf(ctx)
	switch {
	case m == nil:
		return ErrorResult("the director hands tasks out rather than doing them: post_task them and delegate with team, or claim nothing"), nil
	case m.holding() != nil:
		c := m.holding()
		return ErrorResult("you hold %s already: hand it over with agent_exit first (its note is the task's result)", c.Task), nil
	}
	res, err := m.claimFor(board, in.Ref)
	if err != nil {
		return ErrorResult("claim %s: %v", in.Ref, err), nil
	}
	if !res.Won {
		return Result{Content: notClaimed(res), Summary: string(res.State)}, nil
	}
	t := res.Task
	return Result{Content: fmt.Sprintf("claimed %s: %s\n\n%s\n\nYour handoff (the deliverable, then agent_exit) is this task's result; it lands at %s.",
		t.Ref, t.Title, t.Body, res.Holder.Ref), Summary: "claimed " + t.Ref}, nil
}

// claimFor claims ref for the member, naming the note its round lands.
func (m *member) claimFor(board, ref string) (blackboard.ClaimResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	note := blackboard.Ref{Agent: blackboard.NormalizeAgent(m.agent), Stem: m.stem()}.String()
	res, err := m.store.ClaimTask(board, ref, blackboard.Claim{Agent: m.agent, Session: m.session, Ref: note})
	if err == nil && res.Won {
		m.claim, m.title = res.Holder, res.Task.Title
	}
	return res, err
}

// notClaimed says why a claim was not won, as a normal result: the model
// should move on, not retry.
func notClaimed(res blackboard.ClaimResult) string {
	t := res.Task
	switch {
	case len(res.Wait) > 0:
		return fmt.Sprintf("%s cannot be claimed yet: it depends on tasks not done: %s", t.Ref, strings.Join(res.Wait, ", "))
	case res.Done:
		return fmt.Sprintf("%s is %s already (by %s, note %s): %s", t.Ref, res.State, res.Holder.Agent, res.Holder.Ref, t.Conclusion)
	}
	return fmt.Sprintf("%s is claimed by %s (its note will land at %s): pick another task", t.Ref, res.Holder.Agent, res.Holder.Ref)
}

func sendMessage(ctx context.Context, store *blackboard.Store, catalog func() *Catalog, in sendMessageIn) (Result, error) {
	board, err := boardOf(ctx)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	known := []string{blackboard.Director, blackboard.ToAll}
	if c := catalog(); c != nil {
		known = append(known, catalogNames(c)...)
	}
	to := strings.TrimSpace(in.To)
	i := slices.IndexFunc(known, func(k string) bool { return blackboard.NormalizeAgent(k) == blackboard.NormalizeAgent(to) })
	if i < 0 {
		return ErrorResult("there is no agent %q to send to: send to one of %s", in.To, strings.Join(known, ", ")), nil
	}
	msg, err := store.SendMessage(board, blackboard.Message{From: memberOf(ctx).name(), To: known[i], Text: in.Text})
	if err != nil {
		return ErrorResult("send the message to %s: %v", known[i], err), nil
	}
	return Result{Content: fmt.Sprintf("sent %s to %s; it shows in their next board index", msg.Ref, msg.To), Summary: "to " + msg.To}, nil
}

// teamPoll is how often a member with nothing to claim looks again
// while a task it could do waits on a task another member holds.
const teamPoll = 100 * time.Millisecond

// nextTask claims the next open task of the member's team for a new
// round (false: none is left that it may claim). Tasks others won in
// between are skipped.
func (m *member) nextTask(ctx context.Context) (blackboard.ClaimResult, bool, error) {
	for {
		list, err := m.store.Tasks(m.board)
		if err != nil {
			return blackboard.ClaimResult{}, false, err
		}
		open := list.Claimable(m.team, m.agent)
		if len(open) == 0 {
			if !list.InProgressBlocks(m.team, m.agent) {
				return blackboard.ClaimResult{}, false, nil
			}
			// A task of the team waits on one another member holds: it
			// becomes claimable when that note lands (or never, if it
			// fails — then nothing blocks it on a claim any more).
			select {
			case <-ctx.Done():
				return blackboard.ClaimResult{}, false, context.Cause(ctx)
			case <-time.After(teamPoll):
			}
			continue
		}
		for _, t := range open {
			res, err := m.claimFor(m.board, t.Ref)
			if err != nil {
				return blackboard.ClaimResult{}, false, err
			}
			if res.Won {
				return res, true, nil
			}
		}
	}
}

// handedOver ends the round: the member holds no task, and its next
// note gets a stem of its own.
func (m *member) handedOver() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.claim, m.title = nil, ""
}

// teamTaskInput is a round's input: the task claimed for the member.
func teamTaskInput(lead string, res blackboard.ClaimResult, team string, n int) string {
	if lead != "" {
		lead += "\n\n"
	}
	return Prompt("team_task", map[string]string{"lead": lead, "ref": res.Task.Ref, "team": team, "n": strconv.Itoa(n),
		"title": res.Task.Title, "body": res.Task.Body})
}
