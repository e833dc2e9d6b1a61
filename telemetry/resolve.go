package telemetry

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/yagent/yagent/config"
)

// Standard OpenTelemetry environment variables yagent reads.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER"
	EnvServiceName    = "OTEL_SERVICE_NAME"
	// EnvResourceAttributes adds attributes to the resource; a list that
	// does not parse is ignored (as the OpenTelemetry SDK ignored it).
	EnvResourceAttributes = "OTEL_RESOURCE_ATTRIBUTES"
)

// ConfigError is a telemetry setting that cannot work, naming the
// variable or key that holds it. It is the person's mistake (exit 2).
type ConfigError struct {
	Var string
	Msg string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: %s", e.Var, e.Msg)
}

// Resolve turns the telemetry section and the standard environment into
// Options. The variables win over the section: the traces endpoint, then
// the base endpoint (with /v1/traces appended), then telemetry.endpoint;
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off. A
// malformed value is a *ConfigError naming its variable.
func Resolve(c config.Telemetry, getenv func(string) string) (Options, error) {
	o := Options{
		Source: "telemetry.endpoint", LogContent: c.LogContent, ServiceName: c.ServiceName,
		ExportTimeout: c.ExportTimeout.D(), ShutdownTimeout: c.ShutdownTimeout.D(), QueueSize: c.QueueSize,
	}
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") ||
		strings.EqualFold(strings.TrimSpace(getenv(EnvTracesExporter)), "none") {
		return Options{}, nil
	}
	base := strings.TrimSpace(c.Endpoint)
	if v := strings.TrimSpace(getenv(EnvEndpoint)); v != "" {
		base, o.Source = v, EnvEndpoint
	}
	if base != "" {
		if msg := config.CheckOTLPEndpoint(base); msg != "" {
			return Options{}, &ConfigError{Var: o.Source, Msg: msg}
		}
		o.Endpoint = strings.TrimSuffix(base, "/") + "/v1/traces"
	}
	if v := strings.TrimSpace(getenv(EnvTracesEndpoint)); v != "" {
		if msg := config.CheckOTLPEndpoint(v); msg != "" {
			return Options{}, &ConfigError{Var: EnvTracesEndpoint, Msg: msg}
		}
		o.Endpoint, o.Source = v, EnvTracesEndpoint
	}
	if o.Endpoint == "" {
		return Options{}, nil
	}
	for _, name := range []string{EnvTracesProtocol, EnvProtocol} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			if v != "http/protobuf" {
				return Options{}, &ConfigError{Var: name, Msg: fmt.Sprintf("yagent exports traces over http/protobuf only, got %q: unset it or set it to http/protobuf", v)}
			}
			break
		}
	}
	o.Headers = c.EnvHeaders(getenv)
	for _, name := range []string{EnvHeaders, EnvTracesHeaders} {
		h, err := ParseHeaders(getenv(name))
		if err != nil {
			return Options{}, &ConfigError{Var: name, Msg: err.Error()}
		}
		if len(h) > 0 && o.Headers == nil {
			o.Headers = map[string]string{}
		}
		for k, v := range h {
			o.Headers[k] = v
		}
	}
	if v := strings.TrimSpace(getenv(EnvServiceName)); v != "" {
		o.ServiceName = v
	}
	o.Resource, _ = ParseHeaders(getenv(EnvResourceAttributes))
	if o.ExportTimeout <= 0 {
		o.ExportTimeout = 2 * time.Second // only a hand-built config.Telemetry lacks one
	}
	if o.QueueSize < 1 {
		o.QueueSize = 2048
	}
	return o, nil
}

// ParseHeaders parses the W3C Baggage-like list of
// OTEL_EXPORTER_OTLP_HEADERS: "key1=value1,key2=value2", values
// percent-encoded, blanks around items ignored.
func ParseHeaders(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	h := map[string]string{}
	n := 0
	for item := range strings.SplitSeq(s, ",") {
		n++
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		switch {
		case !ok:
			// The item is not echoed: it may be a secret typed wrong.
			return nil, fmt.Errorf("item %d is not key=value: want pairs separated by commas, such as api-key=secret,team=ops", n)
		case k == "" || strings.ContainsAny(k, " \t\"(),/:;<=>?@[\\]{}"):
			return nil, fmt.Errorf("item %d: %q is not a header name: want pairs separated by commas, such as api-key=secret,team=ops", n, k)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("header %s: the value is not percent-encoded correctly", k)
		}
		h[k] = val
	}
	return h, nil
}
