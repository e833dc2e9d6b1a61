package llm_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/llm"
)

// adaptTail is a transient tail, as the agent loop appends it.
var adaptTail = llm.Message{Role: llm.RoleUser, Content: "[yagent:transient] state", Transient: true}

// bodies decodes the recorded request bodies.
func bodies(t *testing.T, raw ...[]byte) []map[string]json.RawMessage {
	t.Helper()
	out := make([]map[string]json.RawMessage, len(raw))
	for i, b := range raw {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	return out
}

// reasoningChunks is an answer streaming its reasoning in field, then a
// tool call.
func reasoningChunks(field string) string {
	return fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","%s":"Look first."},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, field)
}

// TestAdaptReasoningSentBackInItsField pins that an endpoint nobody named
// gets an answer's reasoning back in the field it streamed it in, and in
// no other; the same answers under a named generic profile send none.
func TestAdaptReasoningSentBackInItsField(t *testing.T) {
	for _, tc := range []struct{ field, provider, want string }{
		{"reasoning_content", "", "reasoning_content"},
		{"reasoning", "", "reasoning"},
		{"reasoning_content", llm.ProviderGeneric, ""},
	} {
		t.Run(tc.field+"/"+tc.provider, func(t *testing.T) {
			srv := inlineServer(t, fmt.Sprintf("steps: [{reply: {raw: '%s'}}, {reply: {text: done}}]", strings.ReplaceAll(reasoningChunks(tc.field), "\n", "\n\n")))
			c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.Provider = tc.provider })
			msgs := director(user("read it"))
			first, err := c.Stream(t.Context(), llm.Request{Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			if first.Message.Reasoning != "Look first." {
				t.Fatalf("reasoning = %q", first.Message.Reasoning)
			}
			msgs = append(msgs, first.Message, llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: "x"})
			if _, err := c.Stream(t.Context(), llm.Request{Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			var body struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(srv.Requests()[1].Body, &body); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"reasoning_content", "reasoning"} {
				got, ok := body.Messages[2][f]
				if want := f == tc.want; ok != want || (ok && string(got) != `"Look first."`) {
					t.Errorf("assistant message %s = %s (sent %v); want sent: %v", f, got, ok, want)
				}
			}
		})
	}
}

// refusingServer answers the first refusals requests with status and
// body, then a short streamed answer; it records every request body.
type refusingServer struct {
	mu       sync.Mutex
	refusals int
	status   int
	body     string
	got      [][]byte
}

func (s *refusingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.got = append(s.got, b)
	refuse := s.refusals > 0
	s.refusals--
	s.mu.Unlock()
	if refuse {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
}

func (s *refusingServer) requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.got...)
}

func startRefusing(t *testing.T, refusals, status int, body string) (*refusingServer, string) {
	t.Helper()
	s := &refusingServer{refusals: refusals, status: status, body: body}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL + "/v1"
}

// toolTurn is a history ending in a tool result, then the tail.
func toolTurn(reasoning string) []llm.Message {
	return append(director(user("read it")),
		llm.Message{Role: llm.RoleAssistant, Reasoning: reasoning, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read", Arguments: "{}"}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: "hello"},
		adaptTail)
}

// TestAdaptRefusalRetriedOnceAndRemembered pins each refusal an adapting
// client learns from: the refused request is resent once, at once, changed
// as the refusal says, and the next request starts changed (remembered),
// without a second refusal.
func TestAdaptRefusalRetriedOnceAndRemembered(t *testing.T) {
	weather := []llm.ToolDef{{Name: "weather", Parameters: json.RawMessage(`{"type":"object","properties":{"l":{"type":["string","null"]}},"additionalProperties":false}`)}}
	for _, tc := range []struct {
		name, body string
		status     int
		msgs       []llm.Message
		tools      []llm.ToolDef
		changed    func(map[string]json.RawMessage) bool // the request as the refusal wants it
	}{
		{name: "stream_options", status: 422,
			body: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],"msg":"Extra inputs are not permitted","input":true}]},"type":"invalid_request_error","param":null,"code":null}`,
			msgs: director(user("hi")),
			changed: func(b map[string]json.RawMessage) bool {
				_, ok := b["stream_options"]
				return !ok
			}},
		{name: "role order", status: 400,
			body: `{"object":"error","message":"Unexpected role 'user' after role 'tool'","type":"invalid_request_message_order","param":null,"code":"3230"}`,
			msgs: toolTurn(""),
			changed: func(b map[string]json.RawMessage) bool {
				return messages(b)[3]["content"] == "hello\n\n[yagent:transient] state" && len(messages(b)) == 4
			}},
		{name: "reasoning missing", status: 400,
			body: `{"error":{"message":"thinking is enabled but reasoning_content is missing in assistant tool call message at index 2","type":"invalid_request_error"}}`,
			msgs: toolTurn(""),
			changed: func(b map[string]json.RawMessage) bool {
				r, ok := messages(b)[2]["reasoning_content"]
				return ok && r == ""
			}},
		{name: "reasoning passed back", status: 400,
			body: `{"error":{"message":"The ` + "`reasoning_content`" + ` in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
			msgs: toolTurn(""),
			changed: func(b map[string]json.RawMessage) bool {
				r, ok := messages(b)[2]["reasoning_content"]
				return ok && r == ""
			}},
		{name: "gemini schema", status: 400,
			body:  `[{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters': Cannot find field.","status":"INVALID_ARGUMENT"}}]`,
			msgs:  director(user("hi")),
			tools: weather,
			changed: func(b map[string]json.RawMessage) bool {
				return !strings.Contains(string(b["tools"]), "additionalProperties") && strings.Contains(string(b["tools"]), `"type":"string"`)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, url := startRefusing(t, 1, tc.status, tc.body)
			c := newClient(t, url, nil)
			resp, err := c.Stream(t.Context(), llm.Request{Messages: tc.msgs, Tools: tc.tools})
			if err != nil || resp.Message.Content != "ok" || resp.Attempts != 2 {
				t.Fatalf("resp = %+v, err = %v; want the answer after one resend (2 attempts)", resp, err)
			}
			if _, err := c.Stream(t.Context(), llm.Request{Messages: tc.msgs, Tools: tc.tools}); err != nil {
				t.Fatal(err)
			}
			got := bodies(t, srv.requests()...)
			if len(got) != 3 {
				t.Fatalf("server saw %d requests; want 3 (refused, resent, the next one)", len(got))
			}
			for i, want := range []bool{false, true, true} {
				if tc.changed(got[i]) != want {
					t.Errorf("request %d changed as the refusal asked: %v; want %v\n%s", i+1, !want, want, srv.requests()[i])
				}
			}
		})
	}
}

func messages(body map[string]json.RawMessage) []map[string]any {
	var msgs []map[string]any
	_ = json.Unmarshal(body["messages"], &msgs)
	return msgs
}

// TestAdaptRefusedReasoningNotSentAgain pins the way back: an endpoint
// that refuses the reasoning field sent back (Groq: "property 'reasoning'
// is unsupported") gets the request again without it, and never again,
// though its answers keep streaming reasoning.
func TestAdaptRefusedReasoningNotSentAgain(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - {id: answer, match: {last_role: user}, reply: {raw: '`+strings.ReplaceAll(reasoningChunks("reasoning"), "\n", "\n\n")+`'}}
  - id: refuse
    match: {last_role: tool}
    fault: {kind: status, status: 400, message: "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : property 'reasoning' is unsupported)]"}
    reply: {text: done}
  - {id: again, repeat: true, reply: {text: done}}
`)
	c := newClient(t, srv.URL(), nil)
	msgs := director(user("read it"))
	first, err := c.Stream(t.Context(), llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, first.Message, llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: "x"})
	for range 2 {
		if _, err := c.Stream(t.Context(), llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	var sentBack []bool
	for _, r := range srv.Requests()[1:] {
		_, ok := messages(bodies(t, r.Body)[0])[2]["reasoning"]
		sentBack = append(sentBack, ok)
	}
	if diff := cmp.Diff([]bool{true, false, false}, sentBack); diff != "" {
		t.Errorf("reasoning sent back on the refused, resent and next request (-want +got):\n%s", diff)
	}
}

// TestAdaptReasoningDemandNeverTurnsOff pins that an endpoint still
// saying reasoning_content is missing once it is sent on every assistant
// message is not resent, and the reasoning is not taken away: the demand
// names the field sent, which otherwise reads as a refusal of it.
func TestAdaptReasoningDemandNeverTurnsOff(t *testing.T) {
	srv, url := startRefusing(t, 3, http.StatusBadRequest, `{"error":{"message":"Missing reasoning_content field in the assistant message at message index 2.","type":"invalid_request_error"}}`)
	c := newClient(t, url, nil)
	for range 2 {
		if _, err := c.Stream(t.Context(), llm.Request{Messages: toolTurn("")}); err == nil || !strings.Contains(err.Error(), "Missing reasoning_content") {
			t.Fatalf("err = %v; want the refusal", err)
		}
	}
	var sent []bool
	for _, b := range bodies(t, srv.requests()...) {
		_, ok := messages(b)[2]["reasoning_content"]
		sent = append(sent, ok)
	}
	if diff := cmp.Diff([]bool{false, true, true}, sent); diff != "" {
		t.Errorf("reasoning_content sent on each request (-want +got):\n%s", diff)
	}
}

// TestAdaptNoRetryWithoutCue pins what is never resent: a refusal
// repeated after the one resend (the error is the second refusal's), a
// garbage or non-JSON 400 body even when it names stream_options, a 400
// naming what the request did not carry, and any refusal to a named
// provider. Each request reaches the server as often as the want says.
func TestAdaptNoRetryWithoutCue(t *testing.T) {
	streamOpts := `{"error":{"message":"stream_options is not supported","type":"invalid_request_error"}}`
	for _, tc := range []struct {
		name      string
		refusals  int
		body      string
		provider  string
		msgs      []llm.Message
		requests  int
		errorSays string
	}{
		{"refused again after the resend", 2, `{"error":{"message":"Unexpected role 'user' after role 'tool', stream_options","type":"x"}}`, "", toolTurn(""), 2, "Unexpected role"},
		{"garbage body", 1, "<html><body>400 Bad Request: stream_options</body>", "", director(user("hi")), 1, "400 Bad Request: stream_options"},
		{"torn JSON body", 1, `{"error":{"message":"stream_options`, "", director(user("hi")), 1, "stream_options"},
		{"names nothing sent", 1, `{"error":{"message":"Unexpected role 'user' after role 'tool'"}}`, "", director(user("hi")), 1, "Unexpected role"},
		{"named generic", 1, streamOpts, llm.ProviderGeneric, director(user("hi")), 1, "stream_options is not supported"},
		{"named vllm", 1, streamOpts, llm.ProviderVLLM, director(user("hi")), 1, "stream_options is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, url := startRefusing(t, tc.refusals, http.StatusBadRequest, tc.body)
			c := newClient(t, url, func(cfg *llm.EndpointConfig) { cfg.Provider = tc.provider })
			_, err := c.Stream(t.Context(), llm.Request{Messages: tc.msgs})
			if err == nil || !strings.Contains(err.Error(), tc.errorSays) {
				t.Errorf("err = %v; want the refusal saying %q", err, tc.errorSays)
			}
			if n := len(srv.requests()); n != tc.requests {
				t.Errorf("server saw %d requests; want %d", n, tc.requests)
			}
		})
	}
}

// TestAdaptNeverResendsAfterStreaming pins that a refusal after an
// attempt of the same request streamed (and was cut) is not resent: what
// streamed was already shown.
func TestAdaptNeverResendsAfterStreaming(t *testing.T) {
	var mu sync.Mutex
	n := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"partial"},"finish_reason":null}]}`+"\n\n")
			return // cut: no finish reason
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"stream_options is not supported"}}`)
	}))
	t.Cleanup(hs.Close)
	c := newClient(t, hs.URL+"/v1", func(cfg *llm.EndpointConfig) { cfg.MaxRetries = 1 })
	_, err := c.Stream(t.Context(), llm.Request{Messages: director(user("hi"))})
	mu.Lock()
	defer mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "stream_options") || n != 2 {
		t.Errorf("err = %v after %d requests; want the refusal, not resent (2 requests)", err, n)
	}
}

// TestAdaptationsRemembered pins the memory across processes: what one
// client learned is in the file, a client built later on a fresh
// Adaptations of the same file starts adapted, and the file names the
// endpoint without its credentials.
func TestAdaptationsRemembered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "endpoints.json")
	srv, url := startRefusing(t, 1, http.StatusBadRequest, `{"error":{"message":"stream_options is not supported"}}`)
	url = strings.Replace(url, "http://", "http://user:hunter2@", 1)
	var notices []string
	note := func(s string) { notices = append(notices, s) }
	c := newClient(t, url, func(cfg *llm.EndpointConfig) { cfg.Adaptations = llm.OpenAdaptations(path, note) })
	if _, err := c.Stream(t.Context(), llm.Request{Messages: director(user("hi"))}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"no_stream_options": true`) || strings.Contains(string(data), "hunter2") {
		t.Errorf("file = %s; want the adaptation, keyed without the password", data)
	}
	later := newClient(t, url, func(cfg *llm.EndpointConfig) { cfg.Adaptations = llm.OpenAdaptations(path, note) })
	if _, err := later.Stream(t.Context(), llm.Request{Messages: director(user("hi"))}); err != nil {
		t.Fatal(err)
	}
	got := bodies(t, srv.requests()...)
	if _, ok := got[2]["stream_options"]; len(got) != 3 || ok {
		t.Errorf("the later client's request carried stream_options (%d requests); want it adapted from the file", len(got))
	}
	if len(notices) != 0 {
		t.Errorf("notices = %q; want none", notices)
	}
}

// TestAdaptationsDamagedFileIgnored pins that a damaged file (not JSON,
// another version, an entry that is not an adaptation) is ignored with a
// notice naming it, never fatal: the client adapts again from the answers
// and the next write replaces it.
func TestAdaptationsDamagedFileIgnored(t *testing.T) {
	for _, tc := range []struct{ name, content, notice string }{
		{"torn", `{"version":1,"endpoints":{"http://x`, "is damaged"},
		{"version", `{"version":9,"endpoints":{}}`, "version 9, want 1"},
		{"entry", `{"version":1,"endpoints":{"URL":{"reasoning_field":"api_key"}}}`, `reasoning_field "api_key"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "endpoints.json")
			srv, url := startRefusing(t, 1, http.StatusBadRequest, `{"error":{"message":"stream_options is not supported"}}`)
			content := strings.ReplaceAll(tc.content, "URL", url)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			var notices []string
			c := newClient(t, url, func(cfg *llm.EndpointConfig) {
				cfg.Adaptations = llm.OpenAdaptations(path, func(s string) { notices = append(notices, s) })
			})
			if len(notices) == 0 || !strings.Contains(notices[0], tc.notice) || !strings.Contains(notices[0], "endpoint") {
				t.Errorf("notices = %q; want one saying %q", notices, tc.notice)
			}
			if _, err := c.Stream(t.Context(), llm.Request{Messages: director(user("hi"))}); err != nil {
				t.Fatalf("err = %v; want the answer after adapting afresh", err)
			}
			if n := len(srv.requests()); n != 2 {
				t.Errorf("server saw %d requests; want 2 (refused, resent)", n)
			}
			data, _ := os.ReadFile(path)
			var f struct {
				Version int `json:"version"`
			}
			if json.Unmarshal(data, &f) != nil || f.Version != 1 || !strings.Contains(string(data), "no_stream_options") {
				t.Errorf("file after the write = %s; want it replaced by a good one", data)
			}
		})
	}
}
