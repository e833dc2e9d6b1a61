package batch

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yagent/yagent/telemetry"
	"github.com/yagent/yagent/telemetry/telemetrytest"
)

// TestTraceBatch pins a batch's trace on both backends: one root span per
// batch, each delegation's span under it — on the River backend made by
// the worker, which joins the trace from the job's W3C trace context and
// names the note the coordinator lands (yagent.note.ref: the worker
// reserves its stem).
func TestTraceBatch(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		recv := telemetrytest.NewReceiver(t)
		var stderr bytes.Buffer
		tel := telemetrytest.Start(t, recv.URL(), false, &stderr)
		f := newBatchFixture(t, be, "batch-release-audit")
		rep, err := f.run(t.Context(), t, loadPlan(t, examplePlan), f.options(""))
		if err != nil {
			t.Fatal(err)
		}
		tel.Shutdown(t.Context())
		spans := recv.Spans()
		roots := telemetrytest.Find(spans, "batch release-audit")
		if len(roots) != 1 {
			t.Fatalf("%d batch spans; want 1:\n%s", len(roots), telemetrytest.Tree(spans))
		}
		root := roots[0]
		checkSpanAttrs(t, root, map[string]any{telemetry.KeyBatch: examplePlan, telemetry.KeyBoard: "release-audit",
			telemetry.KeyBatchSize: int64(3), telemetry.KeyBatchFailed: int64(0)})
		got := byID(rep)
		n := 0
		for _, s := range spans {
			if s.TraceID != root.TraceID {
				t.Errorf("%s is in trace %s, the batch in %s", s.Name, s.TraceID, root.TraceID)
			}
			if !strings.HasPrefix(s.Name, "invoke_agent ") {
				continue
			}
			n++
			if s.ParentID != root.SpanID {
				t.Errorf("%s's parent is %s; want the batch span %s", s.Name, s.ParentID, root.SpanID)
			}
			id, _ := s.Attrs[telemetry.KeyDelegation].(string)
			if s.Attrs[telemetry.KeyNoteStatus] != got[id].Status {
				t.Errorf("%s (%s): note status %v; the report says %s", s.Name, id, s.Attrs[telemetry.KeyNoteStatus], got[id].Status)
			}
			if s.Attrs[telemetry.KeyNoteRef] != got[id].Ref {
				t.Errorf("%s (%s): note ref %v; the report says %s", s.Name, id, s.Attrs[telemetry.KeyNoteRef], got[id].Ref)
			}
			if len(telemetrytest.Find(spans, "chat scripted")) == 0 {
				t.Errorf("no model call spans under the delegations")
			}
		}
		if n != 3 {
			t.Errorf("%d delegation spans; want 3:\n%s", n, telemetrytest.Tree(spans))
		}
		if stderr.Len() > 0 {
			t.Errorf("a live collector produced a notice: %s", stderr.String())
		}
	})
}

func checkSpanAttrs(t *testing.T, s telemetrytest.Span, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got := s.Attrs[k]; got != v {
			t.Errorf("%s: %s = %#v; want %#v", s.Name, k, got, v)
		}
	}
}
