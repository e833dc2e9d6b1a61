package llm

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

// chunks decodes stream chunks written as JSON, as the SDK would.
func chunks(t *testing.T, raws ...string) []openai.ChatCompletionChunk {
	t.Helper()
	out := make([]openai.ChatCompletionChunk, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal([]byte(raw), &out[i]); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
	}
	return out
}

func assemble(t *testing.T, raws ...string) (*assembler, []string) {
	t.Helper()
	var a assembler
	var texts []string
	for _, c := range chunks(t, raws...) {
		a.add(&c, sink{text: func(s string) { texts = append(texts, s) }, reasoning: func(string) {}})
	}
	return &a, texts
}

// TestAssemblerProviderQuirks pins the tool-call shapes of servers that are
// not OpenAI: a changing chunk id (the accumulator trap), a name repeated in
// every delta, every call on index 0 with its own id, no ids at all, and a
// lone call on index -1.
func TestAssemblerProviderQuirks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   []ToolCall
	}{
		{
			name: "chunk id changes mid-stream",
			chunks: []string{
				`{"id":"a","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"grep","arguments":"{\"p\":"}}]}}]}`,
				`{"id":"b","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: []ToolCall{{ID: "c1", Name: "grep", Arguments: `{"p":1}`}},
		},
		{
			name: "name repeated in every delta",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"grep","arguments":"{"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"grep","arguments":"}"}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: []ToolCall{{ID: "c1", Name: "grep", Arguments: `{}`}},
		},
		{
			name: "parallel calls all on index 0 with their own ids",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"a","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c2","function":{"name":"b","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: []ToolCall{{ID: "c1", Name: "a", Arguments: "{}"}, {ID: "c2", Name: "b", Arguments: "{}"}},
		},
		{
			name: "no ids, indices out of order",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"b","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"a","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: []ToolCall{{ID: "call_0", Name: "a", Arguments: "{}"}, {ID: "call_1", Name: "b", Arguments: "{}"}},
		},
		{
			name: "lone call on index -1",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":-1,"id":"c1","function":{"name":"a","arguments":"{"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":-1,"function":{"arguments":"}"}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: []ToolCall{{ID: "c1", Name: "a", Arguments: "{}"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := assemble(t, tc.chunks...)
			if !a.finished() {
				t.Error("finished() = false; want true")
			}
			if diff := cmp.Diff(tc.want, a.message().ToolCalls); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssemblerTextUsageAndCut(t *testing.T) {
	a, texts := assemble(t,
		`{"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Hel"}},{"index":1,"delta":{"content":"other choice"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"lo"}}],"usage":null}`,
	)
	if a.finished() {
		t.Error("finished() = true without a finish_reason; a cut stream must be detected")
	}
	if diff := cmp.Diff([]string{"Hel", "lo"}, texts); diff != "" {
		t.Errorf("text deltas (-want +got):\n%s", diff)
	}
	a2, _ := assemble(t,
		`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":8}}}`,
	)
	if want := (Usage{PromptTokens: 10, CachedTokens: 8, CompletionTokens: 2}); a2.usage != want {
		t.Errorf("usage = %+v; want %+v", a2.usage, want)
	}
	if a.model != "m1" || a.message().Content != "Hello" {
		t.Errorf("model %q content %q", a.model, a.message().Content)
	}
}
