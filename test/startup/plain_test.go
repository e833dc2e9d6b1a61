package startup

import (
	"bytes"
	"debug/buildinfo"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/testio"
)

// heavyOnlyWhenUsed are the packages no process initialises (they are not
// linked, or build their values on first use), by import-path prefix:
// goldmark was the web view's (0.9 ms of every start; internal/markdown
// renders the pages now and builds its expressions on first use), the
// OpenTelemetry SDK and the protobuf runtime telemetry's (telemetry now
// records and encodes its spans itself), YAML v2 adrg/frontmatter's
// (its regular expressions, compiled at every start, for agent definitions
// that blackboard.SplitFrontMatter now splits the same way).
var heavyOnlyWhenUsed = []string{"github.com/yuin/goldmark", "go.opentelemetry.io/", "google.golang.org/protobuf/",
	"gopkg.in/yaml.v2", "gopkg.in/yaml%2ev2", "github.com/adrg/frontmatter",
	"github.com/yagent/yagent/internal/markdown", "github.com/yagent/yagent/webui"}

// TestPlainProcess builds the binary once, with the linker's dependency
// dump, and pins what every yagent process pays:
//
//   - inits: a plain process — `yagent --version`, which initialises every
//     package the binary links, and the sandbox helper, re-executed for
//     every confined shell command — never initialises goldmark, the
//     OpenTelemetry SDK or the protobuf runtime, and the helper takes the
//     process over before any package of yagent's but its own
//     (sandbox/helper's doc says why) — with cgo, before any package at
//     all (its C helper runs before Go's runtime starts);
//   - methods: nothing calls a method by a name known only at run time
//     (reflect's MethodByName, as text/template and html/template do): one
//     such call makes the linker keep every exported method of every type
//     that reaches an interface, 21 MB of the 70 MB stripped binary before
//     cobra's templates and the web view's html/template went (2026-12-01).
func TestPlainProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the yagent binary")
	}
	bin := filepath.Join(t.TempDir(), "yagent")
	var dump bytes.Buffer // go build passes on the linker's output
	cmd := testio.Command(t, 5*time.Minute, "go", "build", "-ldflags=-dumpdep", "-o", bin, "./cmd/yagent")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Stdout, cmd.Stderr = &dump, &dump
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build ./cmd/yagent: %v\n%.4000s", err, dump.String())
	}
	t.Run("inits", func(t *testing.T) { plainInits(t, bin) })
	t.Run("methods", func(t *testing.T) {
		if dump.Len() == 0 {
			t.Fatal("the linker printed no dependency dump")
		}
		for line := range strings.Lines(dump.String()) {
			if strings.Contains(line, "<ReflectMethod>") {
				t.Errorf("the linker keeps every exported method: %s", strings.TrimSpace(line))
			}
		}
	})
}

func plainInits(t *testing.T, bin string) {
	for _, arg := range []string{"--version", "__yagent-sandbox-exec"} {
		got := inits(t, bin, arg)
		if arg != "--version" && cgoBuild(t, bin) {
			// The C helper (sandbox/helper/nsexec.c) takes the process
			// over in a constructor, before Go's runtime starts: no
			// package initialises at all.
			if len(got) != 0 {
				t.Errorf("the sandbox helper initialised %d packages (first %s): the C helper did not take the process over", len(got), got[0].pkg)
			}
			continue
		}
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

// cgoBuild reports whether bin was built with cgo (its build record).
func cgoBuild(t *testing.T, bin string) bool {
	t.Helper()
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("build info of %s: %v", bin, err)
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" {
			return s.Value == "1"
		}
	}
	return false
}
