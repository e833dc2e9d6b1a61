package llmtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm/llmtest"
)

// TestParseErrors pins the messages a scenario author sees: each names the
// file, the line and the field, in the scenario's vocabulary.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"empty", ``, "parse scenario bad.yaml: empty scenario: want name and steps"},
		{"no steps", "name: x\n", "parse scenario bad.yaml: line 1: steps: no steps: a scenario needs at least one"},
		{"syntax", "steps:\n  - reply: {text: \"x\"\n", "parse scenario bad.yaml: line 2: did not find expected ',' or '}' (in the block starting on this line)"},
		{"tab", "steps:\n  - a: 1\n\tb: 2\n", "parse scenario bad.yaml: line 2: found a tab character that violates indentation"},
		{"duplicate key", "name: a\nname: b\nsteps: [{}]\n", `parse scenario bad.yaml: line 2: name: mapping key "name" already defined at line 1`},
		{"unknown top field", "name: x\nstep: []\n",
			`parse scenario bad.yaml: line 2: scenario: unknown field "step" (known: name, steps)`},
		{"unknown match field", "steps:\n  - match:\n      agnet: director\n    reply: {text: hi}\n",
			`parse scenario bad.yaml: line 3: steps[0].match: unknown field "agnet" (known: agent, contains, last_contains, last_role, has_tool, not_contains, after, wait)`},
		{"bad duration", "steps:\n  - latency: soon\n    reply: {text: hi}\n",
			`parse scenario bad.yaml: line 2: steps[0].latency: cannot use "soon" here: want a duration such as 20ms or 3s`},
		{"bad times type", "steps:\n  - reply: {text: hi}\n    times: many\n",
			`parse scenario bad.yaml: line 3: steps[0].times: cannot use "many" here: want an integer`},
		{"fault kind", "steps:\n  - reply: {text: hi}\n    fault:\n      kind: explode\n",
			`parse scenario bad.yaml: line 4: steps[0].fault.kind: unknown fault kind "explode" (want status, slow_first_byte, cut_stream)`},
		{"status range", "steps:\n  - fault: {kind: status, status: 200}\n",
			`parse scenario bad.yaml: line 2: steps[0].fault.status: status 200 is not an HTTP error (400-599)`},
		{"field of another kind", "steps:\n  - fault: {kind: cut_stream, delay: 1s}\n",
			`parse scenario bad.yaml: line 2: steps[0].fault.delay: delay applies only to kind slow_first_byte`},
		{"echo on another kind", "steps:\n  - fault: {kind: cut_stream, echo_request: true}\n",
			`parse scenario bad.yaml: line 2: steps[0].fault.echo_request: echo_request applies only to kind status`},
		{"slow without delay", "steps:\n  - fault: {kind: slow_first_byte}\n",
			`parse scenario bad.yaml: line 2: steps[0].fault.delay: slow_first_byte needs a positive delay, e.g. 3s`},
		{"duplicate id", "steps:\n  - id: a\n  - id: a\n",
			`parse scenario bad.yaml: line 3: steps[1].id: duplicate id "a" (first used by steps[0])`},
		{"after unknown", "steps:\n  - match: {after: nowhere}\n",
			`parse scenario bad.yaml: line 2: steps[0].match.after: no step has id "nowhere"`},
		{"wait without after", "steps:\n  - match: {wait: 1s}\n",
			`parse scenario bad.yaml: line 2: steps[0].match.wait: wait needs after (the step to wait for) and a positive duration`},
		{"bad role", "steps:\n  - match: {last_role: bot}\n",
			`parse scenario bad.yaml: line 2: steps[0].match.last_role: unknown role "bot" (want system, user, assistant, tool)`},
		{"bad regexp", "steps:\n  - capture:\n      ref: '(unclosed'\n",
			"parse scenario bad.yaml: line 3: steps[0].capture.ref: bad regexp: error parsing regexp: missing closing ): `(unclosed`"},
		{"uncaptured ref", "steps:\n  - reply:\n      text: \"see ${ref}\"\n",
			`parse scenario bad.yaml: line 3: steps[0].reply.text: ${ref} is never captured: add it to some step's capture`},
		{"both arguments", "steps:\n  - reply:\n      tool_calls:\n        - {name: t, arguments: {a: 1}, arguments_raw: '{}'}\n",
			`parse scenario bad.yaml: line 4: steps[0].reply.tool_calls[0].arguments_raw: give arguments or arguments_raw, not both`},
		{"tool without name", "steps:\n  - reply:\n      tool_calls:\n        - arguments: {a: 1}\n",
			`parse scenario bad.yaml: line 4: steps[0].reply.tool_calls[0]: tool call without a name`},
		{"times and repeat", "steps:\n  - times: 2\n    repeat: true\n",
			`parse scenario bad.yaml: line 2: steps[0].times: times and repeat: true contradict each other; keep one`},
		{"finish reason", "steps:\n  - reply: {finish_reason: done}\n",
			`parse scenario bad.yaml: line 2: steps[0].reply.finish_reason: unknown finish_reason "done" (want stop, length, tool_calls, content_filter, function_call, error)`},
		{"raw with text", "steps:\n  - reply:\n      text: hi\n      raw: '{}'\n",
			`parse scenario bad.yaml: line 4: steps[0].reply.raw: raw is a whole recorded answer: drop text, reasoning, tool_calls and finish_reason`},
		{"cached over prompt", "steps:\n  - usage: {prompt_tokens: 10, cached_tokens: 20}\n",
			`parse scenario bad.yaml: line 2: steps[0].usage.cached_tokens: cached_tokens exceeds prompt_tokens`},
		{"two documents", "steps: [{}]\n---\nsteps: [{}]\n",
			"parse scenario bad.yaml: more than one YAML document: keep one scenario per file"},
		{"several problems", "steps:\n  - fault: {kind: nope}\n  - match: {last_role: bot}\n",
			"parse scenario bad.yaml: line 2: steps[0].fault.kind: unknown fault kind \"nope\" (want status, slow_first_byte, cut_stream)\n" +
				"parse scenario bad.yaml: line 3: steps[1].match.last_role: unknown role \"bot\" (want system, user, assistant, tool)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := llmtest.Parse([]byte(tc.yaml), "bad.yaml")
			if err == nil {
				t.Fatalf("Parse(%q) succeeded; want %q", tc.yaml, tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("Parse(%q) error:\n got %s\nwant %s", tc.yaml, err, tc.want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	sc, err := llmtest.Parse([]byte("steps:\n  - reply: {text: hi}\n"), "dir/my-scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "my-scenario" {
		t.Errorf("Name = %q; want the file's base name", sc.Name)
	}
	if _, err := llmtest.Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("Load of a missing file: err = %v; want it to name the file", err)
	}
}

// TestExampleScenarios parses every scenario under testdata/scenarios and
// checks the convention that each starts with a comment saying what it
// guards.
func TestExampleScenarios(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, p := range paths {
		sc, err := llmtest.Load(p)
		if err != nil {
			t.Error(err)
			continue
		}
		if sc.Path != p {
			t.Errorf("Load(%s).Path = %q", p, sc.Path)
		}
		data, _ := os.ReadFile(p)
		if !strings.HasPrefix(string(data), "# ") || !strings.Contains(string(data), "Guards") {
			t.Errorf("%s: want a header comment saying what it guards (a line with \"Guards\")", p)
		}
	}
}
