package config

import (
	"strings"
	"testing"
	"time"
)

// TestTelemetryKeys pins the telemetry: section: off by default (no
// endpoint, no content), its timeouts and queue as defaults.yaml says, a
// header "${VAR}" read from the environment, and a malformed endpoint an
// error naming file, line and key.
func TestTelemetryKeys(t *testing.T) {
	cfg, err := load(t, "", "")
	if err != nil {
		t.Fatal(err)
	}
	tel := cfg.Telemetry
	if tel.Endpoint != "" || tel.LogContent || tel.ExportTimeout.D() != 2*time.Second || tel.ShutdownTimeout.D() != time.Second || tel.QueueSize != 2048 {
		t.Errorf("defaults: %+v", tel)
	}
	cfg, err = load(t, "telemetry:\n  endpoint: https://otel.example:4318\n  headers: {x-key: \"${OTLP_KEY}\", team: ops}\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if h := cfg.Telemetry.EnvHeaders(func(k string) string { return map[string]string{"OTLP_KEY": "s3cret"}[k] }); h["x-key"] != "s3cret" || h["team"] != "ops" {
		t.Errorf("EnvHeaders = %v", h)
	}
	for _, tt := range []struct{ user, want string }{
		{"telemetry:\n  endpoint: localhost:4318\n", `config.yaml:2: telemetry.endpoint: want an http:// or https:// URL`},
		{"telemetry:\n  endpoint: \"http://\"\n", `config.yaml:2: telemetry.endpoint: no host`},
		{"telemetry:\n  export_timeout: 0\n", `config.yaml:2: telemetry.export_timeout: want a duration above 0`},
		{"telemetry:\n  queue_size: 0\n", `config.yaml:2: telemetry.queue_size: want 1 or more`},
	} {
		if _, err := load(t, tt.user, ""); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v; want %q", tt.user, err, tt.want)
		}
	}
}
