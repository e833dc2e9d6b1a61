package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestNonStreamingAnswer(t *testing.T) {
	srv := serve(t, "steps:\n  - reply:\n      text: plain\n      tool_calls: [{id: c1, name: grep, arguments: {q: x}}]\n    usage: {prompt_tokens: 9}\n")
	oc := openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("k"), option.WithMaxRetries(0))
	res, err := oc.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	ch := res.Choices[0]
	if ch.Message.Content != "plain" || ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 ||
		ch.Message.ToolCalls[0].ID != "c1" || ch.Message.ToolCalls[0].Function.Arguments != `{"q":"x"}` {
		t.Errorf("completion = %s", res.RawJSON())
	}
	if res.Usage.PromptTokens != 9 || res.Usage.CompletionTokens == 0 {
		t.Errorf("usage = %s; want prompt 9 (set) and a computed completion", res.Usage.RawJSON())
	}
	if srv.Requests()[0].Stream {
		t.Error("recorded Stream = true for a non-streaming request")
	}
}

// TestStreamWireShape pins the SSE bytes against OpenAI's format: data lines,
// a role chunk first, tool calls with id and name in their first delta and
// arguments split over several, the finish reason, a usage chunk with empty
// choices, then [DONE].
func TestStreamWireShape(t *testing.T) {
	srv := serve(t, "steps:\n  - reply:\n      tool_calls: [{id: c1, name: grep, arguments: {pattern: 'a<b', path: .}}]\n")
	body := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
	res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	var datas []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		datas = append(datas, data)
	}
	strip := func(s string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return s
		}
		if m["object"] != "chat.completion.chunk" || m["id"] != "chatcmpl-llmtest-1" || m["model"] != "m" {
			t.Errorf("chunk header wrong: %s", s)
		}
		delete(m, "id")
		delete(m, "object")
		delete(m, "created")
		delete(m, "model")
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(m)
		return strings.TrimSpace(b.String())
	}
	var got []string
	for _, d := range datas {
		got = append(got, strip(d))
	}
	want := []string{
		`{"choices":[{"delta":{"content":"","role":"assistant"},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"","name":"grep"},"id":"c1","index":0,"type":"function"}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"patte"},"index":0}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"rn\":\"a<"},"index":0}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"b\",\"pat"},"index":0}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"h\":\".\"}"},"index":0}]},"finish_reason":null,"index":0}]}`,
		`{"choices":[{"delta":{},"finish_reason":"tool_calls","index":0}]}`,
		`{"choices":[],"usage":{"completion_tokens":8,"prompt_tokens":8,"prompt_tokens_details":{"cached_tokens":0},"total_tokens":16}}`,
		`[DONE]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SSE events (-want +got):\n%s", diff)
	}
}

func TestDefaultUsageCachedPrefix(t *testing.T) {
	srv := serve(t, "steps: [{repeat: true, reply: {text: ok}}]")
	c := client(t, srv)
	long := strings.Repeat("stable system prompt. ", 100)
	base := []llm.Message{{Role: llm.RoleSystem, Content: "[agent:director] " + long}}
	r1, err := c.Stream(t.Context(), llm.Request{Messages: append(base, user("first"))})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := c.Stream(t.Context(), llm.Request{Messages: append(base, user("first"), r1.Message, user("second"))})
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.Stream(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "[agent:explorer] " + long}, user("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Usage.CachedTokens != 0 {
		t.Errorf("first request cached %d; want 0", r1.Usage.CachedTokens)
	}
	if u := r2.Usage; u.CachedTokens < r1.Usage.PromptTokens-5 || u.CachedTokens >= u.PromptTokens {
		t.Errorf("second request usage %+v; want about the first request's %d prompt tokens cached", u, r1.Usage.PromptTokens)
	}
	if other.Usage.CachedTokens != 0 {
		t.Errorf("another agent's first request cached %d; want 0 (the cache is per agent)", other.Usage.CachedTokens)
	}
}

// TestDefaultUsagePromptFromBody: without a scripted usage, prompt_tokens
// is the request's tools and messages JSON bytes over four — what windows
// are tested against — and Recorded.PromptTokens says what was reported.
func TestDefaultUsagePromptFromBody(t *testing.T) {
	srv := serve(t, "steps: [{repeat: true, reply: {text: ok}}]")
	c := client(t, srv)
	for _, n := range []int{10, 4000} {
		resp, err := c.Stream(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "[agent:director] s"}, user(strings.Repeat("x", n))},
			Tools: []llm.ToolDef{{Name: "read_file", Description: "reads", Parameters: json.RawMessage(`{"type":"object"}`)}}})
		if err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		rec := reqs[len(reqs)-1]
		var body struct {
			Tools    json.RawMessage `json:"tools"`
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(rec.Body, &body); err != nil {
			t.Fatal(err)
		}
		want := (len(body.Tools) + len(body.Messages) + 3) / 4
		if resp.Usage.PromptTokens != want || rec.PromptTokens != want {
			t.Errorf("%d-byte message: reported %d, recorded %d prompt tokens; want %d (body bytes / 4)", n, resp.Usage.PromptTokens, rec.PromptTokens, want)
		}
	}
}

func TestEmbeddingsEndpoint(t *testing.T) {
	srv := serve(t, "steps: [{optional: true}]")
	oc := openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("k"))
	get := func(format openai.EmbeddingNewParamsEncodingFormat, dims int64) [][]float64 {
		p := openai.EmbeddingNewParams{Model: "e", Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"alpha beta", "gamma"}}, EncodingFormat: format}
		if dims > 0 {
			p.Dimensions = openai.Int(dims)
		}
		res, err := oc.Embeddings.New(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Model != "e" || res.Usage.PromptTokens == 0 {
			t.Errorf("response model %q usage %d", res.Model, res.Usage.PromptTokens)
		}
		var out [][]float64
		for _, d := range res.Data {
			out = append(out, d.Embedding)
		}
		return out
	}
	floats := get(openai.EmbeddingNewParamsEncodingFormatFloat, 0)
	if diff := cmp.Diff([][]float64{llmtest.HashEmbedding("alpha beta", 256), llmtest.HashEmbedding("gamma", 256)}, floats); diff != "" {
		t.Errorf("float vectors differ from HashEmbedding (-want +got):\n%s", diff)
	}
	b64 := get(openai.EmbeddingNewParamsEncodingFormatBase64, 0)
	for i := range floats {
		for j := range floats[i] {
			if d := floats[i][j] - b64[i][j]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("base64 vector %d differs at %d: %v vs %v", i, j, floats[i][j], b64[i][j])
			}
		}
	}
	if v := get(openai.EmbeddingNewParamsEncodingFormatFloat, 64); len(v[0]) != 64 {
		t.Errorf("dimensions 64 gave %d", len(v[0]))
	}
}

func TestModelsAndUnknownEndpoints(t *testing.T) {
	srv := serve(t, "steps: [{optional: true}]", llmtest.WithModels("a", "b"))
	res, err := http.Get(srv.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Contains(body, []byte(`{"id":"a","object":"model","created":0,"owned_by":"llmtest"}`)) || !bytes.Contains(body, []byte(`"id":"b"`)) {
		t.Errorf("GET /v1/models = %s", body)
	}
	res, err = http.Post(srv.URL()+"/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 404 || !bytes.Contains(body, []byte("llmtest: no endpoint POST /v1/completions")) {
		t.Errorf("POST /v1/completions = %d %s; want an OpenAI-shaped 404", res.StatusCode, body)
	}
}
