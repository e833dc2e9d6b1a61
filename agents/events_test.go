package agents

import (
	"encoding/json"
	"testing"

	"github.com/yagent/yagent/llm"
)

// TestUsageEventJSON pins the usage of the --json stream (README "Run
// JSON"): llm.Usage is embedded, its fields keep the stream's names and
// sit between requests and elapsed_ms, and a usage read back keeps every
// field (a JSON method on llm.Usage would be promoted and drop requests
// and elapsed_ms).
func TestUsageEventJSON(t *testing.T) {
	u := UsageEvent{Requests: 2, Usage: llm.Usage{PromptTokens: 1200, CachedTokens: 800, CompletionTokens: 90, ReasoningTokens: 40}, ElapsedMS: 1500}
	data, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"requests":2,"prompt_tokens":1200,"cached_tokens":800,"completion_tokens":90,"reasoning_tokens":40,"elapsed_ms":1500}`
	if string(data) != want {
		t.Errorf("json.Marshal(%+v) = %s; want %s", u, data, want)
	}
	var back UsageEvent
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back != u {
		t.Errorf("json.Unmarshal(%s) = %+v; want %+v", data, back, u)
	}
	var sum UsageEvent
	sum.Add(u)
	sum.Add(UsageEvent{Requests: 1, Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}, ElapsedMS: 7})
	if want := (UsageEvent{Requests: 3, Usage: llm.Usage{PromptTokens: 1300, CachedTokens: 800, CompletionTokens: 100, ReasoningTokens: 40}}); sum != want {
		t.Errorf("Add = %+v; want %+v (elapsed is not summed)", sum, want)
	}
	// 400×2 + 800×0.5 + 90×8 per million.
	if got, want := u.Cost(2, 0.5, 8), 0.00192; got < want-1e-12 || got > want+1e-12 {
		t.Errorf("Cost = %v; want %v", got, want)
	}
}
