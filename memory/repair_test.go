package memory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
)

// validHistory says why msgs would be refused by a provider: a tool result
// that does not answer a call of the assistant message right before its
// block, a call without a result, a second result, an empty answer.
func validHistory(msgs []llm.Message) error {
	var open []string // calls of the last assistant message not yet answered
	inBlock := false
	for i, m := range msgs {
		if m.Role == llm.RoleTool {
			if !inBlock {
				return fmt.Errorf("message %d: tool result %q follows no call", i, m.ToolCallID)
			}
			k := -1
			for j, id := range open {
				if id == m.ToolCallID {
					k = j
				}
			}
			if k < 0 {
				return fmt.Errorf("message %d: tool result %q answers no open call (open: %v)", i, m.ToolCallID, open)
			}
			open = append(open[:k], open[k+1:]...)
			continue
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d: calls %v left without a result", i, open)
		}
		inBlock = false
		if m.Role == llm.RoleAssistant {
			if m.Content == "" && len(m.ToolCalls) == 0 {
				return fmt.Errorf("message %d: empty answer", i)
			}
			for _, c := range m.ToolCalls {
				open = append(open, c.ID)
			}
			inBlock = len(open) > 0
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("end: calls %v left without a result", open)
	}
	return nil
}

func calls(ids ...string) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "read_file", Arguments: "{}"})
	}
	return m
}

func result(id, text string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: text}
}

// TestHistoryRepairsEveryInvalidShape: whatever a damaged rollout or two
// interleaved writers left, the history sent is valid, and Check says
// what was repaired.
func TestHistoryRepairsEveryInvalidShape(t *testing.T) {
	tests := []struct {
		name string
		msgs []llm.Message
		want string // contents of the repaired history, joined by |
		rep  Repairs
	}{
		{"valid", []llm.Message{user("q"), calls("a"), result("a", "ra"), assistant("done")},
			"q||ra|done", Repairs{}},
		{"orphan after a compaction cut", []llm.Message{result("a", "ra"), result("b", "rb"), user("q"), assistant("x")},
			"q|x", Repairs{Orphans: 2}},
		{"orphan in a block", []llm.Message{user("q"), calls("a"), result("z", "rz"), result("a", "ra"), assistant("x")},
			"q||ra|x", Repairs{Orphans: 1}},
		{"second result", []llm.Message{user("q"), calls("a"), result("a", "r1"), result("a", "r2"), assistant("x")},
			"q||r1|x", Repairs{Duplicates: 1}},
		{"result after the next user message", []llm.Message{user("q"), calls("a"), user("q2"), result("a", "ra"), assistant("x")},
			"q||ra|q2|x", Repairs{Moved: 1}},
		{"two writers interleaved", []llm.Message{user("q1"), user("q2"), calls("a"), calls("b"), result("a", "ra"), result("b", "rb"), assistant("x1"), assistant("x2")},
			"q1|q2||ra||rb|x1|x2", Repairs{Moved: 1}},
		{"ids reused across turns", []llm.Message{user("q1"), calls("call_1"), user("q2"), calls("call_1"), result("call_1", "second"), assistant("x")},
			"q1||" + interruptedResult + "|q2||second|x", Repairs{Missing: 1}},
		{"empty answer", []llm.Message{user("q"), {Role: llm.RoleAssistant, Reasoning: "hm"}, user("again"), assistant("x")},
			"q|again|x", Repairs{Empty: 1}},
		{"missing result", []llm.Message{user("q"), calls("a", "b"), result("b", "rb")},
			"q||rb|" + interruptedResult, Repairs{Missing: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Memory{Messages: tt.msgs}
			h := m.History(nil)
			if err := validHistory(h); err != nil {
				t.Errorf("history invalid: %v", err)
			}
			var got []string
			for _, msg := range h {
				got = append(got, msg.Content)
			}
			if g := strings.Join(got, "|"); g != tt.want {
				t.Errorf("history = %q; want %q", g, tt.want)
			}
			if rep := m.Check(); rep != tt.rep {
				t.Errorf("Check = %+v (%s); want %+v", rep, rep, tt.rep)
			}
		})
	}
}

// TestResumeReportsRepairs: a resumed session whose rollout needs repairs
// says so in its warnings.
func TestResumeReportsRepairs(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	for _, m := range []llm.Message{user("q"), calls("a"), user("q2"), result("a", "ra"), result("a", "again"), assistant("x")} {
		if err := s.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	r, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := validHistory(r.History()); err != nil {
		t.Error(err)
	}
	w := strings.Join(r.Warnings, "\n")
	if !strings.Contains(w, "the history is repaired before it is sent: 1 second result of a call dropped, 1 tool result moved up to its call") {
		t.Errorf("warnings = %q", w)
	}
}

// FuzzHistoryRepair: any sequence of messages comes out as a valid history
// that keeps every user message.
func FuzzHistoryRepair(f *testing.F) {
	f.Add([]byte("uacTtA"), []byte("aab"))
	f.Add([]byte("TuacuTTeA"), []byte("abcab"))
	f.Fuzz(func(t *testing.T, shape, ids []byte) {
		if len(shape) > 64 {
			return
		}
		id := func(i int) string {
			if len(ids) == 0 {
				return "x"
			}
			return string('a' + ids[i%len(ids)]%4)
		}
		var msgs []llm.Message
		users := 0
		for i, c := range shape {
			switch c % 5 {
			case 0:
				msgs = append(msgs, user("u"))
				users++
			case 1:
				msgs = append(msgs, calls(id(i), id(i+1)))
			case 2:
				msgs = append(msgs, result(id(i), "r"))
			case 3:
				msgs = append(msgs, assistant("a"))
			case 4:
				msgs = append(msgs, llm.Message{Role: llm.RoleAssistant})
			}
		}
		h := (&Memory{Messages: msgs}).History(nil)
		if err := validHistory(h); err != nil {
			t.Fatalf("repair(%v) is invalid: %v", msgs, err)
		}
		n := 0
		for _, m := range h {
			if m.Role == llm.RoleUser {
				n++
			}
		}
		if n != users {
			t.Errorf("%d user messages in, %d out", users, n)
		}
	})
}
