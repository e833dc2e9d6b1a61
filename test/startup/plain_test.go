package startup

import (
	"strings"
	"testing"
)

// heavyOnlyWhenUsed are the packages no process initialises (they are not
// linked, or build their values on first use), by import-path prefix:
// goldmark was the web view's (0.9 ms of every start; internal/markdown
// renders the pages now and builds its expressions on first use), the
// OpenTelemetry SDK and the protobuf runtime telemetry's (telemetry now
// records and encodes its spans itself).
var heavyOnlyWhenUsed = []string{"github.com/yuin/goldmark", "go.opentelemetry.io/", "google.golang.org/protobuf/",
	"github.com/yagent/yagent/internal/markdown", "github.com/yagent/yagent/webui"}

// TestPlainProcessInits pins that a plain yagent process — `yagent
// --version`, which initialises every package the binary links, and the
// sandbox helper, re-executed for every confined shell command — never
// initialises goldmark, the OpenTelemetry SDK or the protobuf runtime, and
// that the helper takes the process over before any package of yagent's
// but its own (sandbox/helper's doc says why).
func TestPlainProcessInits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the yagent binary")
	}
	bin := build(t, "./cmd/yagent")
	for _, arg := range []string{"--version", "__yagent-sandbox-exec"} {
		got := inits(t, bin, arg)
		if len(got) == 0 {
			t.Fatalf("%s: no inittrace lines", arg)
		}
		for _, in := range got {
			for _, heavy := range heavyOnlyWhenUsed {
				if strings.HasPrefix(in.pkg, heavy) {
					t.Errorf("yagent %s initialises %s (%.3f ms)", arg, in.pkg, in.ms)
				}
			}
			if arg != "--version" && strings.HasPrefix(in.pkg, "github.com/yagent/yagent/") && in.pkg != "github.com/yagent/yagent/sandbox/helper" {
				t.Errorf("the sandbox helper initialises %s before it takes the process over", in.pkg)
			}
		}
	}
}
