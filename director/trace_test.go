package director

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/telemetry"
	"github.com/yagent/yagent/telemetry/telemetrytest"
)

// These tests install a process-wide tracer (telemetry.Setup): they must
// not call t.Parallel.

const demoInput = "What is this repository, and is its blackboard safe?"

// demoTree is the span tree of the demo flow: the turn, its three model
// calls, two parallel delegations each with its sub-agent's own calls,
// and the note read back.
const demoTree = `invoke_agent director
  chat scripted
  chat scripted
  chat scripted
  execute_tool delegate
    invoke_agent explorer
      chat scripted
      chat scripted
      execute_tool agent_exit
      execute_tool list_dir
      execute_tool read_file
  execute_tool delegate
    invoke_agent reviewer
      chat scripted
      chat scripted
      execute_tool agent_exit
      execute_tool grep
  execute_tool read_note
`

// TestTraceDemo pins the span tree and the GenAI attributes of the demo
// flow as an OTLP/HTTP collector receives them, and that nothing a person
// or a model wrote is recorded without telemetry.log_content.
func TestTraceDemo(t *testing.T) {
	recv := telemetrytest.NewReceiver(t)
	tel := telemetrytest.Start(t, recv.URL(), false, nil)
	f := newFixture(t, "demo", nil)
	if _, err := f.d.Turn(t.Context(), demoInput); err != nil {
		t.Fatal(err)
	}
	tel.Shutdown(t.Context())
	spans := recv.Spans()
	if got := telemetrytest.Tree(spans); got != demoTree {
		t.Fatalf("span tree:\n%s\nwant:\n%s", got, demoTree)
	}
	for _, s := range spans {
		if s.TraceID != spans[0].TraceID {
			t.Errorf("%s is in trace %s, the turn in %s: want one trace", s.Name, s.TraceID, spans[0].TraceID)
		}
	}
	refs := map[string]string{}
	for _, n := range f.notes(t) {
		refs[n.Meta.Agent] = n.Meta.Ref
	}
	root := telemetrytest.Find(spans, "invoke_agent director")[0]
	want := map[string]any{
		telemetry.KeyOperation: "invoke_agent", telemetry.KeyAgentName: "director", telemetry.KeyConversationID: "sess-1",
		telemetry.KeyRequestModel: "scripted", telemetry.KeyReason: "answer", telemetry.KeySteps: int64(3),
	}
	checkAttrs(t, root, want)
	if root.Resource["service.name"] != "yagent" {
		t.Errorf("resource service.name = %v; want yagent", root.Resource["service.name"])
	}
	for _, c := range telemetrytest.Find(spans, "chat scripted") {
		checkAttrs(t, c, map[string]any{telemetry.KeyOperation: "chat", telemetry.KeyRequestModel: "scripted", telemetry.KeyProvider: "generic"})
		for _, k := range []string{telemetry.KeyResponseModel, telemetry.KeyInputTokens, telemetry.KeyOutputTokens, telemetry.KeyCachedTokens, telemetry.KeyFinishReasons} {
			if _, ok := c.Attrs[k]; !ok {
				t.Errorf("%s lacks %s: %v", c.Name, k, c.Attrs)
			}
		}
		if n, _ := c.Attrs[telemetry.KeyInputTokens].(int64); n <= 0 {
			t.Errorf("%s: %s = %v; want the prompt's tokens", c.Name, telemetry.KeyInputTokens, c.Attrs[telemetry.KeyInputTokens])
		}
	}
	var subs []telemetrytest.Span
	for agent, call := range map[string]string{"explorer": "call_explore", "reviewer": "call_review"} {
		s := telemetrytest.Find(spans, "invoke_agent "+agent)[0]
		subs = append(subs, s)
		checkAttrs(t, s, map[string]any{telemetry.KeyOperation: "invoke_agent", telemetry.KeyAgentName: agent, telemetry.KeyDelegation: call,
			telemetry.KeyDepth: int64(1), telemetry.KeyNoteRef: refs[agent], telemetry.KeyNoteStatus: "ok", telemetry.KeyBoard: "sess-1"})
		if s.Error {
			t.Errorf("%s failed: %s", s.Name, s.Status)
		}
	}
	// The two sub-agents ran side by side.
	if a, b := subs[0], subs[1]; !a.Start.Before(b.End) || !b.Start.Before(a.End) {
		t.Errorf("the sub-agents' spans do not overlap: %v–%v and %v–%v", a.Start, a.End, b.Start, b.End)
	}
	for _, d := range telemetrytest.Find(spans, "execute_tool delegate") {
		checkAttrs(t, d, map[string]any{telemetry.KeyOperation: "execute_tool", telemetry.KeyToolName: "delegate", telemetry.KeyToolType: "function"})
	}
	noContent(t, spans)
}

// TestTraceContentOnlyWhenAsked pins telemetry.log_content: on, the
// turn's input and answer, the tasks and the tool arguments are recorded.
func TestTraceContentOnlyWhenAsked(t *testing.T) {
	recv := telemetrytest.NewReceiver(t)
	tel := telemetrytest.Start(t, recv.URL(), true, nil)
	f := newFixture(t, "demo", nil)
	if _, err := f.d.Turn(t.Context(), demoInput); err != nil {
		t.Fatal(err)
	}
	tel.Shutdown(t.Context())
	spans := recv.Spans()
	root := telemetrytest.Find(spans, "invoke_agent director")[0]
	if in, _ := root.Attrs[telemetry.KeyInputMessages].(string); !strings.Contains(in, demoInput) {
		t.Errorf("the turn's %s = %q; want the input", telemetry.KeyInputMessages, in)
	}
	if out, _ := root.Attrs[telemetry.KeyOutputMessages].(string); !strings.Contains(out, "This is github.com/yagent/yagent") {
		t.Errorf("the turn's %s = %q; want the answer", telemetry.KeyOutputMessages, out)
	}
	ex := telemetrytest.Find(spans, "invoke_agent explorer")[0]
	if in, _ := ex.Attrs[telemetry.KeyInputMessages].(string); !strings.Contains(in, "Map the packages") {
		t.Errorf("the delegation's %s = %q; want its task", telemetry.KeyInputMessages, in)
	}
	rf := telemetrytest.Find(spans, "execute_tool read_file")[0]
	if args, _ := rf.Attrs[telemetry.KeyToolArguments].(string); !strings.Contains(args, "go.mod") {
		t.Errorf("read_file's %s = %q; want its arguments", telemetry.KeyToolArguments, args)
	}
	if len(telemetrytest.Find(spans, "chat scripted")) == 0 || telemetrytest.Find(spans, "chat scripted")[0].Attrs[telemetry.KeyInputMessages] == nil {
		t.Errorf("a model call lacks %s", telemetry.KeyInputMessages)
	}
}

// noContent fails when any attribute holds what a person or a model
// wrote: the input, a task, an answer, a tool's arguments or output.
func noContent(t *testing.T, spans []telemetrytest.Span) {
	t.Helper()
	texts := []string{demoInput, "Map the packages", "Review how the blackboard", "This is github.com/yagent/yagent",
		"go.mod", "atomicfile.WriteFile", "Package map", "no defect found", "handed over"}
	for _, s := range spans {
		for _, k := range []string{telemetry.KeyInputMessages, telemetry.KeyOutputMessages, telemetry.KeyToolArguments, telemetry.KeyToolResult, telemetry.KeySummary} {
			if _, ok := s.Attrs[k]; ok {
				t.Errorf("%s records %s without log_content", s.Name, k)
			}
		}
		for k, v := range s.Attrs {
			for _, text := range texts {
				if strings.Contains(fmt.Sprint(v), text) {
					t.Errorf("%s: attribute %s holds %q without log_content: %v", s.Name, k, text, v)
				}
			}
		}
		for _, text := range texts {
			if strings.Contains(s.Status, text) {
				t.Errorf("%s: status holds %q", s.Name, text)
			}
		}
	}
}

func checkAttrs(t *testing.T, s telemetrytest.Span, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got := s.Attrs[k]; got != v {
			t.Errorf("%s: %s = %#v; want %#v", s.Name, k, got, v)
		}
	}
}

// TestTraceDeadCollector pins that a collector that is down (closed port)
// or hung (accepts, never answers) does not slow a run: the demo turn
// with a scripted model of 500 ms per answer, plus the exit's flush, takes
// what it takes with telemetry off plus at most its bounded exit flush
// (the bound far from an export on the run's path, which would cost the
// export timeout each time; the README's figures are whole-process
// medians) and says once that traces are lost.
func TestTraceDeadCollector(t *testing.T) {
	if testing.Short() {
		t.Skip("times three 3-second turns")
	}
	src, err := os.ReadFile(filepath.Join("..", "testdata", "scenarios", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	slow := regexp.MustCompile(`(?m)^  - id: .*$`).ReplaceAllString(string(src), "$0\n    latency: 500ms")
	scenario := filepath.Join(t.TempDir(), "demo-slow.yaml")
	if err := os.WriteFile(scenario, []byte(slow), 0o600); err != nil {
		t.Fatal(err)
	}
	// A hung collector may cost the run its bounded exit flush
	// (shutdownTimeout) and nothing else; an export on the run's path
	// would cost exportTimeout each time. The bound sits far from both.
	const (
		exportTimeout   = 3 * time.Second
		shutdownTimeout = 200 * time.Millisecond
		bound           = 1500 * time.Millisecond
	)
	run := func(t *testing.T, endpoint string) (time.Duration, string) {
		var stderr testio.Buffer
		var tel *telemetry.Telemetry
		if endpoint != "" {
			var err error
			tel, err = telemetry.Setup(t.Context(), telemetry.Options{Endpoint: endpoint + "/v1/traces", Source: "test", Stderr: &stderr,
				ExportTimeout: exportTimeout, ShutdownTimeout: shutdownTimeout, QueueSize: 2048})
			if err != nil {
				t.Fatal(err)
			}
		}
		srv := llmtest.NewTestServer(t, scenario)
		home := t.TempDir()
		d, _, _ := testDirector(t, testEnv{srv: srv, home: home, store: blackboard.Open(filepath.Join(home, "notes")), id: "sess-1", kind: memory.KindRun})
		start := time.Now()
		if _, err := d.Turn(t.Context(), demoInput); err != nil {
			t.Fatal(err)
		}
		tel.Shutdown(t.Context())
		return time.Since(start), stderr.String()
	}
	for _, tc := range []struct {
		name     string
		endpoint func(testing.TB) string
	}{{"closed port", telemetrytest.ClosedPort}, {"hung", telemetrytest.Blackhole}} {
		t.Run(tc.name, func(t *testing.T) {
			// Paired with a run with telemetry off just before it, up to
			// three times: a loaded machine (three suites at once) slowed
			// one run of a pair by seconds; an export on the run's path
			// costs exportTimeout in every pair.
			var got, off time.Duration
			var stderr string
			for try := 1; try <= 3; try++ {
				off, _ = run(t, "")
				got, stderr = run(t, tc.endpoint(t))
				t.Logf("try %d: off %v, collector %s %v (%+v)", try, off, tc.name, got, got-off)
				if got-off <= bound {
					break
				}
			}
			if got-off > bound {
				t.Errorf("the run took %v with the collector %s, %v with telemetry off: more than %v longer (three tries)", got, tc.name, off, bound)
			}
			if n := strings.Count(stderr, "\n"); n != 1 || !strings.Contains(stderr, "were dropped") {
				t.Errorf("stderr = %q; want one notice", stderr)
			}
		})
	}
}
