package llm

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// assembler builds one answer from stream chunks. It is written here rather
// than with openai.ChatCompletionAccumulator because the accumulator rejects
// a chunk whose id differs from the first one (some OpenAI-compatible
// servers change it mid-stream, and the final usage chunk of others carries
// none), because providers disagree on tool-call deltas in ways handled
// below, and because reasoning and provider extras ride in fields the SDK
// does not know.
type assembler struct {
	profile   *Profile
	text      strings.Builder
	reasoning strings.Builder
	extras    map[string]json.RawMessage
	calls     []*callBuf
	finish    string
	usage     Usage
	model     string
	// reasoningField is the field the reasoning first came in
	// (reasoning_content or reasoning), "" when none did.
	reasoningField string
}

type callBuf struct {
	index  int64
	id     string
	name   strings.Builder
	args   strings.Builder
	extras map[string]json.RawMessage
}

// sink receives the deltas of an answer as they arrive.
type sink struct {
	text      func(string)
	reasoning func(string)
}

// add folds one chunk in and reports each text and reasoning delta.
//
// Tool-call deltas are keyed by their index. Two quirks are tolerated: a
// provider that repeats the full name in every delta (the name is kept
// once), and one that sends every parallel call with the same index but its
// own id (a new id on a taken index starts a new call).
func (a *assembler) add(chunk *openai.ChatCompletionChunk, out sink) {
	if a.model == "" {
		a.model = chunk.Model
	}
	if chunk.JSON.Usage.Valid() {
		u := &chunk.Usage
		a.usage = Usage{
			PromptTokens:     int(u.PromptTokens),
			CachedTokens:     int(u.PromptTokensDetails.CachedTokens),
			CompletionTokens: int(u.CompletionTokens),
			ReasoningTokens:  int(u.CompletionTokensDetails.ReasoningTokens),
		}
	}
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		if ch.Index != 0 {
			continue // yagent never asks for n > 1
		}
		d := &ch.Delta
		a.addContent(d, out)
		if s := d.Refusal; s != "" {
			a.addText(s, out)
		}
		a.addReasoningFields(d.JSON.ExtraFields, out)
		for _, k := range a.keepMessage() {
			if f, ok := d.JSON.ExtraFields[k]; ok {
				a.extras = mergeExtra(a.extras, k, f)
			}
		}
		for j := range d.ToolCalls {
			a.addToolDelta(&d.ToolCalls[j])
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
}

func (a *assembler) keepMessage() []string {
	if a.profile == nil {
		return nil
	}
	return a.profile.KeepMessage
}

func (a *assembler) addText(s string, out sink) {
	a.text.WriteString(s)
	out.text(s)
}

func (a *assembler) addReasoning(s string, out sink) {
	if s == "" {
		return
	}
	a.reasoning.WriteString(s)
	out.reasoning(s)
}

// addContent reads delta.content: a string, or an array of typed parts as
// Magistral streams it ({"type":"thinking","thinking":[…]} and
// {"type":"text","text":…}). The SDK hands an array over as its raw JSON
// in Content; it is never printed as the answer.
func (a *assembler) addContent(d *openai.ChatCompletionChunkChoiceDelta, out sink) {
	raw := strings.TrimSpace(d.JSON.Content.Raw())
	if !strings.HasPrefix(raw, "[") {
		if d.Content != "" {
			a.addText(d.Content, out)
		}
		return
	}
	var parts []contentPart
	if json.Unmarshal([]byte(raw), &parts) != nil {
		return
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			a.addText(p.Text, out)
		case "thinking", "reasoning":
			a.addReasoning(p.thinkingText(), out)
		}
	}
}

// contentPart is one typed part of an array content.
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// thinkingText reads a thinking part: a string, or a list of text parts.
func (p contentPart) thinkingText() string {
	var s string
	if json.Unmarshal(p.Thinking, &s) == nil {
		return s + p.Text
	}
	var parts []contentPart
	if json.Unmarshal(p.Thinking, &parts) != nil {
		return p.Text
	}
	var b strings.Builder
	for _, q := range parts {
		b.WriteString(q.Text)
	}
	return b.String()
}

// addReasoningFields reads the reasoning fields providers add to a delta:
// reasoning_content (DeepSeek, Kimi, llama.cpp, older vLLM) or reasoning
// (OpenRouter, Groq, Ollama, newer vLLM, LM Studio). A server that sends
// both in one delta sends the same text twice; reasoning_content wins.
func (a *assembler) addReasoningFields(fields map[string]respjson.Field, out sink) {
	for _, k := range reasoningFields {
		f, ok := fields[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			a.addReasoning(s, out)
			if a.reasoningField == "" {
				a.reasoningField = k
			}
			return
		}
	}
}

func (a *assembler) addToolDelta(tc *openai.ChatCompletionChunkChoiceDeltaToolCall) {
	idx := max(tc.Index, 0) // some servers send -1 for a lone call
	var c *callBuf
	for k := len(a.calls) - 1; k >= 0; k-- {
		if a.calls[k].index == idx {
			c = a.calls[k]
			break
		}
	}
	if c == nil || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
		c = &callBuf{index: idx}
		a.calls = append(a.calls, c)
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if n := tc.Function.Name; n != "" && n != c.name.String() {
		c.name.WriteString(n)
	}
	c.args.WriteString(tc.Function.Arguments)
	if a.profile != nil {
		for _, k := range a.profile.KeepToolCall {
			if f, ok := tc.JSON.ExtraFields[k]; ok {
				c.extras = mergeExtra(c.extras, k, f)
			}
		}
	}
}

// mergeExtra folds one streamed piece of a kept field into what was kept
// so far: strings concatenate, arrays accumulate (pieces of one indexed
// entry are joined, as OpenRouter streams reasoning_details), anything else
// is replaced by the newest non-null value.
func mergeExtra(m map[string]json.RawMessage, key string, f respjson.Field) map[string]json.RawMessage {
	raw := json.RawMessage(strings.TrimSpace(f.Raw()))
	if len(raw) == 0 || string(raw) == "null" {
		return m
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	prev, ok := m[key]
	if !ok {
		m[key] = append(json.RawMessage(nil), raw...)
		return m
	}
	switch {
	case prev[0] == '"' && raw[0] == '"':
		var x, y string
		if json.Unmarshal(prev, &x) == nil && json.Unmarshal(raw, &y) == nil {
			m[key], _ = marshal(x + y)
		}
	case prev[0] == '[' && raw[0] == '[':
		m[key] = mergeDetails(prev, raw)
	default:
		m[key] = append(json.RawMessage(nil), raw...)
	}
	return m
}

// mergeDetails appends the entries of next to prev. An entry with the same
// "index" and "type" as the last one continues it: its text, summary and
// data strings are appended and its other fields are taken when set.
func mergeDetails(prev, next json.RawMessage) json.RawMessage {
	var have, more []map[string]json.RawMessage
	if json.Unmarshal(prev, &have) != nil || json.Unmarshal(next, &more) != nil {
		return append(json.RawMessage(nil), next...)
	}
	for _, e := range more {
		if n := len(have); n > 0 && sameEntry(have[n-1], e) {
			last := have[n-1]
			for k, v := range e {
				var x, y string
				if (k == "text" || k == "summary" || k == "data") && json.Unmarshal(last[k], &x) == nil && json.Unmarshal(v, &y) == nil {
					last[k], _ = marshal(x + y)
					continue
				}
				if string(v) != "null" {
					last[k] = v
				}
			}
			continue
		}
		have = append(have, e)
	}
	out, err := marshal(have)
	if err != nil {
		return append(json.RawMessage(nil), prev...)
	}
	return out
}

func sameEntry(a, b map[string]json.RawMessage) bool {
	ai, aok := a["index"]
	bi, bok := b["index"]
	return aok && bok && string(ai) == string(bi) && string(a["type"]) == string(b["type"])
}

// finished reports whether the stream delivered a finish reason: without
// one the answer was cut short, whatever the transport said.
func (a *assembler) finished() bool { return a.finish != "" }

// message returns the assistant message: tool calls in index order, and an
// id made up (call_<n>) for a call the server sent without one, so tool
// results can still refer to it.
func (a *assembler) message() Message {
	m := Message{Role: RoleAssistant, Content: a.text.String(), Reasoning: a.reasoning.String(), Extras: a.extras}
	slices.SortStableFunc(a.calls, func(x, y *callBuf) int { return cmp.Compare(x.index, y.index) })
	if len(a.calls) > 0 {
		m.ToolCalls = make([]ToolCall, len(a.calls))
	}
	for k, c := range a.calls {
		id := c.id
		if id == "" {
			id = "call_" + strconv.Itoa(k)
		}
		m.ToolCalls[k] = ToolCall{ID: id, Name: c.name.String(), Arguments: c.args.String(), Extras: c.extras}
	}
	return m
}
