// Package telemetrytest is an in-process OTLP/HTTP trace receiver for
// tests: an httptest server that decodes the exported protobuf
// (ExportTraceServiceRequest) and keeps every span, and a collector that
// accepts connections and never answers.
package telemetrytest

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/yagent/yagent/telemetry"
)

// Span is one received span, flattened.
type Span struct {
	Name     string
	TraceID  string
	SpanID   string
	ParentID string
	Kind     tracepb.Span_SpanKind
	Start    time.Time
	End      time.Time
	Attrs    map[string]any // string, bool, int64, float64 or []any
	Error    bool           // status code ERROR
	Status   string         // the status message
	Resource map[string]any
}

// Receiver is an OTLP/HTTP traces endpoint.
type Receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []Span
	// Requests counts exports; Headers are the last export's.
	requests int
	headers  http.Header
}

// NewReceiver starts a receiver closed when t ends.
func NewReceiver(t testing.TB) *Receiver {
	r := &Receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the base endpoint (what OTEL_EXPORTER_OTLP_ENDPOINT takes).
func (r *Receiver) URL() string { return r.srv.URL }

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "want POST /v1/traces", http.StatusNotFound)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "want application/x-protobuf, got "+ct, http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, "decode: "+err.Error(), http.StatusBadRequest)
		return
	}
	var spans []Span
	for _, rs := range msg.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				spans = append(spans, Span{
					Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()), Kind: s.GetKind(),
					Start: time.Unix(0, int64(s.GetStartTimeUnixNano())), End: time.Unix(0, int64(s.GetEndTimeUnixNano())),
					Attrs: attrs(s.GetAttributes()), Error: s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
					Status: s.GetStatus().GetMessage(), Resource: res,
				})
			}
		}
	}
	r.mu.Lock()
	r.got = append(r.got, spans...)
	r.requests++
	r.headers = req.Header.Clone()
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func attrs(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// Header returns a header of the last export.
func (r *Receiver) Header(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.headers.Get(name)
}

// Tree renders spans as an indented tree, one span name a line, children
// under their parent ordered by their rendered subtree (parallel siblings
// come out the same way every run). A span whose parent is not among
// spans is a root.
func Tree(spans []Span) string {
	byID := map[string]bool{}
	for _, s := range spans {
		byID[s.SpanID] = true
	}
	kids := map[string][]Span{}
	for _, s := range spans {
		p := s.ParentID
		if !byID[p] {
			p = ""
		}
		kids[p] = append(kids[p], s)
	}
	var render func(parent string, depth int) string
	render = func(parent string, depth int) string {
		var subs []string
		for _, s := range kids[parent] {
			subs = append(subs, fmt.Sprintf("%s%s\n", strings.Repeat("  ", depth), s.Name)+render(s.SpanID, depth+1))
		}
		slices.Sort(subs)
		return strings.Join(subs, "")
	}
	return render("", 0)
}

// Find returns the spans named name.
func Find(spans []Span, name string) []Span {
	var out []Span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Blackhole returns the base URL of a collector that accepts connections
// and never answers (a hung collector), closed when t ends.
func Blackhole(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}

// ClosedPort returns the base URL of a port nothing listens on.
func ClosedPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// Start installs telemetry exporting to the base URL endpoint for the
// rest of the test (shut down at its end; call Shutdown to flush before
// asserting). The test must not run in parallel: the tracer is
// process-wide.
func Start(t testing.TB, endpoint string, logContent bool, stderr io.Writer) *telemetry.Telemetry {
	t.Helper()
	tel, err := telemetry.Setup(t.Context(), telemetry.Options{
		Endpoint: endpoint + "/v1/traces", Source: "test", LogContent: logContent, Stderr: stderr,
		ExportTimeout: 2 * time.Second, ShutdownTimeout: time.Second, QueueSize: 2048,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tel.Shutdown(context.Background()) })
	return tel
}
