package telemetry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/yagent/yagent/telemetry"
	"github.com/yagent/yagent/telemetry/telemetrytest"
)

// TestPropagate pins the W3C trace context a queued job carries: the
// worker's spans join the trace that queued the job, under the span that
// queued it; the tracestate travels along; a parent that was not sampled
// records nothing; a carrier that is not a traceparent starts a new trace.
func TestPropagate(t *testing.T) {
	recv := telemetrytest.NewReceiver(t)
	tel := telemetrytest.Start(t, recv.URL(), false, nil)

	ctx, batch := telemetry.StartBatch(context.Background(), "plan.yaml", "b", 1)
	carrier := telemetry.Inject(ctx)
	if !strings.HasPrefix(carrier["traceparent"], "00-") || !strings.HasSuffix(carrier["traceparent"], "-01") {
		t.Fatalf("Inject = %v; want a sampled traceparent", carrier)
	}
	carrier["tracestate"] = "vendor=x"
	wctx := telemetry.Extract(context.Background(), carrier)
	_, job := telemetry.StartAgent(wctx, "explorer", "m", 1, "c1")
	if got := telemetry.Inject(wctx)["tracestate"]; got != "vendor=x" {
		t.Errorf("tracestate after Extract = %q; want vendor=x", got)
	}
	job.End(nil)
	batch.End(nil)

	unsampled := map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}
	_, quiet := telemetry.StartTool(telemetry.Extract(context.Background(), unsampled), "grep", "c2")
	quiet.End(nil)
	_, fresh := telemetry.StartTool(telemetry.Extract(context.Background(), map[string]string{"traceparent": "garbage"}), "grep", "c3")
	fresh.End(nil)
	tel.Shutdown(context.Background())

	spans := recv.Spans()
	roots := telemetrytest.Find(spans, "batch plan")
	jobs := telemetrytest.Find(spans, "invoke_agent explorer")
	if len(roots) != 1 || len(jobs) != 1 {
		t.Fatalf("spans:\n%s; want one batch and one job", telemetrytest.Tree(spans))
	}
	if jobs[0].TraceID != roots[0].TraceID || jobs[0].ParentID != roots[0].SpanID {
		t.Errorf("the job is in trace %s under %s; want trace %s under %s", jobs[0].TraceID, jobs[0].ParentID, roots[0].TraceID, roots[0].SpanID)
	}
	tools := telemetrytest.Find(spans, "execute_tool grep")
	if len(tools) != 1 || tools[0].ParentID != "" || tools[0].Attrs["gen_ai.tool.call.id"] != "c3" {
		t.Errorf("tool spans = %+v; want only c3's, a root (c2's parent was not sampled)", tools)
	}
}

// FuzzParseTraceparent: Extract never panics, and what it accepts
// round-trips through Inject unchanged.
func FuzzParseTraceparent(f *testing.F) {
	for _, s := range []string{"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
		"01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		"00-00000000000000000000000000000000-b7ad6b7169203331-01", "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", ""} {
		f.Add(s)
	}
	recv := telemetrytest.NewReceiver(f)
	telemetrytest.Start(f, recv.URL(), false, nil)
	f.Fuzz(func(t *testing.T, h string) {
		ctx := telemetry.Extract(context.Background(), map[string]string{"traceparent": h})
		out := telemetry.Inject(ctx)
		if out == nil {
			return // not accepted
		}
		if got, in := out["traceparent"], strings.TrimSpace(h); got[3:52] != in[3:52] {
			t.Errorf("Extract(%q) then Inject = %q: the ids changed", h, got)
		}
	})
}
