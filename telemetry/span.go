package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
)

// Attribute keys: the GenAI semantic conventions' where one exists,
// yagent.* for the rest.
const (
	KeyOperation      = "gen_ai.operation.name"
	KeyProvider       = "gen_ai.provider.name"
	KeyRequestModel   = "gen_ai.request.model"
	KeyResponseModel  = "gen_ai.response.model"
	KeyFinishReasons  = "gen_ai.response.finish_reasons"
	KeyInputTokens    = "gen_ai.usage.input_tokens"
	KeyOutputTokens   = "gen_ai.usage.output_tokens"
	KeyCachedTokens   = "gen_ai.usage.cache_read.input_tokens"
	KeyReasoning      = "gen_ai.usage.reasoning.output_tokens"
	KeyAgentName      = "gen_ai.agent.name"
	KeyConversationID = "gen_ai.conversation.id"
	KeyToolName       = "gen_ai.tool.name"
	KeyToolCallID     = "gen_ai.tool.call.id"
	KeyToolType       = "gen_ai.tool.type"
	KeyErrorType      = "error.type"

	// Content: recorded only with telemetry.log_content.
	KeyInputMessages  = "gen_ai.input.messages"
	KeyOutputMessages = "gen_ai.output.messages"
	KeyToolArguments  = "gen_ai.tool.call.arguments"
	KeyToolResult     = "gen_ai.tool.call.result"

	KeyDepth       = "yagent.delegation.depth"
	KeyDelegation  = "yagent.delegation.id"
	KeyBoard       = "yagent.board"
	KeyNoteRef     = "yagent.note.ref"
	KeyNoteStatus  = "yagent.note.status"
	KeyReason      = "yagent.reason"
	KeySteps       = "yagent.steps"
	KeyBatch       = "yagent.batch.plan"
	KeyBatchSize   = "yagent.batch.delegations"
	KeyBatchFailed = "yagent.batch.failed"
	KeySummary     = "yagent.tool.summary"
)

// contentCap bounds one content attribute, in bytes.
const contentCap = 32 << 10

// Span is one span of a hook; nil when telemetry is off, and every method
// is a no-op on nil, so a hook's cost when off is one atomic load.
type Span struct {
	s       *span
	content bool
}

func start(ctx context.Context, name string, kind spanKind, attrs ...kv) (context.Context, *Span) {
	st := cur.Load()
	if st == nil {
		return ctx, nil
	}
	ctx, s := st.tracer.start(ctx, name, kind, attrs...)
	return ctx, &Span{s: s, content: st.content}
}

// StartAgent starts "invoke_agent {agent}": a director turn (depth 0) or
// a delegation. id is the session (a turn) or the delegation's call id.
func StartAgent(ctx context.Context, agent, model string, depth int, id string) (context.Context, *Span) {
	if cur.Load() == nil {
		return ctx, nil
	}
	key := KeyDelegation
	if depth == 0 {
		key = KeyConversationID
	}
	return start(ctx, "invoke_agent "+agent, kindInternal,
		str(KeyOperation, "invoke_agent"), str(KeyAgentName, agent),
		str(KeyRequestModel, model), integer(KeyDepth, depth), str(key, id))
}

// StartChat starts "chat {model}", one model call.
func StartChat(ctx context.Context, model, provider string) (context.Context, *Span) {
	if cur.Load() == nil {
		return ctx, nil
	}
	return start(ctx, "chat "+model, kindClient,
		str(KeyOperation, "chat"), str(KeyRequestModel, model), str(KeyProvider, provider))
}

// StartTool starts "execute_tool {name}".
func StartTool(ctx context.Context, name, callID string) (context.Context, *Span) {
	if cur.Load() == nil {
		return ctx, nil
	}
	return start(ctx, "execute_tool "+name, kindInternal,
		str(KeyOperation, "execute_tool"), str(KeyToolName, name),
		str(KeyToolCallID, callID), str(KeyToolType, "function"))
}

// StartBatch starts "batch {plan}", the root of a batch run; the span is
// named by the plan file's stem, the attribute holds the whole name.
func StartBatch(ctx context.Context, plan, board string, delegations int) (context.Context, *Span) {
	if cur.Load() == nil {
		return ctx, nil
	}
	name := strings.TrimSuffix(filepath.Base(plan), filepath.Ext(plan)) // a plan is named by its file
	return start(ctx, "batch "+name, kindInternal,
		str(KeyBatch, plan), str(KeyBoard, board), integer(KeyBatchSize, delegations))
}

// Chat records a model call's answer: the model that answered, why it
// stopped and the tokens.
func (sp *Span) Chat(model, finish string, input, output, cached, reasoning int) {
	if sp == nil {
		return
	}
	sp.s.setAttributes(str(KeyResponseModel, model), strList(KeyFinishReasons, []string{finish}),
		integer(KeyInputTokens, input), integer(KeyOutputTokens, output),
		integer(KeyCachedTokens, cached), integer(KeyReasoning, reasoning))
}

// Usage records an agent run's token totals.
func (sp *Span) Usage(input, output, cached, reasoning int) {
	if sp == nil {
		return
	}
	sp.s.setAttributes(integer(KeyInputTokens, input), integer(KeyOutputTokens, output),
		integer(KeyCachedTokens, cached), integer(KeyReasoning, reasoning))
}

// Int records a number.
func (sp *Span) Int(key string, v int) {
	if sp == nil {
		return
	}
	sp.s.setAttributes(integer(key, v))
}

// String records a string that is not content (a ref, a status, a reason).
func (sp *Span) String(key, v string) {
	if sp == nil || v == "" {
		return
	}
	sp.s.setAttributes(str(key, v))
}

// Content records text a model read or wrote, or a person typed, only
// when telemetry.log_content is set; text is called only then.
func (sp *Span) Content(key string, text func() string) {
	if sp == nil || !sp.content {
		return
	}
	v := text()
	if len(v) > contentCap {
		v = v[:contentCap] + "…"
	}
	sp.s.setAttributes(str(key, v))
}

// Fail marks the span failed with a kind of error (error.type) and a
// description. The description must not be content.
func (sp *Span) Fail(kind, desc string) {
	if sp == nil {
		return
	}
	sp.s.setAttributes(str(KeyErrorType, kind))
	sp.s.fail(desc)
}

// End ends the span; a non-nil err marks it failed (error.type "error"
// unless Fail set one).
func (sp *Span) End(err error) {
	if sp == nil {
		return
	}
	if err != nil {
		sp.s.setAttributes(str(KeyErrorType, errorType(err)))
		sp.s.fail(err.Error())
	}
	sp.s.finish()
}

func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "error"
}

// TextMessages renders one message of text as gen_ai.input.messages and
// gen_ai.output.messages record it (a JSON array), for Content.
func TextMessages(role, text string) string {
	b, _ := json.Marshal([]struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}{{role, text}})
	return string(b)
}
