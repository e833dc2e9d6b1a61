// Package printer writes a run's events where a command shows them: the
// --json stream (JSON), the plain lines of run, resume and chat without a
// terminal UI (Human), and a batch's progress and table (Batch,
// BatchTable). Each line of an event is agents/eventline's; a printer only
// places and styles it (the TUI, package tui, draws the same lines).
package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/agents/eventline"
	"github.com/yagent/yagent/internal/termsafe"
)

// JSON writes one JSON event per line (the --json stream). The
// first event it cannot write (stdout closed, a full disk) is reported on
// errOut, once: the run goes on, its outcome is in the exit code.
//
// A turn_started event also names the session (`session`), so a script
// that ran `yagent run --json` can resume it.
type JSON struct {
	mu      sync.Mutex
	enc     *json.Encoder
	errOut  io.Writer
	failed  bool
	session string
	// total sums the usage events of every agent, for the result.
	total agents.UsageEvent
}

// NewJSON returns a JSON printer writing to w, its warning to errOut.
func NewJSON(w, errOut io.Writer) *JSON {
	return &JSON{enc: json.NewEncoder(w), errOut: errOut}
}

// SetSession names the session in the turn_started events from now on.
func (p *JSON) SetSession(id string) {
	p.mu.Lock()
	p.session = id
	p.mu.Unlock()
}

// Emit writes e as one line of JSON.
func (p *JSON) Emit(e agents.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Type == agents.EventUsage && e.Usage != nil {
		p.total.Add(*e.Usage)
	}
	var v any = e
	if e.Type == agents.EventTurnStarted && p.session != "" {
		v = struct {
			agents.Event
			Session string `json:"session"`
		}{e, p.session}
	}
	if err := p.enc.Encode(v); err != nil && !p.failed {
		p.failed = true
		fmt.Fprintf(p.errOut, "yagent: warning: the JSON event stream is broken from here on: %v\n", err)
	}
}

// Result ends the stream with a result event: r with, unless r has them,
// the tokens of every usage event seen; its cost is spent, what the
// budget ledger was charged for the run (nil: not known), unless that is
// nothing and the usage priced a cost of its own (absent when no model
// of the run has a price).
func (p *JSON) Result(now time.Time, r agents.ResultEvent, spent *float64) {
	p.mu.Lock()
	if r.Usage == nil {
		total := p.total
		r.Usage = &total
	}
	p.mu.Unlock()
	u := *r.Usage
	switch {
	case spent != nil && *spent > 0:
		r.CostUSD = spent
	case u.CostUSD != nil:
		r.CostUSD = u.CostUSD
	}
	u.CostUSD = nil // the result's own cost_usd says it
	r.Usage = &u
	p.Emit(agents.Event{Type: agents.EventResult, Time: now, Agent: "yagent", Result: &r})
}

// Human streams the lead's text to out and progress (tool calls,
// delegations, retries, usage) to errOut, so `yagent run … > answer.md`
// captures only the answer.
//
// Everything it shows a person is rendered for the terminal first
// (termsafe): progress lines, notices, narration, reasoning, and the
// answer when out is a terminal; into a file or a pipe the answer is kept
// as the model wrote it (it is the output, like --json).
//
// A retry voids the text its request printed. On a terminal the retry is
// shown where the void text stands; into a file or a pipe (Buffered)
// the lead's text of a model call is held until the call succeeds, so a
// retried call leaves no partial answer behind. Held text is the answer
// only if the call asked for no tool: the text of a call that goes on
// with tool calls is narration ("I'll split this in two…") and goes to
// errOut, so a redirected stdout holds the final answer alone.
type Human struct {
	// HoldAnswers writes the turns' answers to errOut like narration:
	// the caller prints the one it keeps (run --output-schema prints the
	// answer that matched, app.Answer).
	HoldAnswers bool
	// Buffered holds each model call's text until the call succeeds
	// (out is not a terminal). Set before the first event.
	Buffered bool
	// Reasoning shows the model's reasoning, dimmed, on errOut
	// (interactive sessions on a terminal, -v). Set before the first event.
	Reasoning bool
	// Verbose shows under a tool's result what it changed (-v): a write's
	// or an edit's diff, a command's first and last lines of output, as
	// the TUI does, collapsed past eventline.DetailLines lines.
	Verbose bool

	mu      sync.Mutex
	out     io.Writer
	errOut  io.Writer
	midline bool // the last byte written to out was not a newline
	pending strings.Builder
	// done is the text of the lead's last successful call, until the next
	// event says whether it was narration (a tool call follows) or the
	// answer (the turn finishes).
	done        string
	inReasoning bool
	// textSafe and reasonSafe render the streamed text and reasoning.
	textSafe, reasonSafe termsafe.Stream
	view                 eventline.View
	total                agents.UsageEvent
	byAgent              map[string]*agents.UsageEvent
	order                []string
}

// NewHuman returns a printer of the answer to out and of the progress to
// errOut.
func NewHuman(out, errOut io.Writer) *Human {
	return &Human{out: out, errOut: errOut, byAgent: map[string]*agents.UsageEvent{}}
}

// Emit prints e: the lead's text streamed (or held), every other line on
// errOut.
func (p *Human) Emit(e agents.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Type {
	case agents.EventTextDelta:
		if e.Depth != 0 {
			return
		}
		p.endReasoning()
		if p.Buffered && p.done != "" && p.pending.Len() == 0 {
			// Another call's text after a call that ended without tools:
			// a Stop hook sent the lead on, so that text was narration.
			p.narrate()
		}
		if p.Buffered {
			p.pending.WriteString(e.Text)
			return
		}
		p.writeText(p.textSafe.Next(e.Text))
		return
	case agents.EventReasoningDelta:
		if e.Depth != 0 || !p.Reasoning {
			return
		}
		if !p.inReasoning {
			p.endText()
			io.WriteString(p.errOut, dim)
			p.inReasoning = true
		}
		io.WriteString(p.errOut, p.reasonSafe.Next(e.Text))
		return
	case agents.EventToolCall:
		if e.Depth == 0 && p.done != "" {
			p.narrate()
		}
	case agents.EventRetry:
		if e.Depth == 0 {
			p.pending.Reset() // the retried call's text is void
		}
	case agents.EventUsage:
		if e.Depth == 0 {
			p.flush() // the call succeeded: its text is narration or the answer
		}
		u := p.byAgent[e.Agent]
		if u == nil {
			u = &agents.UsageEvent{}
			p.byAgent[e.Agent] = u
			p.order = append(p.order, e.Agent)
		}
		u.Add(*e.Usage)
		p.total.Add(*e.Usage)
	case agents.EventTurnFinished:
		if e.Depth == 0 {
			p.answer()
		}
		if e.Depth == 0 && e.Usage != nil {
			p.total.ElapsedMS = e.Usage.ElapsedMS
		}
	}
	if p.Verbose {
		p.view.Details = eventline.DetailLines
	}
	for _, l := range p.view.Lines(e, eventline.Options{TextShown: p.midline}) {
		p.line(l.Text)
	}
}

// dim and undim are the ANSI faint attribute and its reset.
const dim, undim = "\x1b[2m", "\x1b[0m"

// line prints a line of eventline (rendered for the terminal already) on
// errOut, first ending the lead's text line (or its reasoning) if it is
// open.
func (p *Human) line(s string) {
	p.endReasoning()
	p.endText()
	io.WriteString(p.errOut, s+"\n")
}

// writeText writes the lead's text, rendered, to the terminal out.
func (p *Human) writeText(s string) {
	if s == "" {
		return
	}
	io.WriteString(p.out, s)
	p.midline = !strings.HasSuffix(s, "\n")
}

func (p *Human) endText() {
	p.writeText(p.textSafe.End())
	if p.midline {
		io.WriteString(p.out, "\n")
		p.midline = false
	}
}

func (p *Human) endReasoning() {
	if p.inReasoning {
		io.WriteString(p.errOut, p.reasonSafe.End()+undim+"\n")
		p.inReasoning = false
	}
}

// flush keeps the text held for a model call that succeeded until the
// next event says what it was (narrate or answer).
func (p *Human) flush() {
	if p.pending.Len() == 0 {
		return
	}
	p.done += p.pending.String()
	p.pending.Reset()
}

// narrate writes the done call's text to errOut: tool calls followed it.
func (p *Human) narrate() {
	text := termsafe.Text(p.done)
	p.done = ""
	p.endText()
	io.WriteString(p.errOut, text)
	if !strings.HasSuffix(text, "\n") {
		io.WriteString(p.errOut, "\n")
	}
}

// answer writes the done call's text to out: it ended the turn.
func (p *Human) answer() {
	if p.done == "" {
		return
	}
	if p.HoldAnswers {
		p.narrate()
		return
	}
	text := p.done
	p.done = ""
	io.WriteString(p.out, text)
	p.midline = !strings.HasSuffix(text, "\n")
}

// Finish ends the text and prints the turn's usage line, broken down by
// agent (none when the turn made no request).
func (p *Human) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending.Reset() // text of a call that never succeeded is no answer
	p.answer()
	p.endReasoning()
	p.endText()
	t := p.total
	completion := fmt.Sprintf("completion %d", t.CompletionTokens)
	if t.ReasoningTokens > 0 {
		completion = fmt.Sprintf("completion %d (reasoning %d)", t.CompletionTokens, t.ReasoningTokens)
	}
	line := fmt.Sprintf("── %s · prompt %d (cached %d) · %s · %.2fs", agents.Count(t.Requests, "request", "requests"), t.PromptTokens, t.CachedTokens, completion, float64(t.ElapsedMS)/1000)
	if t.CostUSD != nil {
		// At the price of each request's model: the ledger's figure.
		line += fmt.Sprintf(" · $%.4f", *t.CostUSD)
	}
	if len(p.order) > 1 {
		var parts []string
		for _, a := range p.order {
			u := p.byAgent[a]
			parts = append(parts, fmt.Sprintf("%s %d", a, u.PromptTokens+u.CompletionTokens))
		}
		line += " · tokens by agent: " + strings.Join(parts, ", ")
	}
	// Each line is its own turn's: the next turn (a chat's, a goal loop's)
	// counts from nothing, and a turn that made no request says nothing.
	p.total, p.byAgent, p.order = agents.UsageEvent{}, map[string]*agents.UsageEvent{}, nil
	if t.Requests == 0 {
		return
	}
	fmt.Fprintln(p.errOut, line)
}
