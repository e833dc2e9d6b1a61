package llm

import (
	"encoding/json"
	"fmt"
	"slices"
)

// emptySchema is sent for a tool declared without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// chatBody builds the Chat Completions request body for req under the
// client's profile. The conversion is deterministic: the same Request gives
// the same bytes, which keeps the provider's prompt cache warm.
func (c *OpenAIClient) chatBody(req Request, model string, p *Profile) (*object, error) {
	msgs, err := placeTail(req.Messages, p.Tail)
	if err != nil {
		return nil, err
	}
	wire := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		if wire[i], err = chatMessage(m, p); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	body := &object{}
	_ = body.set("model", model)
	body.setArray("messages", wire)
	if len(req.Tools) > 0 {
		tools := make([]json.RawMessage, len(req.Tools))
		for i, t := range req.Tools {
			schema, err := toolSchema(t, p)
			if err != nil {
				return nil, err
			}
			if tools[i], err = marshal(chatTool{Type: "function", Function: chatFunction{t.Name, t.Description, schema}}); err != nil {
				return nil, err
			}
		}
		body.setArray("tools", tools)
	}
	if req.ToolChoice != "" {
		choice, err := toolChoice(req, `{"function":{"name":%s},"type":"function"}`)
		if err != nil {
			return nil, err
		}
		body.setRaw("tool_choice", choice)
	}
	if req.MaxTokens > 0 {
		_ = body.set(p.MaxTokensField, req.MaxTokens)
	}
	if req.Temperature != nil {
		_ = body.set("temperature", *req.Temperature)
	}
	if c.reasoningEffort != "" {
		_ = body.set("reasoning_effort", c.reasoningEffort)
	}
	body.setRaw("stream_options", json.RawMessage(`{"include_usage":true}`))
	if err := c.bodyOpts.finish(body, p.Omit); err != nil {
		return nil, err
	}
	return body, nil
}

// keeps reports whether m goes back with the extra field k.
func keeps(p *Profile, m Message, k string) bool {
	_, ok := m.Extras[k]
	return ok && slices.Contains(p.KeepMessage, k)
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toolSchema returns t's parameter schema as sent: verbatim (compacted), or
// reshaped by the profile with its key order kept.
func toolSchema(t ToolDef, p *Profile) (json.RawMessage, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("tool without a name")
	}
	schema := t.Parameters
	if len(schema) == 0 {
		schema = json.RawMessage(emptySchema)
	}
	if !json.Valid(schema) {
		return nil, fmt.Errorf("tool %s: parameters are not valid JSON", t.Name)
	}
	if p.ShapeSchema == nil {
		return schema, nil
	}
	n, err := parseJSONNode(schema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
	}
	p.ShapeSchema(n)
	return n.bytes(), nil
}

// toolChoice renders req.ToolChoice: a mode as a string, a declared tool's
// name through named (a format with one %s for the quoted name).
func toolChoice(req Request, named string) (json.RawMessage, error) {
	switch req.ToolChoice {
	case "auto", "none", "required":
		return marshal(req.ToolChoice)
	}
	for _, t := range req.Tools {
		if t.Name == req.ToolChoice {
			name, _ := marshal(t.Name)
			return json.RawMessage(fmt.Sprintf(named, name)), nil
		}
	}
	return nil, fmt.Errorf("tool choice %q: not auto, none, required or a declared tool", req.ToolChoice)
}

// chatMessage renders one message, with the reasoning and the extras the
// profile sends back.
func chatMessage(m Message, p *Profile) (json.RawMessage, error) {
	o := &object{}
	_ = o.set("role", m.Role)
	switch m.Role {
	case RoleSystem, RoleUser:
		_ = o.set("content", m.Content)
	case RoleTool:
		if m.ToolCallID == "" {
			return nil, fmt.Errorf("tool message without tool_call_id")
		}
		_ = o.set("content", m.Content)
		_ = o.set("tool_call_id", m.ToolCallID)
	case RoleAssistant:
		if m.Content != "" || len(m.ToolCalls) == 0 {
			_ = o.set("content", m.Content)
		}
		// reasoning_details, when kept, is the reasoning in full: the text
		// is not sent twice.
		if p.ReasoningField != "" && (m.Reasoning != "" || p.ReasoningAlways) && !keeps(p, m, "reasoning_details") {
			_ = o.set(p.ReasoningField, m.Reasoning)
		}
		for _, k := range p.KeepMessage {
			if raw, ok := m.Extras[k]; ok {
				o.setRaw(k, raw)
			}
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]json.RawMessage, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				call := &object{}
				_ = call.set("id", tc.ID)
				_ = call.set("type", "function")
				_ = call.set("function", struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				}{tc.Name, tc.Arguments})
				for _, k := range p.KeepToolCall {
					if raw, ok := tc.Extras[k]; ok {
						call.setRaw(k, raw)
					}
				}
				calls[i], _ = call.MarshalJSON()
			}
			_ = o.set("tool_calls", calls)
		}
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return o.MarshalJSON()
}
