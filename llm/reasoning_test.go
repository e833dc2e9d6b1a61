package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/llm"
)

// TestReasoningSentBackPerProvider pins, over the real request body the
// openai-go client sends, which assistant messages carry their reasoning
// back to each provider and under which field. DeepSeek and Moonshot
// refuse an assistant message without reasoning_content once thinking is
// on ("thinking is enabled but reasoning_content is missing in assistant
// tool call message"), so they get it on every assistant message, empty
// when there was none; the others get it only where there was reasoning,
// or never. The table is written out here, not read from the profiles: a
// profile that changes its mind turns this red.
func TestReasoningSentBackPerProvider(t *testing.T) {
	// per provider: the reasoning field of the two assistant messages of
	// the history (without reasoning, then with), "-" when absent.
	type sent struct{ field, without, with string }
	none := sent{"", "-", "-"}
	want := map[string]sent{
		llm.ProviderDeepSeek: {"reasoning_content", "", "I should look."},
		llm.ProviderMoonshot: {"reasoning_content", "", "I should look."},
		llm.ProviderLlamaCpp: {"reasoning_content", "-", "I should look."},
		llm.ProviderOllama:   {"reasoning", "-", "I should look."},
		llm.ProviderOpenAI:   none, llm.ProviderAzure: none, llm.ProviderOpenRouter: none,
		llm.ProviderGemini: none, llm.ProviderMistral: none, llm.ProviderGroq: none,
		llm.ProviderAnthropicCompat: none, llm.ProviderVLLM: none, llm.ProviderLMStudio: none,
		llm.ProviderGeneric: none,
	}
	history := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a helpful assistant."},
		{Role: llm.RoleUser, Content: "What is in the notes?"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "list", Arguments: `{}`}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Content: "a.md"},
		{Role: llm.RoleAssistant, Reasoning: "I should look.", ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "read", Arguments: `{"name":"a.md"}`}}},
		{Role: llm.RoleTool, ToolCallID: "call_2", Content: "hello"},
	}
	for _, name := range llm.ProviderNames() {
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("provider %s: no row in this test's table; say which assistant messages carry reasoning back", name)
			}
			srv := inlineServer(t, "steps: [{reply: {text: 'It says hello.'}}]")
			c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.Provider = name })
			if _, err := c.Stream(t.Context(), llm.Request{Messages: history}); err != nil {
				t.Fatal(err)
			}
			var body struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range body.Messages {
				if string(m["role"]) != `"assistant"` {
					continue
				}
				fields := []string{"reasoning_content", "reasoning"}
				v := "-"
				for _, f := range fields {
					raw, ok := m[f]
					if !ok {
						continue
					}
					if f != w.field {
						t.Errorf("an assistant message carries %s; want %q only", f, w.field)
					}
					var s string
					if err := json.Unmarshal(raw, &s); err != nil {
						t.Fatalf("%s = %s: %v", f, raw, err)
					}
					v = s
				}
				got = append(got, v)
			}
			if diff := cmp.Diff([]string{w.without, w.with}, got); diff != "" {
				t.Errorf("reasoning sent back on the assistant messages (without reasoning, with) (-want +got):\n%s", diff)
			}
		})
	}
}
