package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGuessProvider(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://api.openai.com/v1", ProviderOpenAI},
		{"https://my-res.openai.azure.com/openai/deployments/gpt4o", ProviderAzure},
		{"https://my-res.cognitiveservices.azure.com/openai/v1", ProviderAzure},
		{"https://openrouter.ai/api/v1", ProviderOpenRouter},
		{"https://api.deepseek.com", ProviderDeepSeek},
		{"https://api.moonshot.ai/v1", ProviderMoonshot},
		{"https://api.moonshot.cn/v1", ProviderMoonshot},
		{"https://generativelanguage.googleapis.com/v1beta/openai/", ProviderGemini},
		{"https://api.mistral.ai/v1", ProviderMistral},
		{"https://api.groq.com/openai/v1", ProviderGroq},
		{"https://api.anthropic.com/v1/", ProviderAnthropicCompat},
		{"http://localhost:11434/v1", ProviderOllama},
		{"http://127.0.0.1:1234/v1", ProviderLMStudio},
		{"http://gpu-box:8080/v1", ProviderLlamaCpp},
		{"http://gpu-box:8000/v1", ProviderVLLM},
		{"https://llm.example.com/v1", ProviderGeneric},
		{"https://notapi.openai.com.evil.example/v1", ProviderGeneric},
		{"https://notapi.openai.com/v1", ProviderGeneric},
		{"https://openai.azure.com/v1", ProviderGeneric},
		{"::not a url", ProviderGeneric},
	} {
		if got := GuessProvider(tc.url); got != tc.want {
			t.Errorf("GuessProvider(%q) = %q; want %q", tc.url, got, tc.want)
		}
	}
}

// TestProfileTable pins that every provider has exactly one row, a max
// tokens field and the evidence it rests on.
func TestProfileTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range profiles {
		if seen[p.Name] {
			t.Errorf("provider %s has two rows", p.Name)
		}
		seen[p.Name] = true
		if p.MaxTokensField == "" || p.Evidence == "" {
			t.Errorf("provider %s: MaxTokensField %q, Evidence %q; want both", p.Name, p.MaxTokensField, p.Evidence)
		}
	}
	if _, err := LookupProfile("claude"); err == nil || !strings.Contains(err.Error(), "want one of openai, azure") {
		t.Errorf("LookupProfile(claude) err = %v; want the list of providers", err)
	}
}

// TestShapeGeminiSchema pins the schema Gemini takes: no additionalProperties
// at any depth, type lists reduced to their non-null type, and every other
// key in its original order (the prompt cache needs stable bytes).
func TestShapeGeminiSchema(t *testing.T) {
	in := `{"type":"object","additionalProperties":false,"properties":{"z":{"type":["null","array"],"items":{"type":"object","additionalProperties":{"type":"string"},"properties":{"k":{"type":"string"}}}},"a":{"type":["string","null"]},"n":{"type":["null"]}},"required":["z","a"]}`
	want := `{"type":"object","properties":{"z":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}}},"a":{"type":"string"},"n":{"type":["null"]}},"required":["z","a"]}`
	n, err := parseJSONNode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	shapeGeminiSchema(n)
	if got := string(n.bytes()); got != want {
		t.Errorf("shaped schema\n got %s\nwant %s", got, want)
	}
	if _, err := parseJSONNode([]byte(`{"a":1} {}`)); err == nil {
		t.Error("parseJSONNode accepted trailing data")
	}
}

func TestPlaceTail(t *testing.T) {
	tail := Message{Role: RoleUser, Content: "[yagent:transient] state", Transient: true}
	tool := Message{Role: RoleTool, ToolCallID: "c1", Content: "result"}
	msgs := []Message{{Role: RoleSystem, Content: "s"}, {Role: RoleUser, Content: "q"}, {Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1"}}}, tool, tail}
	own, err := placeTail(msgs, TailOwnMessage)
	if err != nil || len(own) != 5 || !own[4].Transient {
		t.Errorf("TailOwnMessage = %+v, %v; want the messages as given", own, err)
	}
	merged, err := placeTail(msgs, TailMergeIntoLast)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != 4 || merged[3].Role != RoleTool || merged[3].Content != "result\n\n[yagent:transient] state" {
		t.Errorf("TailMergeIntoLast = %+v; want the tail appended to the tool result", merged)
	}
	if msgs[3].Content != "result" {
		t.Errorf("placeTail modified its input: %q", msgs[3].Content)
	}
	if _, err := placeTail([]Message{tail, tool}, TailOwnMessage); err == nil {
		t.Error("a transient message before the end was accepted")
	}
}

func TestNotAnAnswer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resp      Response
		want      string
		retryable bool
	}{
		{"answer", Response{FinishReason: "stop", Message: Message{Content: "hi"}}, "", false},
		{"length with text is an answer", Response{FinishReason: "length", Message: Message{Content: "partial"}}, "", false},
		{"length with a call is an answer", Response{FinishReason: "length", Message: Message{ToolCalls: []ToolCall{{ID: "c"}}}}, "", false},
		{"error", Response{FinishReason: "error"}, `finish_reason "error"`, true},
		{"content filter", Response{FinishReason: "content_filter", Message: Message{Content: "I"}}, "content filter", false},
		{"length spent on reasoning", Response{FinishReason: "length", Message: Message{Reasoning: "hmm"}}, "on reasoning, before any text", false},
	} {
		err := notAnAnswer(tc.resp)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: err = %v; want none", tc.name, err)
			}
			continue
		}
		var r *retryableError
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want it to say %q", tc.name, err, tc.want)
		} else if isRetryable := asRetryable(err, &r); isRetryable != tc.retryable {
			t.Errorf("%s: retryable = %v; want %v", tc.name, isRetryable, tc.retryable)
		}
	}
}

func asRetryable(err error, r **retryableError) bool {
	e, ok := err.(*retryableError)
	*r = e
	return ok
}

// TestMergeDetails pins how OpenRouter's streamed reasoning_details pieces
// become the entries sent back: pieces of one index and type are one entry.
func TestMergeDetails(t *testing.T) {
	got := mergeDetails(
		json.RawMessage(`[{"type":"reasoning.text","text":"a","index":0,"format":"f"}]`),
		json.RawMessage(`[{"type":"reasoning.text","text":"b","index":0,"signature":null},{"type":"reasoning.encrypted","data":"x","index":1}]`))
	var v, w any
	_ = json.Unmarshal(got, &v)
	_ = json.Unmarshal([]byte(`[{"format":"f","index":0,"text":"ab","type":"reasoning.text"},{"data":"x","index":1,"type":"reasoning.encrypted"}]`), &w)
	if diff := cmp.Diff(w, v); diff != "" {
		t.Errorf("mergeDetails (-want +got):\n%s", diff)
	}
}
