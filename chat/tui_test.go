package chat

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
)

// TestTranscriptLastTurns: a resumed session shows its last turns and says
// how many earlier ones /history would show.
func TestTranscriptLastTurns(t *testing.T) {
	var h []llm.Message
	for i := 1; i <= 7; i++ {
		h = append(h, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("question %d", i)},
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "read_file"}}},
			llm.Message{Role: llm.RoleTool, Content: "file body"},
			llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("answer %d", i)})
	}
	var b bytes.Buffer
	WriteTranscript(&b, h, TranscriptTurns)
	got := b.String()
	if !strings.HasPrefix(got, "… 2 earlier turns (/history shows them)\n› question 3\n  ▸ read_file\nanswer 3\n") || strings.Contains(got, "question 2") || strings.Contains(got, "file body") {
		t.Errorf("the last turns =\n%s", got)
	}
	b.Reset()
	WriteTranscript(&b, h, 0)
	if !strings.Contains(b.String(), "question 1") || strings.Contains(b.String(), "earlier turns") {
		t.Errorf("/history =\n%s", b.String())
	}
}
