package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Role is the author of a [Message].
type Role string

// The roles of the Chat Completions API that yagent uses.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation. It is provider-neutral except
// for Extras, the opaque fields a provider demands back (see [Profile]); it
// is stored as is in rollouts, so every field added here is additive.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// Reasoning is the model's visible reasoning behind an assistant
	// message (reasoning_content, reasoning, typed thinking parts, the
	// Responses API's summaries). It is never part of the answer.
	Reasoning string `json:"reasoning,omitempty"`
	// Extras are opaque provider data kept with an assistant message and
	// sent back where the provider demands it, keyed by name (e.g.
	// "reasoning_details" for OpenRouter, "reasoning_items" for the
	// Responses API's encrypted reasoning).
	Extras     map[string]json.RawMessage `json:"extras,omitempty"`
	ToolCalls  []ToolCall                 `json:"tool_calls,omitempty"`   // assistant only
	ToolCallID string                     `json:"tool_call_id,omitempty"` // tool only
	// Transient marks the per-call tail (state, window line, board index):
	// it is never stored, and the provider profile decides where it goes
	// without breaking the provider's role order.
	Transient bool `json:"-"`
}

// ToolCall is a call the model asked for. Arguments is the raw JSON text
// exactly as the model sent it: it may be malformed, and the caller validates
// it.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Extras are opaque fields of the call a provider demands back, keyed
	// by their wire name (Gemini's "extra_content" with its
	// thought_signature).
	Extras map[string]json.RawMessage `json:"extras,omitempty"`
}

// ToolDef declares a tool to the model. Parameters is a JSON schema object;
// it is sent byte for byte (compacted), so a stable schema keeps the prompt
// prefix cacheable.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Request is one chat completion call.
type Request struct {
	Model    string // empty: the endpoint's default model
	Messages []Message
	Tools    []ToolDef
	// ToolChoice is "" (the provider's default: auto when tools are
	// present), "auto", "none", "required", or the name of one declared
	// tool to force it.
	ToolChoice  string
	MaxTokens   int // 0 = provider default
	Temperature *float64
	// OnEvent, when set, is called synchronously from the goroutine running
	// Stream, in stream order. It must not block for long.
	OnEvent func(Event)
}

// EventKind tells what an [Event] reports.
type EventKind int

const (
	// EventText carries a text delta of the answer being streamed.
	EventText EventKind = iota + 1
	// EventRetry says a retry is about to happen: text printed so far for
	// this request is void, the next attempt streams the answer afresh.
	EventRetry
	// EventReasoning carries a delta of the model's reasoning: shown as
	// reasoning, never as the answer.
	EventReasoning
)

func (k EventKind) String() string {
	switch k {
	case EventText:
		return "text"
	case EventRetry:
		return "retry"
	case EventReasoning:
		return "reasoning"
	}
	return "unknown"
}

// Event is reported to Request.OnEvent while a request runs.
type Event struct {
	Kind EventKind
	Text string // EventText, EventReasoning: the delta
	// Attempt is the attempt the event belongs to, counting from 1. For
	// EventRetry it is the attempt about to start (2 for the first retry).
	Attempt int
	// MaxAttempts is the most attempts this request may make (MaxRetries+1),
	// so a printer can say "retrying (2/4)".
	MaxAttempts int
	Err         error         // EventRetry: why the previous attempt failed
	Wait        time.Duration // EventRetry: the pause before the next attempt
}

// Usage is the provider's token accounting for one response, or a sum of
// them; fields are zero when the provider did not report usage. It is
// yagent's one token count: the --json stream's usage (agents.UsageEvent),
// a rollout's usage item and a queued job's output embed it, so the JSON
// names here are the stream's (README "Run JSON") and must not change.
type Usage struct {
	PromptTokens int `json:"prompt_tokens"`
	// CachedTokens is the part of PromptTokens the provider read from its
	// prompt cache.
	CachedTokens     int `json:"cached_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// ReasoningTokens is the part of CompletionTokens spent reasoning.
	ReasoningTokens int `json:"reasoning_tokens"`
}

// Add accumulates v.
func (u *Usage) Add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CachedTokens += v.CachedTokens
	u.CompletionTokens += v.CompletionTokens
	u.ReasoningTokens += v.ReasoningTokens
}

// Cost is u in US dollars at prices per million tokens: input for the
// prompt tokens not cached, cached for the cached ones, output for the
// completion (reasoning included).
func (u Usage) Cost(input, cached, output float64) float64 {
	return (float64(u.PromptTokens-u.CachedTokens)*input + float64(u.CachedTokens)*cached + float64(u.CompletionTokens)*output) / 1e6
}

// Response is a finished answer.
type Response struct {
	// Message has role assistant, the full text and every tool call in
	// index order.
	Message      Message
	FinishReason string
	Usage        Usage
	Model        string // as reported by the provider, else as requested
	Attempts     int    // 1 when the first attempt succeeded
}

// Client streams one chat completion. Implementations must honour ctx
// promptly and return an error wrapping ctx.Err() when it is done.
type Client interface {
	Stream(ctx context.Context, req Request) (Response, error)
}
