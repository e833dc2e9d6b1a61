package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/telemetry/telemetrytest"
)

// TestTelemetryCLI pins the command line's side of traces: a malformed
// OTLP variable or telemetry.endpoint exits 2 naming it before anything
// runs; a live collector gets the run's spans (set up in openSession,
// flushed by Factory.Close); a collector that is down costs the run
// nothing but one notice. Not parallel: the tracer is process-wide.
func TestTelemetryCLI(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	demo := []string{"run", "--replay", filepath.Join(repo, "testdata", "scenarios", "demo.yaml"), "--cd", repo, "What is this repository?"}
	for _, tc := range []struct {
		name, key, value string
	}{
		{"endpoint without scheme", "OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"},
		{"traces endpoint without host", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://"},
		{"headers", "OTEL_EXPORTER_OTLP_HEADERS", "api-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{tc.key: tc.value}
			if tc.key == "OTEL_EXPORTER_OTLP_HEADERS" {
				env["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:4318"
			}
			code, _, stderr := runCLI(t, t.Context(), env, demo...)
			if code != 2 || !strings.Contains(stderr, "yagent: "+tc.key+": ") {
				t.Errorf("exit %d, stderr %q; want 2 naming %s", code, stderr, tc.key)
			}
			if strings.Contains(stderr, "⇢ explorer") {
				t.Error("the run started before the telemetry settings were checked")
			}
		})
	}
	t.Run("config endpoint", func(t *testing.T) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("telemetry:\n  endpoint: localhost:4318\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, t.Context(), map[string]string{"YAGENT_HOME": home}, demo...)
		if code != 2 || !strings.Contains(stderr, "telemetry.endpoint") {
			t.Errorf("exit %d, stderr %q; want 2 naming telemetry.endpoint", code, stderr)
		}
	})
	t.Run("live collector", func(t *testing.T) {
		recv := telemetrytest.NewReceiver(t)
		code, stdout, stderr := runCLI(t, t.Context(), map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL()}, demo...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "This is github.com/yagent/yagent") {
			t.Errorf("stdout = %q", stdout)
		}
		spans := recv.Spans()
		if len(telemetrytest.Find(spans, "invoke_agent director")) != 1 || len(telemetrytest.Find(spans, "invoke_agent explorer")) != 1 {
			t.Errorf("the collector got:\n%s", telemetrytest.Tree(spans))
		}
		if r := telemetrytest.Find(spans, "invoke_agent director"); len(r) == 1 && r[0].Resource["service.version"] == nil {
			t.Errorf("no service.version in the resource: %v", r[0].Resource)
		}
	})
	t.Run("collector down", func(t *testing.T) {
		code, stderr := runClosed(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": telemetrytest.ClosedPort(t)}, demo...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if n := strings.Count(stderr, "traces to "); n != 1 {
			t.Errorf("%d notices about traces; want 1:\n%s", n, stderr)
		}
	})
}

// runClosed is runCLI that reads stderr after Factory.Close (the last
// flush of traces happens there).
func runClosed(t *testing.T, env map[string]string, args ...string) (code int, stderr string) {
	t.Helper()
	home := t.TempDir()
	var out, errOut bytes.Buffer
	f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	f.Dir = t.TempDir()
	f.Getenv = func(k string) string {
		if k == "YAGENT_HOME" {
			return home
		}
		return env[k]
	}
	code = execute(t.Context(), f, args)
	f.Close()
	return code, errOut.String()
}
