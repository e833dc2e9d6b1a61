package telemetry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/telemetry"
	"github.com/yagent/yagent/telemetry/telemetrytest"
)

// These tests install the process-wide tracer: none runs in parallel.

// TestOffInitialisesNothing pins the cost of telemetry off: Setup without
// an endpoint builds nothing, and the hooks return at once, allocating
// nothing.
func TestOffInitialisesNothing(t *testing.T) {
	tel, err := telemetry.Setup(t.Context(), telemetry.Options{})
	if tel != nil || err != nil {
		t.Fatalf("Setup without an endpoint = %v, %v; want nil, nil", tel, err)
	}
	tel.Shutdown(t.Context()) // a no-op on nil
	if telemetry.On() {
		t.Fatal("telemetry is on without an endpoint")
	}
	ctx := t.Context()
	failure := errors.New("x")
	allocs := testing.AllocsPerRun(100, func() {
		c, sp := telemetry.StartChat(ctx, "m", "openai")
		sp.Content(telemetry.KeyInputMessages, func() string { panic("content built while off") })
		sp.Chat("m", "stop", 1, 2, 3, 4)
		sp.End(nil)
		c, sp = telemetry.StartAgent(c, "director", "m", 0, "s")
		sp.End(failure)
		_, sp = telemetry.StartTool(c, "read_file", "c1")
		sp.End(nil)
		if c != ctx || telemetry.Inject(c) != nil {
			t.Fatal("a hook changed the context while off")
		}
	})
	if allocs != 0 {
		t.Errorf("hooks allocate %v times per call while off; want 0", allocs)
	}
}

// TestHeadersReachTheCollector pins OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_RESOURCE_ATTRIBUTES end to end (service.name is yagent's own).
func TestHeadersReachTheCollector(t *testing.T) {
	recv := telemetrytest.NewReceiver(t)
	env := map[string]string{telemetry.EnvEndpoint: recv.URL(), telemetry.EnvHeaders: "x-honeycomb-team=abc%2F123",
		telemetry.EnvResourceAttributes: "deployment.environment=ci,service.name=other"}
	opts, err := telemetry.Resolve(configDefaults(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.Setup(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, sp := telemetry.StartTool(t.Context(), "grep", "c1")
	sp.End(nil)
	tel.Shutdown(t.Context())
	if got := recv.Header("x-honeycomb-team"); got != "abc/123" {
		t.Errorf("header x-honeycomb-team = %q; want abc/123", got)
	}
	spans := recv.Spans()
	if len(spans) != 1 {
		t.Fatalf("%d spans received; want 1", len(spans))
	}
	if r := spans[0].Resource; r["deployment.environment"] != "ci" || r["service.name"] != "yagent" || r["telemetry.sdk.language"] != "go" {
		t.Errorf("resource = %v; want deployment.environment=ci, service.name=yagent, telemetry.sdk.language=go", r)
	}
}

// TestDeadCollector pins that a collector that is down (a closed port) or
// hung (accepts, never answers) never blocks the run: making spans stays
// fast even past the queue's bound, the exit waits at most
// shutdown_timeout (not at all once an export failed), and the loss is
// said once.
func TestDeadCollector(t *testing.T) {
	for _, tc := range []struct {
		name     string
		endpoint func(testing.TB) string
		wait     time.Duration // the most Shutdown may take
	}{
		// Deadlines wide apart, so a loaded machine stays far from them:
		// the export times out after 1s, Shutdown waits at most 2s.
		{"closed port", telemetrytest.ClosedPort, time.Second}, // a refused connection: no waiting
		{"hung", telemetrytest.Blackhole, 2*time.Second + 2*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr testio.Buffer
			tel, err := telemetry.Setup(t.Context(), telemetry.Options{Endpoint: tc.endpoint(t) + "/v1/traces", Source: "test",
				Stderr: &stderr, ExportTimeout: time.Second, ShutdownTimeout: 2 * time.Second, QueueSize: 64})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			for range 5000 { // far past the queue's 64
				ctx, sp := telemetry.StartAgent(context.Background(), "explorer", "m", 1, "c")
				_, ch := telemetry.StartChat(ctx, "m", "generic")
				ch.Chat("m", "stop", 10, 5, 0, 0)
				ch.End(nil)
				sp.End(nil)
			}
			// Waiting on a hung collector would cost the export timeout per
			// batch of 64 (about 150 s); under the race detector on a loaded
			// machine the spans themselves take a second or two.
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("10000 spans took %v with the collector down; want no waiting on it", d)
			}
			start = time.Now()
			tel.Shutdown(context.Background())
			if d := time.Since(start); d > tc.wait {
				t.Errorf("Shutdown took %v; want at most %v", d, tc.wait)
			}
			if n := strings.Count(stderr.String(), "\n"); n != 1 || !strings.Contains(stderr.String(), "traces to ") {
				t.Errorf("stderr = %q; want one notice", stderr.String())
			}
		})
	}
}

// TestDeadCollectorKnownBeforeExit pins that a collector found dead
// during the run costs nothing at exit (Shutdown does not wait), and that
// the one notice comes at Shutdown, never from the export goroutine.
func TestDeadCollectorKnownBeforeExit(t *testing.T) {
	var stderr testio.Buffer
	tel, err := telemetry.Setup(t.Context(), telemetry.Options{Endpoint: telemetrytest.Blackhole(t) + "/v1/traces", Source: "test",
		Stderr: &stderr, ExportTimeout: 3 * time.Second, ShutdownTimeout: 10 * time.Second, QueueSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	_, sp := telemetry.StartTool(t.Context(), "grep", "c1")
	sp.End(nil)
	// The batch goes after a second; its export times out 3s later.
	for deadline := time.Now().Add(time.Minute); !tel.ExportFailed(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the export to a hung collector never failed")
		}
	}
	if s := stderr.String(); s != "" {
		// Written from the export goroutine, it would race the run's own
		// output (and tear a full-screen terminal).
		t.Errorf("a notice before Shutdown: %q", s)
	}
	_, sp = telemetry.StartTool(t.Context(), "grep", "c2")
	sp.End(nil)
	start := time.Now()
	tel.Shutdown(context.Background())
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("Shutdown took %v after an export had failed; want no wait (a flush would take the export timeout, 3s)", d)
	}
	if n := strings.Count(stderr.String(), "\n"); n != 1 {
		t.Errorf("stderr = %q; want one notice", stderr.String())
	}
}

func configDefaults() config.Telemetry {
	return config.Telemetry{ExportTimeout: config.Duration(2 * time.Second), ShutdownTimeout: config.Duration(time.Second), QueueSize: 2048}
}

// BenchmarkHooksOff is what the hooks of one round trip (a model call and
// a tool call) cost with telemetry off.
func BenchmarkHooksOff(b *testing.B) {
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		c, sp := telemetry.StartChat(ctx, "m", "openai")
		sp.Content(telemetry.KeyInputMessages, func() string { return "x" })
		sp.Chat("m", "stop", 1, 2, 3, 4)
		sp.End(nil)
		_, sp = telemetry.StartTool(c, "read_file", "c1")
		sp.Content(telemetry.KeyToolArguments, func() string { return "{}" })
		sp.End(nil)
	}
}
