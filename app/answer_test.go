package app

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnswerCheck: an answer matches --output-schema when it is one JSON
// value of the schema's shape, a single ``` fence (with or without a
// language tag) taken off; prose, two values and a value of the wrong
// shape each say why.
func TestAnswerCheck(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.json")
	if err := os.WriteFile(schema, []byte(`{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &Answer{SchemaFile: schema}
	if err := a.Load(io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ answer, want string }{
		{`{"n": 1}`, ""},
		{"  {\"n\": 1}\n", ""},
		{"```json\n{\"n\": 1}\n```", ""},
		{"```\n{\"n\": 1}\n```", ""},
		{"The answer is 1.", "not JSON"},
		{`{"n": 1} {"n": 2}`, "more than one JSON value"},
		{`{"n": "one"}`, "n"},
		{`{}`, "n"},
	} {
		got := a.check(tc.answer)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("check(%q) = %q; want %q", tc.answer, got, tc.want)
		}
	}
	if p := a.Prompt("describe it"); !strings.HasPrefix(p, "describe it\n\n") || !strings.HasSuffix(p, `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`) {
		t.Errorf("Prompt = %q; want the prompt, then the schema compacted", p)
	}
	if p := (&Answer{}).Prompt("describe it"); p != "describe it" {
		t.Errorf("without a schema Prompt = %q", p)
	}
}
