package agents

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// BenchmarkTurnOverhead runs a 21-round-trip turn (20 tool calls, then an
// answer) against the scripted server in-process. BenchmarkTurnBaseline
// makes the same 21 requests with the bare client and no loop; the
// difference per round trip is the runtime's own overhead (request
// building, tool dispatch, events, recording).
func BenchmarkTurnOverhead(b *testing.B) {
	sc, err := llmtest.Load(filepath.Join("..", "testdata", "scenarios", "bench-20-calls.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	w, err := OpenWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := writeTestFile(w, "go.mod", "module example.com/bench\n\ngo 1.26\n"); err != nil {
		b.Fatal(err)
	}
	tools := FSTools(w, ShellPolicy{})
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		srv := llmtest.New(sc)
		client, _ := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "bench", Timeout: 10 * time.Second})
		loop := &Loop{Client: client, Events: Discard, Append: func(llm.Message) error { return nil }}
		a := &Agent{Name: "lead", System: "[agent:lead] bench", Tools: tools, MaxSteps: 50}
		b.StartTimer()
		out, err := loop.Run(b.Context(), a, nil, llm.Message{Role: llm.RoleUser, Content: "go"})
		b.StopTimer()
		if err != nil || out.Steps != 21 {
			b.Fatal(out.Steps, err)
		}
		srv.Close()
		b.StartTimer()
	}
}

func BenchmarkTurnBaseline(b *testing.B) {
	sc, err := llmtest.Load(filepath.Join("..", "testdata", "scenarios", "bench-20-calls.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	tools := Defs(FSTools(nil, ShellPolicy{}))
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "[agent:lead] bench"}, {Role: llm.RoleUser, Content: "go"}}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		srv := llmtest.New(sc)
		client, _ := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "bench", Timeout: 10 * time.Second})
		b.StartTimer()
		for range 21 {
			if _, err := client.Stream(b.Context(), llm.Request{Messages: msgs, Tools: tools}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		srv.Close()
		b.StartTimer()
	}
}
