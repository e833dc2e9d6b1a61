package memory

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

// writeRollout writes a rollout of n message events (a mix of user,
// assistant-with-call and tool-result messages) with a compaction halfway.
func writeRollout(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "rollout.jsonl")
	w, err := CreateRollout(path, event.SessionEvent{ID: "bench", Kind: KindRun, BoardID: "bench"}, time.Now)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		var m llm.Message
		switch i % 3 {
		case 0:
			m = llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("question %d about the repository layout", i)}
		case 1:
			m = llm.Message{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("c", i), Name: "read_file", Arguments: `{"path":"go.mod"}`}}}
		default:
			m = llm.Message{Role: llm.RoleTool, ToolCallID: fmt.Sprint("c", i-1), Content: "module example.com/demo\n\ngo 1.26\n"}
		}
		if err := w.Write(event.Event{Type: event.Message, Message: &m}, false); err != nil {
			b.Fatal(err)
		}
		if i == n/2 {
			w.Write(event.Event{Type: event.Compacted, Compaction: &event.CompactionEvent{Summary: "the first half", Upto: i}}, false)
		}
	}
	w.Close()
	return path
}

// BenchmarkResumeRollout100k loads and rebuilds a 100 000-item rollout,
// which is what /resume does.
func BenchmarkResumeRollout100k(b *testing.B) {
	path := writeRollout(b, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		r, err := LoadRollout(path)
		if err != nil {
			b.Fatal(err)
		}
		mem, _ := Rebuild(r.Items)
		if mem.Total() != 100_000 {
			b.Fatal(mem.Total())
		}
	}
}

// BenchmarkRolloutAppend measures appending one message item (no sync; the
// loop syncs at turn boundaries), and with a sync per item.
func BenchmarkRolloutAppend(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("sync=%v", sync), func(b *testing.B) {
			w, err := CreateRollout(filepath.Join(b.TempDir(), "r.jsonl"), event.SessionEvent{ID: "b"}, time.Now)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			m := llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "module example.com/demo\n\ngo 1.26\n"}
			b.ReportAllocs()
			for b.Loop() {
				if err := w.Write(event.Event{Type: event.Message, Message: &m}, sync); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
