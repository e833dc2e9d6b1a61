package telemetry_test

import (
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/testio"
)

// TestBinaryLinksNoOTelOrGRPC: the yagent binary links neither the
// OpenTelemetry SDK or API, nor the protobuf runtime, nor gRPC and
// grpc-gateway. The official OTLP/HTTP exporter's request type pulls gRPC
// in (about 1 MiB of peak memory), and the SDK, the generated OTLP types
// and the protobuf runtime are initialised at every start, telemetry on or
// off; so telemetry records its spans (trace.go) and encodes the request
// itself (otlp.go). telemetrytest, a test helper, may use them all.
func TestBinaryLinksNoOTelOrGRPC(t *testing.T) {
	out, err := testio.Command(t, 5*time.Minute, "go", "list", "-deps", "github.com/yagent/yagent/cmd/yagent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "google.golang.org/grpc") || strings.HasPrefix(p, "github.com/grpc-ecosystem/") ||
			strings.HasPrefix(p, "go.opentelemetry.io/") || strings.HasPrefix(p, "google.golang.org/protobuf/") {
			t.Errorf("cmd/yagent links %s", p)
		}
	}
}
