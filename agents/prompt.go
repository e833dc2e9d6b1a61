package agents

import (
	"strings"

	"github.com/yagent/yagent/llm"
)

// TailHeader starts the transient tail: the one message appended after the
// history of every request (state, window line, board index). It is rebuilt
// before every call and never stored, and any message starting with it is
// stripped from a history before a request is built, so injecting twice is
// idempotent.
const TailHeader = "[yagent:transient] Current state, rebuilt for this call only; it is not part of the conversation."

// ComposeTail joins the non-empty parts under TailHeader; it returns "" when
// every part is empty (no tail message at all).
func ComposeTail(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(TailHeader)
		}
		b.WriteString("\n\n")
		b.WriteString(p)
	}
	return b.String()
}

// IsTail reports whether m is a transient tail.
func IsTail(m llm.Message) bool {
	return m.Role != llm.RoleAssistant && m.Role != llm.RoleTool && strings.HasPrefix(m.Content, TailHeader)
}

// StripTail returns msgs without transient tails. It does not copy when
// there is nothing to strip (the usual case).
func StripTail(msgs []llm.Message) []llm.Message {
	n := 0
	for _, m := range msgs {
		if IsTail(m) {
			n++
		}
	}
	if n == 0 {
		return msgs
	}
	out := make([]llm.Message, 0, len(msgs)-n)
	for _, m := range msgs {
		if !IsTail(m) {
			out = append(out, m)
		}
	}
	return out
}

// buildRequest assembles one request in cache order: the stable prefix
// (system prompt; tool declarations travel alongside, in a fixed order),
// the history, then the transient tail.
func buildRequest(a *Agent, defs []llm.ToolDef, history []llm.Message, tail string, tailRole llm.Role) llm.Request {
	history = StripTail(history)
	msgs := make([]llm.Message, 0, len(history)+2)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: a.System})
	msgs = append(msgs, history...)
	if tail != "" {
		// Marked transient: the model client places it where the
		// provider accepts it (never stored, never in the cache prefix).
		msgs = append(msgs, llm.Message{Role: tailRole, Content: tail, Transient: true})
	}
	return llm.Request{Model: a.Model, Messages: msgs, Tools: defs}
}
