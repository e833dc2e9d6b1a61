package memory

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/yagent/yagent/internal/prompt"
	"github.com/yagent/yagent/llm"
)

//go:embed prompts/*.md
var promptFS embed.FS

// ErrNothingToCompact means the history has nothing older than what a
// compaction keeps verbatim (the recent turns, or mid-turn the newest round).
var ErrNothingToCompact = errors.New("nothing to compact yet: the history is only the recent turns")

// Bounds of the summary call.
const (
	summaryMaxInputChars = 240_000 // transcript sent to the summary model, at most
	summaryMaxWords      = 600     // the summary's target length
	// summaryReserve is the part of the summary model's window kept for its
	// prompt and its answer; the transcript gets the rest, at three bytes a
	// token (safer than the measure's four: a transcript is dense).
	summaryReserve = 2*summaryMaxWords + 800
	taskMaxChars   = 8000 // the request a mid-turn compaction carries verbatim
)

// CompactOptions configure one compaction. Between turns and in the middle
// of a turn it is the same summariser over the same history; only where
// the cut falls differs.
type CompactOptions struct {
	Client llm.Client
	Model  string
	// Window is the summary model's context window in tokens
	// (models.<name>.context_window): the transcript is cut to fit it.
	// At least 1.
	Window int
	// KeepTurns is how many recent turns stay verbatim between turns
	// (context.keep_recent_turns); at least 1. Not used mid-turn.
	KeepTurns int
	// MidTurn compacts inside the running turn: the cut falls at the
	// earliest round boundary after which the messages kept whole fit
	// KeepTokens (HistoryTokens), keeping at least the newest round, and
	// never between an assistant message and its tool results. The request
	// the turn works on, when it is summarised, is kept verbatim next to
	// the summary (Memory.Task).
	MidTurn    bool
	KeepTokens int
}

// CompactResult says what a compaction did.
type CompactResult struct {
	Upto     int // global index: messages before it were replaced
	Replaced int // messages replaced
	Summary  string
	Usage    llm.Usage
	MidTurn  bool
}

// Compact summarises the history before the cut with one model call (no
// tools), records the summary in the rollout and replaces the messages in
// memory. If the call fails nothing changes: the history stays as it was.
func Compact(ctx context.Context, s *Session, o CompactOptions) (CompactResult, error) {
	if o.Window < 1 {
		return CompactResult{}, fmt.Errorf("compaction: a summary model window of %d tokens: want 1 or more (models.<name>.context_window)", o.Window)
	}
	if !o.MidTurn && o.KeepTurns < 1 {
		return CompactResult{}, fmt.Errorf("compaction: keep %d recent turns: want 1 or more (context.keep_recent_turns)", o.KeepTurns)
	}
	s.mu.Lock()
	prevSummary, prevTask, base, turnStart := s.mem.Summary, s.mem.Task, s.mem.Base, s.turnStart
	msgs := append([]llm.Message(nil), s.mem.Messages...)
	s.mu.Unlock()
	var cut int
	task := ""
	if o.MidTurn {
		cut = roundCut(msgs, o.KeepTokens)
		switch ts := turnStart - base; {
		case ts >= 0 && ts < cut:
			task = clip(msgs[ts].Content, taskMaxChars) // the turn's request goes into the summary
		case ts < 0:
			task = prevTask // an earlier compaction of this turn carried it
		}
	} else {
		cut = cutPoint(msgs, o.KeepTurns)
	}
	if cut <= 0 {
		return CompactResult{}, ErrNothingToCompact
	}
	system := prompt.Render(promptFS, "summary", map[string]string{"max_words": strconv.Itoa(summaryMaxWords)})
	if o.MidTurn {
		system += "\n\n" + prompt.Render(promptFS, "summary_turn", nil)
	}
	budget := min(max(o.Window-summaryReserve, 1000)*3, summaryMaxInputChars)
	transcript := renderTranscript(prevSummary, task, msgs[:cut], budget)
	resp, err := o.Client.Stream(ctx, llm.Request{Model: o.Model, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: transcript},
	}})
	if err != nil {
		return CompactResult{}, fmt.Errorf("compaction: the summary call failed, the history is unchanged: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.Content)
	if summary == "" {
		return CompactResult{}, errors.New("compaction: the summary model returned nothing; the history is unchanged")
	}
	res := CompactResult{Upto: base + cut, Replaced: cut, Summary: summary, Usage: resp.Usage, MidTurn: o.MidTurn}
	if err := s.Compacted(ctx, summary, task, res.Upto); err != nil {
		return CompactResult{}, err
	}
	if err := s.RecordUsage(ctx, "summary", resp.Usage); err != nil {
		return res, err
	}
	return res, nil
}

// cutPoint returns the index of the first message kept between turns: the
// start of the keep-th last turn (a turn starts at a user message; a
// leading partial turn, left by a mid-turn compaction, counts as one). 0
// means there is no earlier turn to summarise.
func cutPoint(msgs []llm.Message, keep int) int {
	var starts []int
	for i, m := range msgs {
		if m.Role == llm.RoleUser || i == 0 {
			starts = append(starts, i)
		}
	}
	if len(starts) < 2 {
		return 0
	}
	keep = min(keep, len(starts)-1) // at least one turn is summarised
	return starts[len(starts)-keep]
}

// roundCut returns the index of the first message kept by a mid-turn
// compaction: the earliest round boundary (a message that is not a tool
// result) after which the messages fit keepTokens, or the newest round's
// start when even that one alone does not fit. At least two messages go
// into the summary (summarising a lone request would only grow it); 0
// means there is nothing to compact.
func roundCut(msgs []llm.Message, keepTokens int) int {
	cut, newest, kept := 0, 0, 0
	for i := len(msgs) - 1; i >= 2; i-- {
		kept += HistoryTokens(msgs[i : i+1])
		if msgs[i].Role == llm.RoleTool {
			continue
		}
		if newest == 0 {
			newest = i
		}
		if kept <= keepTokens {
			cut = i
		}
	}
	if cut == 0 {
		cut = newest
	}
	return cut
}

// renderTranscript writes messages as plain text for the summary model,
// with long tool results cut, within max characters (the oldest part goes
// first when it does not fit).
func renderTranscript(prevSummary, task string, msgs []llm.Message, limit int) string {
	var parts []string
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			parts = append(parts, "USER: "+m.Content)
		case llm.RoleAssistant:
			var b strings.Builder
			b.WriteString("AGENT: " + m.Content)
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "\n  [called %s %s]", c.Name, clip(c.Arguments, 400))
			}
			parts = append(parts, b.String())
		case llm.RoleTool:
			parts = append(parts, "  [result] "+clip(m.Content, 1500))
		}
	}
	head := "Summarise this conversation so far.\n\n"
	if task != "" {
		head += "The request being worked on (it stays verbatim next to your summary):\n" + task + "\n\n"
	}
	if prevSummary != "" {
		head += "The summary of what came before it:\n" + prevSummary + "\n\nThe conversation since:\n"
	}
	body := strings.Join(parts, "\n\n")
	if room := max(limit-len(head), 1000); len(body) > room {
		cut := len(body) - room
		for cut < len(body) && body[cut]&0xC0 == 0x80 {
			cut++
		}
		body = "[… the oldest part is omitted …]\n" + body[cut:]
	}
	return head + body
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	for len(cut) > 0 && cut[len(cut)-1]&0xC0 == 0x80 {
		cut = cut[:len(cut)-1]
	}
	return cut + fmt.Sprintf(" …[%d more bytes]", len(s)-len(cut))
}
