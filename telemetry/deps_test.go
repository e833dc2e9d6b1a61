package telemetry_test

import (
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/testio"
)

// TestBinaryLinksNoGRPC: the yagent binary links neither gRPC nor
// grpc-gateway. The official OTLP/HTTP exporter's request type pulls both
// in (about 1 MiB of peak memory and their package initialisation on every
// start, telemetry on or off, and on every sandboxed shell command), so
// telemetry encodes the request itself (otlp.go).
func TestBinaryLinksNoGRPC(t *testing.T) {
	out, err := testio.Command(t, 5*time.Minute, "go", "list", "-deps", "github.com/yagent/yagent/cmd/yagent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "google.golang.org/grpc") || strings.HasPrefix(p, "github.com/grpc-ecosystem/") {
			t.Errorf("cmd/yagent links %s", p)
		}
	}
}
