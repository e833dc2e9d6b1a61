package agents

import (
	"context"
	"encoding/json"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/telemetry"
)

// What the turn loop tells telemetry beyond its hooks' arguments.

// providerName is the provider profile a client speaks ("" when it does
// not say).
func providerName(c llm.Client) string {
	if p, ok := c.(interface{ Profile() llm.Profile }); ok {
		return p.Profile().Name
	}
	return ""
}

// traceMessage is a message as gen_ai.input.messages and
// gen_ai.output.messages record it.
type traceMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content,omitempty"`
	ToolCalls  []llm.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// messagesJSON renders messages for a content attribute (only called with
// telemetry.log_content).
func messagesJSON(msgs []llm.Message) string {
	out := make([]traceMessage, len(msgs))
	for i, m := range msgs {
		out[i] = traceMessage{Role: string(m.Role), Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// endToolSpan records a tool call's outcome: an error result fails the
// span (error.type tool_error) without its text, which is content.
func endToolSpan(sp *telemetry.Span, res Result, err error) {
	if sp == nil {
		return
	}
	if res.IsError {
		sp.Fail("tool_error", "the tool returned an error result")
	}
	sp.Content(telemetry.KeySummary, func() string { return res.Summary })
	sp.Content(telemetry.KeyToolResult, func() string { return res.Content })
	sp.End(err)
}

// endDelegationSpan records how a delegation ended: the note's ref and
// status; a delegation refused, abandoned or ending in an error note fails
// the span. The task, conclusion and reason are content.
func endDelegationSpan(sp *telemetry.Span, d Delegation, res DelegationResult, err error) {
	sp.String(telemetry.KeyBoard, d.BoardID)
	sp.String(telemetry.KeyNoteRef, res.Ref)
	sp.String(telemetry.KeyNoteStatus, string(res.Status))
	sp.Usage(res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Usage.CachedTokens, res.Usage.ReasoningTokens)
	sp.Content(telemetry.KeyInputMessages, func() string { return telemetry.TextMessages("user", d.Task) })
	sp.Content(telemetry.KeyOutputMessages, func() string { return telemetry.TextMessages("assistant", res.Conclusion) })
	switch {
	case err != nil:
	case res.Abandoned:
		sp.String(telemetry.KeyNoteStatus, "abandoned")
		sp.Fail("abandoned", "abandoned by a gate: nothing was written")
	case res.Status == blackboard.StatusError:
		sp.Fail("note_error", "the delegation ended in an error note")
	}
	if res.Abandoned || err != nil {
		// yagent's own words (a gate, a refusal), not the model's.
		sp.String(telemetry.KeyReason, res.Reason)
	} else {
		sp.Content(telemetry.KeyReason, func() string { return res.Reason })
	}
	sp.End(err)
}

// refusedToolSpan records a call the loop answered without running a tool
// (no such tool, bad arguments, a stall): an execute_tool span that failed
// at once.
func refusedToolSpan(ctx context.Context, c llm.ToolCall, res Result) {
	if !telemetry.On() {
		return
	}
	_, sp := telemetry.StartTool(ctx, c.Name, c.ID)
	sp.Content(telemetry.KeyToolArguments, func() string { return c.Arguments })
	sp.Fail("tool_refused", "the call was answered without running a tool (unknown tool, bad arguments or a repeated call)")
	sp.Content(telemetry.KeyToolResult, func() string { return res.Content })
	sp.End(nil)
}
