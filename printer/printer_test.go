package printer

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm"
)

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestNonFatalErrorsAreShown pins the warnings that replace dropped
// errors: a --json stream that cannot be written is reported once on
// stderr, and the command goes on (a prompt history that cannot be saved:
// internal/lineedit's TestHistoryFile).
func TestNonFatalErrorsAreShown(t *testing.T) {
	var errOut bytes.Buffer
	p := NewJSON(brokenWriter{}, &errOut)
	p.Emit(agents.Event{Type: agents.EventNotice, Text: "one"})
	p.Emit(agents.Event{Type: agents.EventNotice, Text: "two"})
	if got := errOut.String(); strings.Count(got, "warning: the JSON event stream is broken from here on: broken pipe") != 1 {
		t.Errorf("json printer on a broken stream wrote %q; want one warning", got)
	}

}

// TestHumanPrinterRetryVoidsText pins what a retry after printed text
// leaves: into a file or a pipe, only the text of the call that succeeded;
// on a terminal, the void text stays and the retry line says so.
func TestHumanPrinterRetryVoidsText(t *testing.T) {
	events := []agents.Event{
		{Type: agents.EventTextDelta, Text: "The partial "},
		{Type: agents.EventTextDelta, Text: "ans"},
		{Type: agents.EventRetry, Text: "retrying (2/4) in 500ms", Error: "stream ended before the answer finished"},
		{Type: agents.EventTextDelta, Text: "The whole answer."},
		{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1, Usage: llm.Usage{CompletionTokens: 9, ReasoningTokens: 4}}},
	}
	for _, tc := range []struct {
		name       string
		buffered   bool
		wantOut    string
		wantErrOut string
	}{
		{"file", true, "The whole answer.\n", "↻ retrying (2/4) in 500ms: stream ended before the answer finished\n"},
		{"terminal", false, "The partial ans\nThe whole answer.\n", "the text above is void, the answer follows again"},
	} {
		var out, errOut bytes.Buffer
		p := NewHuman(&out, &errOut)
		p.Buffered = tc.buffered
		for _, e := range events {
			p.Emit(e)
		}
		p.Finish()
		if out.String() != tc.wantOut {
			t.Errorf("%s: stdout = %q; want %q", tc.name, out.String(), tc.wantOut)
		}
		if !strings.Contains(errOut.String(), tc.wantErrOut) {
			t.Errorf("%s: stderr = %q; want it to contain %q", tc.name, errOut.String(), tc.wantErrOut)
		}
		if !strings.Contains(errOut.String(), "completion 9 (reasoning 4)") {
			t.Errorf("%s: usage line %q lacks the reasoning tokens", tc.name, errOut.String())
		}
	}
}

// TestHumanPrinterReasoning pins reasoning on the human printer: never on
// stdout; dimmed on stderr when shown (interactive sessions), and nowhere
// otherwise.
func TestHumanPrinterReasoning(t *testing.T) {
	for _, show := range []bool{true, false} {
		var out, errOut bytes.Buffer
		p := NewHuman(&out, &errOut)
		p.Reasoning = show
		p.Emit(agents.Event{Type: agents.EventReasoningDelta, Text: "let me think"})
		p.Emit(agents.Event{Type: agents.EventTextDelta, Text: "Answer."})
		p.Finish()
		if out.String() != "Answer.\n" {
			t.Errorf("show=%v: stdout = %q; want the answer only", show, out.String())
		}
		shown := strings.Contains(errOut.String(), dim+"let me think"+undim)
		if shown != show {
			t.Errorf("show=%v: stderr = %q", show, errOut.String())
		}
	}
}

// TestHumanPrinterNarration pins what a redirected stdout holds: the
// answer alone. The lead's text before its tool calls is narration and goes
// to stderr, and so is the text of an answer a Stop hook sent the lead on
// from; on a terminal the text streams as it comes.
func TestHumanPrinterNarration(t *testing.T) {
	events := []agents.Event{
		{Type: agents.EventTextDelta, Text: "I'll ask an explorer."},
		{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1}},
		{Type: agents.EventToolCall, Tool: &agents.ToolEvent{Name: "delegate"}},
		{Type: agents.EventTextDelta, Depth: 1, Agent: "explorer", Text: "sub-agent text"},
		{Type: agents.EventToolCall, Depth: 1, Agent: "explorer", Tool: &agents.ToolEvent{Name: "read_file"}},
		{Type: agents.EventTextDelta, Text: "The answer."},
		{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1}},
		{Type: agents.EventTurnFinished, Reason: "answer"},
	}
	for _, tc := range []struct {
		name       string
		buffered   bool
		wantOut    string
		wantErrOut string
	}{
		{"file", true, "The answer.\n", "I'll ask an explorer.\n"},
		{"terminal", false, "I'll ask an explorer.\nThe answer.\n", "▸ explorer: read_file"},
		{"forced by a Stop hook, file", true, "The answer.\n", "Done.\n"},
		{"forced by a Stop hook, terminal", false, "Done.\nThe answer.\n", "a Stop hook keeps the turn going"},
	} {
		var out, errOut bytes.Buffer
		p := NewHuman(&out, &errOut)
		p.Buffered = tc.buffered
		events := events
		if strings.HasPrefix(tc.name, "forced") {
			// A Stop hook sends the lead on after an answer: no tool call
			// between the two calls' text.
			events = []agents.Event{
				{Type: agents.EventTextDelta, Text: "Done."},
				{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1}},
				{Type: agents.EventNotice, Text: "a Stop hook keeps the turn going: run the tests"},
				{Type: agents.EventTextDelta, Text: "The answer."},
				{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1}},
				{Type: agents.EventTurnFinished, Reason: "answer"},
			}
		}
		for _, e := range events {
			p.Emit(e)
		}
		p.Finish()
		if out.String() != tc.wantOut {
			t.Errorf("%s: stdout = %q; want %q", tc.name, out.String(), tc.wantOut)
		}
		if !strings.Contains(errOut.String(), tc.wantErrOut) {
			t.Errorf("%s: stderr = %q; want it to contain %q", tc.name, errOut.String(), tc.wantErrOut)
		}
	}
}

// TestPrinterShowsControls pins what reaches a person's terminal from the
// plain printer and the batch printer: tool lines, results, notices,
// errors, narration, reasoning and — on a terminal — the answer show their
// control characters (␛, ␍) and bidi overrides (\u202e), with an emoji
// family split between two deltas kept whole; into a file the answer is
// the model's text as it is (it is the output). Before, every one of them
// reached the terminal as bytes.
func TestPrinterShowsControls(t *testing.T) {
	const esc = "\x1b[2K\r"
	events := []agents.Event{
		{Type: agents.EventReasoningDelta, Text: "think" + esc},
		{Type: agents.EventTextDelta, Text: "narrate" + esc},
		{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1}},
		{Type: agents.EventToolCall, Tool: &agents.ToolEvent{Name: "shell", Args: []byte(`{"command":"rm -rf ~ #\r\u001b[2Kls"}`)}},
		{Type: agents.EventToolResult, Tool: &agents.ToolEvent{Name: "shell", Summary: "ok\r\x1b[31mfine\u202e"}},
		{Type: agents.EventNotice, Text: "notice" + esc},
		{Type: agents.EventError, Error: "error" + esc},
		{Type: agents.EventDelegationStarted, Delegation: &agents.DelegationEvent{Agent: "worker", Task: "task" + esc}},
		{Type: agents.EventTextDelta, Text: "answer 👨\u200d"},
		{Type: agents.EventTextDelta, Text: "👩" + esc},
		{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1}},
		{Type: agents.EventTurnFinished, Reason: "answer"},
	}
	for _, buffered := range []bool{false, true} {
		var out, errOut bytes.Buffer
		p := NewHuman(&out, &errOut)
		p.Buffered, p.Reasoning = buffered, true
		for _, e := range events {
			p.Emit(e)
		}
		p.Finish()
		stderr := strings.ReplaceAll(strings.ReplaceAll(errOut.String(), dim, ""), undim, "")
		if strings.ContainsAny(stderr, "\x1b\r\u202e") {
			t.Errorf("buffered=%v: stderr has control characters: %q", buffered, errOut.String())
		}
		for _, want := range []string{"think␛[2K␍", "command=rm -rf ~ #␍␛[2Kls", "ok␍␛[31mfine\\u202e", "notice␛[2K␍", "error␛[2K␍", "task␛[2K␍"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("buffered=%v: stderr lacks %q:\n%s", buffered, want, stderr)
			}
		}
		// On a terminal the narration streams to stdout too; into a file
		// it goes to stderr, and the answer is the text as written.
		want := "narrate␛[2K␍\nanswer 👨\u200d👩␛[2K␍\n"
		if buffered {
			want = "answer 👨\u200d👩" + esc + "\n"
			if !strings.Contains(stderr, "narrate␛[2K␍") {
				t.Errorf("stderr lacks the narration, rendered:\n%s", stderr)
			}
		}
		if out.String() != want {
			t.Errorf("buffered=%v: stdout = %q; want %q", buffered, out.String(), want)
		}
	}

	var errOut bytes.Buffer
	p := NewBatch(&errOut, false)
	p.Emit(agents.Event{Type: agents.EventDelegationStarted, Delegation: &agents.DelegationEvent{ID: "d1", Agent: "worker", Task: "task" + esc}})
	p.Emit(agents.Event{Type: agents.EventDelegationSkipped, Delegation: &agents.DelegationEvent{ID: "d2", Status: "skipped", Reason: "why" + esc}})
	p.Emit(agents.Event{Type: agents.EventNotice, Text: "notice" + esc})
	if got := errOut.String(); strings.ContainsAny(got, "\x1b\r") || !strings.Contains(got, "why␛[2K␍") || !strings.Contains(got, "notice␛[2K␍") {
		t.Errorf("batch printer: %q", got)
	}
}

// TestHumanUsageLinePerTurn: each turn's usage line counts that turn alone
// (a chat's second turn does not repeat the first's requests), and a turn
// that made no request — one that failed before any — prints none.
func TestHumanUsageLinePerTurn(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewHuman(&out, &errOut)
	p.Emit(agents.Event{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 3, Usage: llm.Usage{PromptTokens: 300}}})
	p.Finish()
	p.Emit(agents.Event{Type: agents.EventUsage, Usage: &agents.UsageEvent{Requests: 1, Usage: llm.Usage{PromptTokens: 10}}})
	p.Finish()
	p.Finish() // a turn that failed before its first request
	var lines []string
	for _, l := range strings.Split(errOut.String(), "\n") {
		if strings.HasPrefix(l, "── ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "── 3 requests · prompt 300 ") || !strings.HasPrefix(lines[1], "── 1 request · prompt 10 ") {
		t.Errorf("usage lines = %q; want one per turn with requests, each its own", lines)
	}
}
