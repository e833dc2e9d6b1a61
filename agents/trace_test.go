package agents

import (
	"testing"

	"github.com/yagent/yagent/telemetry"
	"github.com/yagent/yagent/telemetry/telemetrytest"
)

// TestTraceBadToolCalls pins that every tool call is a span, also the ones
// the loop answered without running a tool (an unknown tool, arguments
// that are not JSON or fail the schema): each is an execute_tool span
// failed at once with error.type tool_refused. Not parallel: the tracer
// is process-wide.
func TestTraceBadToolCalls(t *testing.T) {
	recv := telemetrytest.NewReceiver(t)
	tel := telemetrytest.Start(t, recv.URL(), false, nil)
	srv, client := scenario(t, "loop-bad-output")
	loop := &Loop{Client: client}
	if _, err := loop.Run(t.Context(), leadAgent(FSTools(demoWorkspace(t), ShellPolicy{})), nil, userMsg("go")); err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	tel.Shutdown(t.Context())
	spans := recv.Spans()
	refused := 0
	for _, s := range spans {
		if s.Attrs[telemetry.KeyErrorType] == "tool_refused" {
			refused++
			if !s.Error || s.Attrs[telemetry.KeyOperation] != "execute_tool" {
				t.Errorf("%s: error %v, attributes %v", s.Name, s.Error, s.Attrs)
			}
		}
	}
	if refused != 4 {
		t.Errorf("%d refused tool calls traced; want 4:\n%s", refused, telemetrytest.Tree(spans))
	}
	if n := len(telemetrytest.Find(spans, "execute_tool delete_everything")); n != 1 {
		t.Errorf("%d spans for the unknown tool; want 1", n)
	}
}

// BenchmarkTurnOverheadTraced is BenchmarkTurnOverhead with traces on,
// exported to an in-process collector: the cost of telemetry when on
// (off, the hooks cost one atomic load each; compare
// BenchmarkTurnOverhead before and after).
func BenchmarkTurnOverheadTraced(b *testing.B) {
	recv := telemetrytest.NewReceiver(b)
	telemetrytest.Start(b, recv.URL(), false, nil)
	BenchmarkTurnOverhead(b)
}
