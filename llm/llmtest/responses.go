package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/yagent/yagent/llm"
)

// decodeResponsesRequest reads a Responses API request. Its input items
// become messages for the matchers: messages by role, function calls
// joined into one assistant message (with the reasoning items before them
// kept in its Extras, as llm keeps them), function call outputs as tool
// messages, instructions as a first system message.
func decodeResponsesRequest(body []byte) (*chatRequest, error) {
	var raw struct {
		Model        string          `json:"model"`
		Input        json.RawMessage `json:"input"`
		Instructions string          `json:"instructions"`
		Tools        json.RawMessage `json:"tools"`
		Stream       bool            `json:"stream"`
		Include      []string        `json:"include"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, err
	}
	req := &chatRequest{Model: raw.Model, Stream: raw.Stream, Include: raw.Include, wire: wireResponses,
		RawMessages: raw.Input, RawTools: raw.Tools}
	if len(raw.Tools) > 0 {
		if err := json.Unmarshal(raw.Tools, &req.Tools); err != nil {
			return nil, fmt.Errorf("tools: %w", err)
		}
	}
	if raw.Instructions != "" {
		req.msgs = append(req.msgs, llm.Message{Role: llm.RoleSystem, Content: raw.Instructions})
	}
	var text string
	if json.Unmarshal(raw.Input, &text) == nil {
		req.msgs = append(req.msgs, llm.Message{Role: llm.RoleUser, Content: text})
		return req, nil
	}
	var items []json.RawMessage
	if len(raw.Input) > 0 {
		if err := json.Unmarshal(raw.Input, &items); err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
	}
	var reasoning []json.RawMessage
	assistant := func() *llm.Message {
		if n := len(req.msgs); n > 0 && req.msgs[n-1].Role == llm.RoleAssistant && len(reasoning) == 0 {
			return &req.msgs[n-1]
		}
		m := llm.Message{Role: llm.RoleAssistant}
		if len(reasoning) > 0 {
			kept, _ := json.Marshal(reasoning)
			m.Extras = map[string]json.RawMessage{llm.ExtraReasoningItems: kept}
			reasoning = nil
		}
		req.msgs = append(req.msgs, m)
		return &req.msgs[len(req.msgs)-1]
	}
	for i, it := range items {
		var item struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Output    json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(it, &item); err != nil {
			return nil, fmt.Errorf("input[%d]: %w", i, err)
		}
		switch item.Type {
		case "reasoning":
			reasoning = append(reasoning, it)
		case "function_call":
			a := assistant()
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: item.CallID, Name: item.Name, Arguments: item.Arguments})
		case "function_call_output":
			req.msgs = append(req.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: item.CallID, Content: contentText(item.Output)})
		case "", "message":
			role := llm.Role(item.Role)
			if role == "developer" {
				role = llm.RoleSystem
			}
			if role == llm.RoleAssistant {
				assistant().Content += contentText(item.Content)
				continue
			}
			req.msgs = append(req.msgs, llm.Message{Role: role, Content: contentText(item.Content)})
		default:
			return nil, fmt.Errorf("input[%d]: item type %q is not served by llmtest", i, item.Type)
		}
	}
	return req, nil
}

// responsesEvents renders the answer as Responses API events: a reasoning
// item (summary deltas, and encrypted content when the request included
// it), a message item with text deltas, function-call items with their
// arguments in pieces, then response.completed (or incomplete or failed,
// for a length, content_filter or error finish) with the usage.
func (a *answer) responsesEvents() [][]byte {
	var evs [][]byte
	seq := 0
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(orderedEvent(fields))
		evs = append(evs, []byte("event: "+typ+"\ndata: "+strings.TrimSuffix(b.String(), "\n")+"\n\n"))
	}
	add("response.created", map[string]any{"response": a.responseObject("in_progress")})
	out := a.outputItems()
	for i, item := range out {
		id := item["id"]
		switch item["type"] {
		case "reasoning":
			add("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
			add("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			for _, piece := range words(a.reasoning) {
				add("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "delta": piece})
			}
			add("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "text": a.reasoning})
		case "message":
			add("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}})
			for _, piece := range words(a.text) {
				add("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": piece})
			}
			add("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": a.text})
		case "function_call":
			added := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": item["call_id"], "name": item["name"]}
			add("response.output_item.added", map[string]any{"output_index": i, "item": added})
			args, _ := item["arguments"].(string)
			for _, piece := range pieces(args, argPiece) {
				add("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": piece})
			}
			add("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": args})
		}
		add("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	status := "completed"
	switch a.finish {
	case "length", "content_filter":
		status = "incomplete"
	case "error":
		status = "failed"
	}
	add("response."+status, map[string]any{"response": a.responseObject(status)})
	return evs
}

// outputItems are the answer's output items, in order.
func (a *answer) outputItems() []map[string]any {
	var out []map[string]any
	if a.reasoning != "" {
		item := map[string]any{"id": "rs_" + a.id, "type": "reasoning",
			"summary": []any{map[string]any{"type": "summary_text", "text": a.reasoning}}}
		if a.encrypted {
			item["encrypted_content"] = EncryptedReasoning(a.id, a.reasoning)
		}
		out = append(out, item)
	}
	if a.text != "" {
		out = append(out, map[string]any{"id": "msg_" + a.id, "type": "message", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}})
	}
	for j, tc := range a.calls {
		out = append(out, map[string]any{"id": fmt.Sprintf("fc_%s_%d", a.id, j), "type": "function_call", "status": "completed",
			"arguments": tc.Function.Arguments, "call_id": tc.ID, "name": tc.Function.Name})
	}
	return out
}

// EncryptedReasoning is the encrypted_content llmtest gives the reasoning
// item of answer id: deterministic, so a test can check it came back.
func EncryptedReasoning(id, reasoning string) string {
	return "llmtest-enc:" + base64.StdEncoding.EncodeToString([]byte(id+"\x00"+reasoning))
}

// responseObject is the response as the created and final events carry it.
func (a *answer) responseObject(status string) map[string]any {
	r := map[string]any{"id": a.id, "object": "response", "created_at": a.created, "status": status, "model": a.model, "output": []any{}}
	if status == "in_progress" {
		return r
	}
	items := a.outputItems()
	output := make([]any, len(items))
	for i, it := range items {
		output[i] = it
	}
	r["output"] = output
	u := a.usage
	reasoningTokens := 0
	if u.CompletionTokensDetails != nil {
		reasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	r["usage"] = map[string]any{
		"input_tokens": u.PromptTokens, "input_tokens_details": map[string]any{"cached_tokens": u.PromptTokensDetails.CachedTokens},
		"output_tokens": u.CompletionTokens, "output_tokens_details": map[string]any{"reasoning_tokens": reasoningTokens},
		"total_tokens": u.TotalTokens,
	}
	switch status {
	case "incomplete":
		reason := "max_output_tokens"
		if a.finish == "content_filter" {
			reason = "content_filter"
		}
		r["incomplete_details"] = map[string]any{"reason": reason}
	case "failed":
		r["error"] = map[string]any{"code": "server_error", "message": "The model failed to generate a response (llmtest finish_reason error)."}
	}
	return r
}

// orderedEvent writes type first, then the other fields sorted, so events
// read naturally (encoding/json sorts map keys).
type orderedEvent map[string]any

func (e orderedEvent) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	t, _ := json.Marshal(e["type"])
	b.Write(t)
	for _, k := range sortedKeys(e) {
		if k == "type" {
			continue
		}
		v, err := json.Marshal(e[k])
		if err != nil {
			return nil, err
		}
		b.WriteByte(',')
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
