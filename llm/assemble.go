package llm

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
)

// assembler builds one answer from stream chunks. It is written here rather
// than with openai.ChatCompletionAccumulator because the accumulator rejects
// a chunk whose id differs from the first one (some OpenAI-compatible
// servers change it mid-stream, and the final usage chunk of others carries
// none), and because providers disagree on tool-call deltas in ways handled
// below.
type assembler struct {
	text   strings.Builder
	calls  []*callBuf
	finish string
	usage  Usage
	model  string
}

type callBuf struct {
	index int64
	id    string
	name  strings.Builder
	args  strings.Builder
}

// add folds one chunk in and reports each text delta through text.
//
// Tool-call deltas are keyed by their index. Two quirks are tolerated: a
// provider that repeats the full name in every delta (the name is kept
// once), and one that sends every parallel call with the same index but its
// own id (a new id on a taken index starts a new call).
func (a *assembler) add(chunk *openai.ChatCompletionChunk, text func(string)) {
	if a.model == "" {
		a.model = chunk.Model
	}
	if chunk.JSON.Usage.Valid() {
		u := &chunk.Usage
		a.usage = Usage{
			PromptTokens:       int(u.PromptTokens),
			CachedPromptTokens: int(u.PromptTokensDetails.CachedTokens),
			CompletionTokens:   int(u.CompletionTokens),
		}
	}
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		if ch.Index != 0 {
			continue // yagent never asks for n > 1
		}
		d := &ch.Delta
		for _, s := range [...]string{d.Content, d.Refusal} {
			if s != "" {
				a.text.WriteString(s)
				text(s)
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
}

// finished reports whether the stream delivered a finish reason: without
// one the answer was cut short, whatever the transport said.
func (a *assembler) finished() bool { return a.finish != "" }

// message returns the assistant message: tool calls in index order, and an
// id made up (call_<n>) for a call the server sent without one, so tool
// results can still refer to it.
func (a *assembler) message() Message {
	m := Message{Role: RoleAssistant, Content: a.text.String()}
	slices.SortStableFunc(a.calls, func(x, y *callBuf) int { return cmp.Compare(x.index, y.index) })
	if len(a.calls) > 0 {
		m.ToolCalls = make([]ToolCall, len(a.calls))
	}
	for k, c := range a.calls {
		id := c.id
		if id == "" {
			id = "call_" + strconv.Itoa(k)
		}
		m.ToolCalls[k] = ToolCall{ID: id, Name: c.name.String(), Arguments: c.args.String()}
	}
	return m
}
