package config

import (
	"net/url"
	"strings"
)

// Telemetry configures OpenTelemetry traces (README "Traces
// (OpenTelemetry)"). The standard OTEL_EXPORTER_OTLP_* variables win over
// these keys.
type Telemetry struct {
	// Endpoint is the collector's OTLP/HTTP base URL (traces go to
	// <endpoint>/v1/traces); "" = off unless OTEL_EXPORTER_OTLP_ENDPOINT
	// or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// Headers are sent with every export; a value "${VAR}" is read from
	// the environment, so a secret stays out of the files.
	Headers map[string]string `yaml:"headers" json:"headers"`
	// LogContent records prompts, answers, tasks and tool arguments and
	// results in spans.
	LogContent      bool     `yaml:"log_content" json:"log_content"`
	ExportTimeout   Duration `yaml:"export_timeout" json:"export_timeout"`
	ShutdownTimeout Duration `yaml:"shutdown_timeout" json:"shutdown_timeout"`
	QueueSize       int      `yaml:"queue_size" json:"queue_size"`
	ServiceName     string   `yaml:"service_name" json:"service_name"`
}

// EnvHeaders returns Headers with "${VAR}" values read through getenv.
func (t Telemetry) EnvHeaders(getenv func(string) string) map[string]string {
	return Model{ExtraHeaders: t.Headers}.Headers(getenv)
}

// CheckOTLPEndpoint reports what is wrong with an OTLP/HTTP URL ("" when
// nothing is).
func CheckOTLPEndpoint(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "not a URL (" + strings.TrimPrefix(err.Error(), "parse ") + "): want one such as http://localhost:4318"
	case u.Scheme != "http" && u.Scheme != "https":
		return "want an http:// or https:// URL such as http://localhost:4318, got " + quote(s)
	case u.Host == "" || u.Port() == "" && strings.HasSuffix(u.Host, ":"):
		return "no host: want one such as http://localhost:4318, got " + quote(s)
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }
