package chat

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
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
	WriteTranscript(&b, h[4:], TranscriptTurns) // six turns: one earlier
	if !strings.HasPrefix(b.String(), "… 1 earlier turn (/history shows them)\n") {
		t.Errorf("one earlier turn =\n%s", b.String())
	}
	b.Reset()
	WriteTranscript(&b, h, 0)
	if !strings.Contains(b.String(), "question 1") || strings.Contains(b.String(), "earlier turns") {
		t.Errorf("/history =\n%s", b.String())
	}
}

// TestResumedTranscriptAfterRewind: on resume, the TUI's transcript (and
// /history) shows the turns still in the conversation, never a rewound
// one.
func TestResumedTranscriptAfterRewind(t *testing.T) {
	ctx := t.Context()
	home := t.TempDir()
	db, err := memory.OpenDB(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := memory.NewStore(db, home)
	s, err := st.Create(ctx, memory.CreateOptions{Kind: memory.KindInteractive, Cwd: home, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"first", "second", "third"} {
		n, err := s.BeginTurn(ctx, q)
		if err == nil {
			err = s.Append(llm.Message{Role: llm.RoleUser, Content: q + " question"})
		}
		if err == nil {
			err = s.Append(llm.Message{Role: llm.RoleAssistant, Content: q + " answer"})
		}
		if err == nil {
			err = s.EndTurn(ctx, n, "done")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Rewind(ctx, 2); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := st.Resume(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	WriteTranscript(&b, r.History(), TranscriptTurns)
	if got := b.String(); got != "› first question\nfirst answer\n" {
		t.Errorf("the resumed transcript =\n%q; want turn 1 alone", got)
	}
}
