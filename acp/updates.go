package acp

import (
	"encoding/json"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/yagent/yagent/agents/eventline"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/llm"
)

// Mapper turns the events of a session (the one vocabulary of package
// event: what --json prints and a rollout records) into ACP session
// updates. It is the only place updates are made; the words of a line are
// eventline's, as every other view shows them. A Mapper remembers what a
// view must (the delegations of the lead's turn, for the plan and for the
// labels of its sub-agents' lines); it is not safe for concurrent use.
type Mapper struct {
	view eventline.View
	plan []planItem
}

// planItem is one delegation of the lead's turn, an entry of its plan.
type planItem struct {
	callID, content string
	status          sdk.PlanEntryStatus
}

// Most runes of a tool's output replayed from a rollout.
const replayOutputRunes = 2000

// Updates returns the session updates e maps to, none for an event an
// editor shows otherwise (a turn's start and end are the prompt's request
// and response, usage is not shown).
//
// The lead's (depth 0) streamed text is agent_message_chunk, its reasoning,
// notices, retries, errors and notebook writes agent_thought_chunk; its
// tool calls are tool_call and their results tool_call_update. A
// delegation is the lead's delegate tool call: its start and finish update
// that call, and every line of its sub-agent's work (Event.Parent is the
// call) is the call's content, so the editor shows the sub-agent's
// progress under it. The delegations of a turn (several at once are
// batch-like work) and a batch plan's report are the plan. A rollout's
// whole messages (event.Message: session/load replays a history) are the
// chunks and tool calls they were.
func (m *Mapper) Updates(e event.Event) []sdk.SessionUpdate {
	lines := m.view.Lines(e, eventline.Options{})
	if e.Depth > 0 || e.Parent != "" {
		return m.progress(e, lines)
	}
	switch e.Type {
	case event.TurnStarted:
		m.plan = nil
	case event.TextDelta:
		if e.Text != "" {
			return one(sdk.UpdateAgentMessageText(e.Text))
		}
	case event.ReasoningDelta:
		if e.Text != "" {
			return one(sdk.UpdateAgentThoughtText(e.Text))
		}
	case event.ToolCall:
		t := e.Tool
		return one(sdk.StartToolCall(sdk.ToolCallId(t.CallID), title(t.Name, t.Args),
			sdk.WithStartKind(kind(t.Name)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress), sdk.WithStartRawInput(raw(t.Args))))
	case event.ToolResult:
		t := e.Tool
		return one(sdk.UpdateToolCall(sdk.ToolCallId(t.CallID), sdk.WithUpdateStatus(status(!t.IsError)),
			sdk.WithUpdateContent(text(t.Summary))))
	case event.DelegationStarted, event.DelegationFinished, event.DelegationSkipped:
		return m.delegation(e, lines)
	case event.BatchStarted:
		m.plan = nil
		return thought(lines)
	case event.BatchFinished:
		return m.batchPlan(e.Batch)
	case event.Notice, event.Retry, event.Error, event.NoteSaved:
		return thought(lines)
	case event.Message:
		return replay(e.Message)
	}
	return nil
}

// progress is a sub-agent's event: its lines become the content of its
// delegation's tool call (the lead's delegate call, Event.Parent).
func (m *Mapper) progress(e event.Event, lines []eventline.Line) []sdk.SessionUpdate {
	if e.Parent == "" || len(lines) == 0 {
		return nil
	}
	return one(sdk.UpdateToolCall(sdk.ToolCallId(e.Parent), sdk.WithUpdateContent(text(joinLines(lines)))))
}

// delegation updates the delegate call a delegation runs under, and the
// plan of the turn's delegations.
func (m *Mapper) delegation(e event.Event, lines []eventline.Line) []sdk.SessionUpdate {
	d := e.Delegation
	id := d.CallID
	if id == "" {
		id = d.ID
	}
	st := sdk.PlanEntryStatusInProgress
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateContent(text(joinLines(lines)))}
	switch e.Type {
	case event.DelegationStarted:
		opts = append(opts, sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress), sdk.WithUpdateTitle(joinLines(lines)))
	default:
		st = sdk.PlanEntryStatusCompleted
		opts = append(opts, sdk.WithUpdateStatus(status(delegationOK(d.Status))))
	}
	content := d.Agent + ": " + brief.Line(d.Task, 100)
	found := false
	for i := range m.plan {
		if m.plan[i].callID == id {
			m.plan[i].status, found = st, true
		}
	}
	if !found {
		m.plan = append(m.plan, planItem{callID: id, content: content, status: st})
	}
	return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(id), opts...), m.planUpdate()}
}

func (m *Mapper) planUpdate() sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(m.plan))
	for _, p := range m.plan {
		entries = append(entries, sdk.PlanEntry{Content: p.content, Priority: sdk.PlanEntryPriorityMedium, Status: p.status})
	}
	return sdk.UpdatePlan(entries...)
}

// batchPlan is a batch's report as a plan: one entry per delegation of
// the plan file, in its order, each done.
func (m *Mapper) batchPlan(b *event.BatchEvent) []sdk.SessionUpdate {
	if b == nil || len(b.Rows) == 0 {
		return nil
	}
	m.plan = nil
	for _, r := range b.Rows {
		m.plan = append(m.plan, planItem{callID: r.ID, content: r.ID + " (" + r.Agent + "): " + r.Status, status: sdk.PlanEntryStatusCompleted})
	}
	return one(m.planUpdate())
}

// replay is a whole message of a history as the updates its turn sent.
func replay(msg *llm.Message) []sdk.SessionUpdate {
	if msg == nil {
		return nil
	}
	var out []sdk.SessionUpdate
	switch msg.Role {
	case llm.RoleUser:
		if msg.Content != "" {
			out = append(out, sdk.UpdateUserMessageText(msg.Content))
		}
	case llm.RoleAssistant:
		if msg.Reasoning != "" {
			out = append(out, sdk.UpdateAgentThoughtText(msg.Reasoning))
		}
		if msg.Content != "" {
			out = append(out, sdk.UpdateAgentMessageText(msg.Content))
		}
		for _, tc := range msg.ToolCalls {
			args := json.RawMessage(tc.Arguments)
			out = append(out, sdk.StartToolCall(sdk.ToolCallId(tc.ID), title(tc.Name, args),
				sdk.WithStartKind(kind(tc.Name)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress), sdk.WithStartRawInput(raw(args))))
		}
	case llm.RoleTool:
		ok := !strings.HasPrefix(msg.Content, "error:")
		out = append(out, sdk.UpdateToolCall(sdk.ToolCallId(msg.ToolCallID), sdk.WithUpdateStatus(status(ok)),
			sdk.WithUpdateContent(text(cut(msg.Content, replayOutputRunes)))))
	}
	return out
}

// kind is the ACP kind of a tool, by its name (editors pick an icon).
func kind(name string) sdk.ToolKind {
	switch name {
	case "read_file", "list_dir", "read_note", "board_read_note", "skill":
		return sdk.ToolKindRead
	case "glob", "grep", "list_notes", "tool_find":
		return sdk.ToolKindSearch
	case "write_file", "edit_file", "apply_change":
		return sdk.ToolKindEdit
	case "discard_change":
		return sdk.ToolKindDelete
	case "shell":
		return sdk.ToolKindExecute
	case "delegate":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// title is a call as the other views name it: the tool and its arguments
// in brief.
func title(name string, args json.RawMessage) string {
	if a := brief.Args(args); a != "" {
		return name + " " + a
	}
	return name
}

// raw is a call's arguments as JSON (nil when they do not parse: the
// model may send anything).
func raw(args json.RawMessage) any {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return nil
	}
	return v
}

func status(ok bool) sdk.ToolCallStatus {
	if ok {
		return sdk.ToolCallStatusCompleted
	}
	return sdk.ToolCallStatusFailed
}

// delegationOK: a delegation that landed a note the lead can use.
func delegationOK(s string) bool {
	switch s {
	case "ok", "partial", "degraded":
		return true
	}
	return false
}

func one(u sdk.SessionUpdate) []sdk.SessionUpdate { return []sdk.SessionUpdate{u} }

func text(s string) []sdk.ToolCallContent {
	if s == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(s))}
}

// thought is lines shown as the agent's thought, each on its own line.
func thought(lines []eventline.Line) []sdk.SessionUpdate {
	if len(lines) == 0 {
		return nil
	}
	return one(sdk.UpdateAgentThoughtText(joinLines(lines) + "\n"))
}

func joinLines(lines []eventline.Line) string {
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		parts = append(parts, strings.TrimSpace(l.Text))
	}
	return strings.Join(parts, "\n")
}

// cut keeps the first n runes of s, saying how much was left out.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "\n…[" + brief.Bytes(int64(len(s))) + " in all]"
}
