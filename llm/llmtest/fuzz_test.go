package llmtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseScenario checks that Parse never panics, that every error names
// the input, and that whatever it accepts can be served and rendered.
func FuzzParseScenario(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("steps:\n  - reply: {tool_calls: [{name: t, arguments: &a [*a]}]}\n"))
	f.Add([]byte("steps: [{capture: {x: '(a)'}, reply: {text: '${x}'}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data, "fuzz.yaml")
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "parse scenario fuzz.yaml: ") {
					t.Fatalf("error line %q does not name the input", line)
				}
			}
			return
		}
		if ps := sc.validate(); len(ps) > 0 {
			t.Fatalf("Parse accepted a scenario validate rejects: %v", ps)
		}
		for i := range sc.Steps {
			for _, tc := range sc.Steps[i].Reply.ToolCalls {
				if tc.Arguments.Kind != 0 {
					if _, err := nodeJSON(&tc.Arguments, func(s string) string { return s }); err != nil {
						t.Fatalf("accepted arguments that do not render: %v", err)
					}
				}
			}
		}
	})
}
