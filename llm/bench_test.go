package llm_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// twentyCalls is a scenario whose every answer carries 20 tool calls.
func twentyCalls() string {
	var b strings.Builder
	b.WriteString("steps:\n  - repeat: true\n    reply:\n      text: \"Reading the twenty files now.\"\n      tool_calls:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "        - {id: call_%02d, name: read_file, arguments: {path: \"internal/pkg%02d/file.go\", start: %d, end: %d}}\n", i, i, i*10, i*10+40)
	}
	return b.String()
}

var benchRequest = llm.Request{
	Messages: director(user("read every file")),
	Tools: []llm.ToolDef{{Name: "read_file", Description: "Read a file.",
		Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"start":{"type":"integer"},"end":{"type":"integer"}},"required":["path"]}`)}},
}

// cannedTransport answers every request with the same recorded SSE body, so
// the benchmark measures the client alone.
type cannedTransport struct{ body []byte }

func (c cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: req,
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(bytes.NewReader(c.body)),
	}, nil
}

// BenchmarkStreamRoundTrip measures one streamed answer with 20 tool calls
// (1 role chunk, 6 text deltas, 20 × (1 + ~8) tool-call deltas, finish,
// usage): "loopback" through llmtest over 127.0.0.1 (server cost included),
// "client" from canned bytes through an in-memory transport (client only).
func BenchmarkStreamRoundTrip(b *testing.B) {
	srv := inlineServer(b, twentyCalls())
	check := func(resp llm.Response, err error) {
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Message.ToolCalls) != 20 {
			b.Fatalf("got %d tool calls; want 20", len(resp.Message.ToolCalls))
		}
	}
	b.Run("loopback", func(b *testing.B) {
		c := newClient(b, srv.URL(), nil)
		b.ReportAllocs()
		for b.Loop() {
			check(c.Stream(b.Context(), benchRequest))
		}
	})
	b.Run("client", func(b *testing.B) {
		body := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`
		res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		canned, _ := io.ReadAll(res.Body)
		res.Body.Close()
		c := newClient(b, "http://canned.invalid/v1", func(cfg *llm.EndpointConfig) {
			cfg.HTTPClient = &http.Client{Transport: cannedTransport{canned}}
		})
		b.ReportAllocs()
		b.SetBytes(int64(len(canned)))
		for b.Loop() {
			check(c.Stream(b.Context(), benchRequest))
		}
	})
	_ = llmtest.DefaultDims
}
