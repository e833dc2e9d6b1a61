package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func serve(t testing.TB, yaml string, opts ...llmtest.Option) *llmtest.Server {
	t.Helper()
	sc, err := llmtest.Parse([]byte(yaml), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, append([]llmtest.Option{llmtest.WithLogf(t.Logf)}, opts...)...)
	t.Cleanup(srv.Close)
	return srv
}

func client(t testing.TB, srv *llmtest.Server) *llm.OpenAIClient {
	t.Helper()
	c, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func msgs(agent string, rest ...llm.Message) []llm.Message {
	return append([]llm.Message{{Role: llm.RoleSystem, Content: "[agent:" + agent + "] system prompt"}}, rest...)
}

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

// fakeTB records failures so AssertDone itself can be tested.
type fakeTB struct {
	testing.TB
	errs []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func TestFirstNotExhaustedStepInFileOrder(t *testing.T) {
	srv := serve(t, `
name: order
steps:
  - id: one
    reply: {text: first}
  - id: two
    reply: {text: second}
  - id: spare
    optional: true
    match: {contains: never-sent}
    reply: {text: spare}
`)
	c := client(t, srv)
	for _, want := range []string{"first", "second"} {
		resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("director", user("hi"))})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Message.Content != want {
			t.Errorf("answer = %q; want %q", resp.Message.Content, want)
		}
	}
	_, err := c.Stream(t.Context(), llm.Request{Messages: msgs("director", user("one more"))})
	want := `llmtest: no step matches request #3 (agent=director, last message: "one more")`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("third request: err = %v; want it to carry %q", err, want)
	}
	var ft fakeTB
	srv.AssertDone(&ft)
	wantFail := "llmtest: scenario order not done\n\tunmatched " + want[len("llmtest: no step matches "):]
	if diff := cmp.Diff([]string{wantFail}, ft.errs); diff != "" {
		t.Errorf("AssertDone failures (-want +got):\n%s", diff)
	}
	if got := srv.Pending(); len(got) != 0 {
		t.Errorf("Pending = %v; want none (spare is optional)", got)
	}
	reqs := srv.Requests()
	if reqs[0].StepID != "one" || reqs[1].StepID != "two" || !reqs[2].Unmatched || reqs[2].Status != 400 {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestAssertDoneListsPendingSteps(t *testing.T) {
	srv := serve(t, "name: p\nsteps:\n  - {id: a, reply: {text: x}}\n  - {times: 2, reply: {text: y}}\n  - {repeat: true, reply: {text: z}}\n")
	if _, err := client(t, srv).Stream(t.Context(), llm.Request{Messages: msgs("d", user("x"))}); err != nil {
		t.Fatal(err)
	}
	var ft fakeTB
	srv.AssertDone(&ft)
	if diff := cmp.Diff([]string{"llmtest: scenario p not done\n\tpending steps: steps[1]"}, ft.errs); diff != "" {
		t.Errorf("AssertDone (-want +got):\n%s", diff)
	}
}

func TestMatchers(t *testing.T) {
	srv := serve(t, `
steps:
  - {id: agent, repeat: true, match: {agent: explorer}, reply: {text: agent}}
  - {id: last-role, repeat: true, match: {last_role: tool}, reply: {text: last-role}}
  - {id: has-tool, repeat: true, match: {has_tool: grep}, reply: {text: has-tool}}
  - {id: last-contains, repeat: true, match: {last_contains: "needle"}, reply: {text: last-contains}}
  - {id: contains, repeat: true, match: {contains: "deep", not_contains: "veto"}, reply: {text: contains}}
  - {id: gated, repeat: true, match: {after: opener}, reply: {text: gated}}
  - {id: opener, reply: {text: opener}}
  - {id: fallback, repeat: true, reply: {text: fallback}}
`)
	c := client(t, srv)
	toolTurn := []llm.Message{user("x"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "grep", Arguments: `{"q":"deep"}`}}}, {Role: llm.RoleTool, ToolCallID: "c", Content: "r"}}
	for _, tc := range []struct {
		name  string
		req   llm.Request
		want  string
		after string
	}{
		{"agent marker", llm.Request{Messages: msgs("explorer", user("x"))}, "agent", ""},
		{"last role", llm.Request{Messages: msgs("director", toolTurn...)}, "last-role", ""},
		{"declared tool", llm.Request{Messages: msgs("director", user("x")), Tools: []llm.ToolDef{{Name: "grep"}}}, "has-tool", ""},
		{"last message", llm.Request{Messages: msgs("director", user("a needle"))}, "last-contains", ""},
		{"any message", llm.Request{Messages: msgs("director", user("deep"), user("x"))}, "contains", ""},
		{"vetoed by not_contains", llm.Request{Messages: msgs("director", user("deep veto"))}, "opener", ""},
		{"after", llm.Request{Messages: msgs("director", user("x"))}, "gated", ""},
	} {
		resp, err := c.Stream(t.Context(), tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if resp.Message.Content != tc.want {
			t.Errorf("%s: answered by %q; want %q", tc.name, resp.Message.Content, tc.want)
		}
	}
	if got := srv.Requests()[0].Agent; got != "explorer" {
		t.Errorf("recorded agent = %q; want explorer", got)
	}
}

func TestCaptureSubstitution(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "capture.yaml"))
	c := client(t, srv)
	history := msgs("director", user("map the llm package"))
	first, err := c.Stream(t.Context(), llm.Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, first.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_delegate", Content: "status: ok\nref: explorer/old-note"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_delegate", Content: "ref: explorer/superseded\nstatus: ok\nref: explorer/2025-01-02_map-llm"})
	second, err := c.Stream(t.Context(), llm.Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Reading explorer/2025-01-02_map-llm."; second.Message.Content != want {
		t.Errorf("text = %q; want %q (the latest match wins)", second.Message.Content, want)
	}
	wantArgs := `{"ref":"explorer/2025-01-02_map-llm","quoted":"say \"explorer/2025-01-02_map-llm\""}`
	if got := second.Message.ToolCalls[0].Arguments; got != wantArgs {
		t.Errorf("arguments = %s; want %s", got, wantArgs)
	}
	history = append(history, second.Message, llm.Message{Role: llm.RoleTool, ToolCallID: "call_read", Content: "note body"})
	third, err := c.Stream(t.Context(), llm.Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Done with explorer/2025-01-02_map-llm."; third.Message.Content != want {
		t.Errorf("text = %q; want %q (captures last the whole scenario)", third.Message.Content, want)
	}
	srv.AssertDone(t)
}

func TestConcurrentRequestsOnRepeatStep(t *testing.T) {
	srv := serve(t, "steps:\n  - repeat: true\n    reply:\n      text: pong\n      tool_calls: [{name: echo, arguments: {n: 1}}]\n")
	c := client(t, srv)
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs(fmt.Sprintf("a%d", i%5), user(fmt.Sprint("ping ", i)))})
			switch {
			case err != nil:
				errs <- err
			case resp.Message.Content != "pong" || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Arguments != `{"n":1}`:
				errs <- fmt.Errorf("request %d: answer %+v", i, resp.Message)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	reqs := srv.Requests()
	if len(reqs) != n {
		t.Fatalf("recorded %d requests; want %d", len(reqs), n)
	}
	seen := map[int]bool{}
	for _, r := range reqs {
		seen[r.N] = true
		if r.StepID != "steps[0]" || r.Unmatched {
			t.Errorf("request %d: step %q unmatched %v", r.N, r.StepID, r.Unmatched)
		}
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			t.Errorf("request number %d missing", i)
		}
	}
	srv.AssertDone(t)
}

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
	if r1.Usage.CachedPromptTokens != 0 {
		t.Errorf("first request cached %d; want 0", r1.Usage.CachedPromptTokens)
	}
	if u := r2.Usage; u.CachedPromptTokens < r1.Usage.PromptTokens-5 || u.CachedPromptTokens >= u.PromptTokens {
		t.Errorf("second request usage %+v; want about the first request's %d prompt tokens cached", u, r1.Usage.PromptTokens)
	}
	if other.Usage.CachedPromptTokens != 0 {
		t.Errorf("another agent's first request cached %d; want 0 (the cache is per agent)", other.Usage.CachedPromptTokens)
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

func TestReplayLabel(t *testing.T) {
	sc, err := llmtest.Load(filepath.Join("..", "..", "testdata", "scenarios", "basic-text.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, llmtest.WithReplay(true))
	defer srv.Close()
	want := "replay of " + sc.Path + " (scripted model, not a live LLM)"
	if !srv.Replay() || srv.Label() != want {
		t.Errorf("Replay() = %v, Label() = %q; want true, %q", srv.Replay(), srv.Label(), want)
	}
}

func TestCloseCutsDelaysShort(t *testing.T) {
	sc, err := llmtest.Parse([]byte("steps: [{latency: 30s, reply: {text: late}}]"), "slow")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc)
	done := make(chan error, 1)
	go func() {
		_, err := client(t, srv).Stream(t.Context(), llm.Request{Messages: msgs("d", user("x"))})
		done <- err
	}()
	for len(srv.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	srv.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v; want pending delays cut short", took)
	}
	if err := <-done; err == nil {
		t.Error("request in flight during Close succeeded; want an error")
	}
	srv.Close() // idempotent
}

func TestStartRejectsInvalidScenario(t *testing.T) {
	_, err := llmtest.Start(&llmtest.Scenario{Name: "bad", Steps: []llmtest.Step{{Fault: &llmtest.Fault{Kind: "boom"}}}})
	if err == nil || !strings.Contains(err.Error(), `steps[0].fault.kind: unknown fault kind "boom"`) {
		t.Errorf("Start: err = %v; want the validation problem", err)
	}
}

// TestSlowAnswerDeliveredCountsAsServed pins that a slow start the client
// waits out is an answer: the step is used up, not served twice.
func TestSlowAnswerDeliveredCountsAsServed(t *testing.T) {
	srv := serve(t, "steps: [{id: slow, fault: {kind: slow_first_byte, delay: 50ms}, reply: {text: late}}]")
	c := client(t, srv)
	resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("x"))})
	if err != nil || resp.Message.Content != "late" {
		t.Fatalf("Stream = %+v, %v; want the late answer", resp.Message, err)
	}
	if p := srv.Pending(); len(p) != 0 {
		t.Errorf("Pending = %v; want none", p)
	}
	if _, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("again"))}); err == nil {
		t.Error("second request answered; want it unmatched (the step served once already)")
	}
}

// TestFaultsFireThenStepAnswers pins that a fault spoils only its first
// Times requests and does not use up the step: "429 then success" is one
// step, and a cut stream is recorded as such.
func TestFaultsFireThenStepAnswers(t *testing.T) {
	srv := serve(t, `
steps:
  - id: flaky
    match: {contains: flaky}
    fault: {kind: status, status: 503, times: 2, retry_after: 2s}
    reply: {text: recovered}
  - id: cut
    match: {contains: cut}
    fault: {kind: cut_stream, after_bytes: 10}
    reply: {text: whole}
`)
	c := client(t, srv) // MaxRetries -1: every attempt is visible
	for i := range 2 {
		_, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("flaky"))})
		if err == nil || !strings.Contains(err.Error(), "503") {
			t.Fatalf("request %d: err = %v; want the 503 fault", i+1, err)
		}
	}
	resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("flaky"))})
	if err != nil || resp.Message.Content != "recovered" {
		t.Fatalf("third request = %+v, %v; want the answer", resp.Message, err)
	}
	if _, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("cut"))}); err == nil {
		t.Fatal("cut stream: no error")
	}
	if resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("cut"))}); err != nil || resp.Message.Content != "whole" {
		t.Fatalf("after the cut = %+v, %v; want the answer", resp.Message, err)
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, fmt.Sprintf("%s %d %s", r.StepID, r.Status, r.Fault))
	}
	want := []string{"flaky 503 status", "flaky 503 status", "flaky 200 ", "cut 200 cut_stream", "cut 200 "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	srv.AssertDone(t)
}
