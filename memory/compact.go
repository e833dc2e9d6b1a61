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

// ErrNothingToCompact means the history has no whole turn before the ones
// kept verbatim.
var ErrNothingToCompact = errors.New("nothing to compact yet: the history is only the recent turns")

// Bounds of the summary call.
const (
	summaryMaxInputChars = 240_000 // transcript sent to the summary model
	summaryMaxWords      = 600     // the summary's target length
)

// CompactOptions configure one compaction.
type CompactOptions struct {
	Client llm.Client
	Model  string
	// KeepTurns is how many recent turns stay verbatim
	// (context.keep_recent_turns); at least 1.
	KeepTurns int
}

// CompactResult says what a compaction did.
type CompactResult struct {
	Upto     int // global index: messages before it were replaced
	Replaced int // messages replaced
	Summary  string
	Usage    llm.Usage
}

// Compact summarises the history before the kept turns with one model call
// (no tools), records the summary in the rollout and replaces the messages
// in memory. If the call fails nothing changes: the history stays as it was.
func Compact(ctx context.Context, s *Session, o CompactOptions) (CompactResult, error) {
	if o.KeepTurns < 1 {
		return CompactResult{}, fmt.Errorf("compaction: keep %d recent turns: want 1 or more (context.keep_recent_turns)", o.KeepTurns)
	}
	s.mu.Lock()
	prevSummary, base := s.mem.Summary, s.mem.Base
	msgs := append([]llm.Message(nil), s.mem.Messages...)
	s.mu.Unlock()
	cut := cutPoint(msgs, o.KeepTurns)
	if cut <= 0 {
		return CompactResult{}, ErrNothingToCompact
	}
	transcript := renderTranscript(prevSummary, msgs[:cut], summaryMaxInputChars)
	system := prompt.Render(promptFS, "summary", map[string]string{"max_words": strconv.Itoa(summaryMaxWords)})
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
	res := CompactResult{Upto: base + cut, Replaced: cut, Summary: summary, Usage: resp.Usage}
	if err := s.Compacted(ctx, summary, res.Upto); err != nil {
		return CompactResult{}, err
	}
	if err := s.RecordUsage(ctx, "summary", resp.Usage); err != nil {
		return res, err
	}
	return res, nil
}

// cutPoint returns the index of the first message kept: the start of the
// keep-th last turn (a turn starts at a user message). 0 means there is no
// earlier turn to summarise.
func cutPoint(msgs []llm.Message, keep int) int {
	var starts []int
	for i, m := range msgs {
		if m.Role == llm.RoleUser {
			starts = append(starts, i)
		}
	}
	if len(starts) < 2 {
		return 0
	}
	keep = min(keep, len(starts)-1) // at least one turn is summarised
	return starts[len(starts)-keep]
}

// renderTranscript writes messages as plain text for the summary model,
// with long tool results cut, within max characters (the oldest part goes
// first when it does not fit).
func renderTranscript(prevSummary string, msgs []llm.Message, max int) string {
	var parts []string
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			parts = append(parts, "PERSON: "+m.Content)
		case llm.RoleAssistant:
			var b strings.Builder
			b.WriteString("DIRECTOR: " + m.Content)
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "\n  [called %s %s]", c.Name, clip(c.Arguments, 400))
			}
			parts = append(parts, b.String())
		case llm.RoleTool:
			parts = append(parts, "  [result] "+clip(m.Content, 1500))
		}
	}
	body := strings.Join(parts, "\n\n")
	if len(body) > max {
		body = "[… the oldest part is omitted …]\n" + body[len(body)-max:]
	}
	head := "Summarise this conversation so far.\n\n"
	if prevSummary != "" {
		head += "The summary of what came before it:\n" + prevSummary + "\n\nThe conversation since:\n"
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
