package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// ExtraReasoningItems is the Message.Extras key under which the Responses
// API's reasoning items (with their encrypted content) are kept, to be sent
// back as input items on the next call (yagent runs with store: false, so
// the server keeps nothing between calls).
const ExtraReasoningItems = "reasoning_items"

// responsesBody builds the Responses API request body for req: the same
// conversation as input items, the tools as function tools sent verbatim,
// store false and the encrypted reasoning included so it can go back.
func (c *OpenAIClient) responsesBody(req Request, model string, p *Profile) (*object, error) {
	msgs, err := placeTail(req.Messages, p.Tail)
	if err != nil {
		return nil, err
	}
	var input []json.RawMessage
	for i, m := range msgs {
		items, err := responsesItems(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		input = append(input, items...)
	}
	body := &object{}
	_ = body.set("model", model)
	body.setArray("input", input)
	if len(req.Tools) > 0 {
		tools := make([]json.RawMessage, len(req.Tools))
		for i, t := range req.Tools {
			schema, err := toolSchema(t, p)
			if err != nil {
				return nil, err
			}
			if tools[i], err = marshal(responsesTool{"function", t.Name, t.Description, schema, false}); err != nil {
				return nil, err
			}
		}
		body.setArray("tools", tools)
	}
	if req.ToolChoice != "" {
		choice, err := toolChoice(req, `{"type":"function","name":%s}`)
		if err != nil {
			return nil, err
		}
		body.setRaw("tool_choice", choice)
	}
	if req.MaxTokens > 0 {
		_ = body.set("max_output_tokens", req.MaxTokens)
	}
	if req.Temperature != nil {
		_ = body.set("temperature", *req.Temperature)
	}
	if c.reasoningEffort != "" {
		_ = body.set("reasoning", map[string]string{"effort": c.reasoningEffort, "summary": "auto"})
	}
	body.setRaw("include", json.RawMessage(`["reasoning.encrypted_content"]`))
	body.setRaw("store", json.RawMessage(`false`))
	if err := c.bodyOpts.finish(body, p.Omit); err != nil {
		return nil, err
	}
	return body, nil
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// responsesItems renders one message as input items: an assistant message
// becomes its reasoning items (verbatim), its text and its function calls;
// a tool result becomes a function_call_output.
func responsesItems(m Message) ([]json.RawMessage, error) {
	type text struct {
		Role    Role   `json:"role"`
		Content string `json:"content"`
	}
	one := func(v any) ([]json.RawMessage, error) {
		raw, err := marshal(v)
		return []json.RawMessage{raw}, err
	}
	switch m.Role {
	case RoleSystem, RoleUser:
		return one(text{m.Role, m.Content})
	case RoleTool:
		if m.ToolCallID == "" {
			return nil, fmt.Errorf("tool message without tool_call_id")
		}
		return one(struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Output string `json:"output"`
		}{"function_call_output", m.ToolCallID, m.Content})
	case RoleAssistant:
		var items []json.RawMessage
		if raw, ok := m.Extras[ExtraReasoningItems]; ok {
			var kept []json.RawMessage
			if err := json.Unmarshal(raw, &kept); err != nil {
				return nil, fmt.Errorf("kept reasoning items: %w", err)
			}
			items = append(items, kept...)
		}
		if m.Content != "" {
			raw, _ := marshal(text{RoleAssistant, m.Content})
			items = append(items, raw)
		}
		for _, tc := range m.ToolCalls {
			raw, _ := marshal(struct {
				Type      string `json:"type"`
				CallID    string `json:"call_id"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			}{"function_call", tc.ID, tc.Name, tc.Arguments})
			items = append(items, raw)
		}
		return items, nil
	}
	return nil, fmt.Errorf("unknown role %q", m.Role)
}

// responsesError is a failure the Responses stream reported itself: an
// error event or a failed response.
type responsesError struct {
	code, msg string // as the provider sent them: classify scrubs them before they are flattened
	retryable bool
}

func (e *responsesError) Error() string {
	if e.code != "" {
		return fmt.Sprintf("the model failed (%s: %s)", oneLine(e.code), oneLine(e.msg))
	}
	return "the model failed: " + oneLine(e.msg)
}

func newResponsesError(code, msg string) *responsesError {
	se := newStreamError([]byte(fmt.Sprintf(`{"error":{"code":%s,"message":%s}}`, quote(code), quote(msg))))
	return &responsesError{code: code, msg: msg, retryable: se.retryable}
}

func quote(s string) string {
	raw, _ := marshal(s)
	return string(raw)
}

// responsesAttempt streams one Responses API answer.
func (c *OpenAIClient) responsesAttempt(ctx context.Context, body []byte, ho *httpOutcome, out sink, tick func()) (Response, error) {
	var params responses.ResponseNewParams
	param.SetJSON(body, &params)
	stream := c.responses.NewStreaming(ctx, params, option.WithMiddleware(ho.middleware))
	defer stream.Close()
	var asm responsesAssembler
	for stream.Next() {
		tick()
		ev := stream.Current()
		if err := asm.add([]byte(ev.RawJSON()), out); err != nil {
			return Response{}, err
		}
	}
	err := stream.Err()
	switch {
	case err == nil && !asm.done:
		err = errCut
	case err != nil && asm.done && (context.Cause(ctx) == nil || context.Cause(ctx) == errIdle) && ho.status < 400 && !isStreamError(err):
		err = nil
	}
	if err != nil {
		return Response{}, err
	}
	return asm.response(), nil
}

// responsesAssembler builds one answer from Responses API events.
type responsesAssembler struct {
	text, reasoning strings.Builder
	items           []json.RawMessage // reasoning items, verbatim
	calls           []*respCall
	usage           Usage
	model           string
	finish          string
	done            bool
}

type respCall struct {
	itemID, callID, name string
	args                 strings.Builder
}

type respEvent struct {
	Type         string          `json:"type"`
	Delta        string          `json:"delta"`
	ItemID       string          `json:"item_id"`
	SummaryIndex int             `json:"summary_index"`
	Item         json.RawMessage `json:"item"`
	Response     *respResponse   `json:"response"`
	Code         json.RawMessage `json:"code"`
	Message      string          `json:"message"`
}

type respItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type respResponse struct {
	Model             string `json:"model"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        int `json:"input_tokens"`
		InputTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        int `json:"output_tokens"`
		OutputTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

func (a *responsesAssembler) add(data []byte, out sink) error {
	var ev respEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("decode stream event: %w", err)
	}
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		a.text.WriteString(ev.Delta)
		out.text(ev.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		a.reasoning.WriteString(ev.Delta)
		out.reasoning(ev.Delta)
	case "response.reasoning_summary_part.added":
		if a.reasoning.Len() > 0 {
			a.reasoning.WriteString("\n\n")
			out.reasoning("\n\n")
		}
	case "response.output_item.added", "response.output_item.done":
		return a.addItem(ev)
	case "response.function_call_arguments.delta":
		if c := a.call(ev.ItemID); c != nil {
			c.args.WriteString(ev.Delta)
		}
	case "response.completed", "response.incomplete", "response.failed":
		return a.finishWith(ev)
	case "error":
		return newResponsesError(rawCode(ev.Code), ev.Message)
	}
	return nil
}

func (a *responsesAssembler) addItem(ev respEvent) error {
	var it respItem
	if err := json.Unmarshal(ev.Item, &it); err != nil {
		return fmt.Errorf("decode output item: %w", err)
	}
	switch it.Type {
	case "function_call":
		c := a.call(it.ID)
		if c == nil {
			c = &respCall{itemID: it.ID}
			a.calls = append(a.calls, c)
		}
		c.callID, c.name = it.CallID, it.Name
		if ev.Type == "response.output_item.done" && it.Arguments != "" {
			c.args.Reset()
			c.args.WriteString(it.Arguments)
		}
	case "reasoning":
		if ev.Type == "response.output_item.done" {
			a.items = append(a.items, append(json.RawMessage(nil), ev.Item...))
		}
	}
	return nil
}

func (a *responsesAssembler) call(itemID string) *respCall {
	for _, c := range a.calls {
		if c.itemID == itemID {
			return c
		}
	}
	return nil
}

func (a *responsesAssembler) finishWith(ev respEvent) error {
	r := ev.Response
	if r == nil {
		return fmt.Errorf("%s event without a response", ev.Type)
	}
	a.model = r.Model
	if u := r.Usage; u != nil {
		a.usage = Usage{PromptTokens: u.InputTokens, CachedTokens: u.InputTokensDetails.CachedTokens,
			CompletionTokens: u.OutputTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens}
	}
	switch ev.Type {
	case "response.failed":
		code, msg := "", "the response failed"
		if r.Error != nil {
			code, msg = rawCode(r.Error.Code), r.Error.Message
		}
		return newResponsesError(code, msg)
	case "response.incomplete":
		a.finish = FinishLength
		if r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "content_filter" {
			a.finish = FinishContentFilter
		}
	default:
		a.finish = "stop"
		if len(a.calls) > 0 {
			a.finish = "tool_calls"
		}
	}
	a.done = true
	return nil
}

func (a *responsesAssembler) response() Response {
	m := Message{Role: RoleAssistant, Content: a.text.String(), Reasoning: a.reasoning.String()}
	if len(a.items) > 0 {
		raw, _ := marshal(a.items)
		m.Extras = map[string]json.RawMessage{ExtraReasoningItems: raw}
	}
	for _, c := range a.calls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.callID, Name: c.name, Arguments: c.args.String()})
	}
	return Response{Message: m, FinishReason: a.finish, Usage: a.usage, Model: a.model}
}
