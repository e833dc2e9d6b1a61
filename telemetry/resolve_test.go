package telemetry

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/config"
)

func defaults() config.Telemetry {
	return config.Telemetry{ExportTimeout: config.Duration(2 * time.Second), ShutdownTimeout: config.Duration(time.Second),
		QueueSize: 2048, ServiceName: "yagent"}
}

// TestResolve pins where the endpoint comes from (the traces variable,
// then the base variable with /v1/traces, then telemetry.endpoint), what
// turns telemetry off, and that a malformed value is a *ConfigError
// naming its variable or key (exit 2) without echoing a header's value.
func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		endpoint string            // telemetry.endpoint
		headers  map[string]string // telemetry.headers
		env      map[string]string
		want     string // the endpoint; "" = off
		source   string
		wantHdr  map[string]string
		errVar   string // the variable a *ConfigError names
	}{
		{name: "off by default"},
		{name: "config", endpoint: "http://otel:4318", want: "http://otel:4318/v1/traces", source: "telemetry.endpoint"},
		{name: "base variable wins", endpoint: "http://otel:4318", env: map[string]string{EnvEndpoint: "https://collector.example/"},
			want: "https://collector.example/v1/traces", source: EnvEndpoint},
		{name: "traces variable as is", env: map[string]string{EnvEndpoint: "http://a:4318", EnvTracesEndpoint: "http://b:9999/custom"},
			want: "http://b:9999/custom", source: EnvTracesEndpoint},
		{name: "sdk disabled", endpoint: "http://otel:4318", env: map[string]string{EnvSDKDisabled: "true", EnvEndpoint: "http://a:4318"}},
		{name: "exporter none", env: map[string]string{EnvTracesExporter: "none", EnvEndpoint: "http://a:4318"}},
		{name: "headers", headers: map[string]string{"x-team": "ops", "x-key": "${KEY}"},
			env:  map[string]string{EnvEndpoint: "http://a:4318", "KEY": "s3cret", EnvHeaders: "api-key=abc%20def, x-team=dev"},
			want: "http://a:4318/v1/traces", source: EnvEndpoint, wantHdr: map[string]string{"x-team": "dev", "x-key": "s3cret", "api-key": "abc def"}},
		{name: "base without scheme", env: map[string]string{EnvEndpoint: "localhost:4318"}, errVar: EnvEndpoint},
		{name: "base without host", env: map[string]string{EnvEndpoint: "http://"}, errVar: EnvEndpoint},
		{name: "base not a url", env: map[string]string{EnvEndpoint: "http://[::1"}, errVar: EnvEndpoint},
		{name: "traces grpc scheme", env: map[string]string{EnvTracesEndpoint: "grpc://a:4317"}, errVar: EnvTracesEndpoint},
		{name: "malformed headers", env: map[string]string{EnvEndpoint: "http://a:4318", EnvHeaders: "api-key:s3cret"}, errVar: EnvHeaders},
		{name: "grpc protocol", env: map[string]string{EnvEndpoint: "http://a:4318", EnvProtocol: "grpc"}, errVar: EnvProtocol},
		{name: "malformed but disabled", env: map[string]string{EnvSDKDisabled: "true", EnvEndpoint: "nonsense"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := defaults()
			c.Endpoint, c.Headers = tt.endpoint, tt.headers
			o, err := Resolve(c, func(k string) string { return tt.env[k] })
			if tt.errVar != "" {
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Var != tt.errVar || !strings.HasPrefix(err.Error(), tt.errVar+": ") {
					t.Fatalf("Resolve = %v; want a *ConfigError naming %s", err, tt.errVar)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("the error shows a header's value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Endpoint != tt.want || (tt.want != "" && o.Source != tt.source) {
				t.Errorf("endpoint %q from %q; want %q from %q", o.Endpoint, o.Source, tt.want, tt.source)
			}
			if diff := cmp.Diff(tt.wantHdr, o.Headers); tt.wantHdr != nil && diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseHeaders: any input parses or is refused without a panic, and
// what parses has keys a header can carry and survives a round trip.
func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"", "a=b", "api-key=abc%20def, x-team=dev", "k=", "=v", "a=b=c", "k=%zz", ",,,", " k = v "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeaders(s)
		if err != nil {
			return
		}
		var parts []string
		for k, v := range h {
			if k == "" || strings.ContainsAny(k, " \t,=") {
				t.Fatalf("ParseHeaders(%q) gave key %q", s, k)
			}
			parts = append(parts, k+"="+url.PathEscape(v))
		}
		again, err := ParseHeaders(strings.Join(parts, ","))
		if err != nil {
			t.Fatalf("round trip of %q: %v", s, err)
		}
		if len(again) != len(h) {
			t.Fatalf("round trip of %q: %v, then %v", s, h, again)
		}
		for k, v := range h {
			if again[k] != v {
				t.Fatalf("round trip of %q: %s=%q, then %q", s, k, v, again[k])
			}
		}
	})
}
