package toolspec

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "accept the current schemas as the golden file")

func TestSchemasLoad(t *testing.T) {
	if len(Names()) == 0 {
		t.Fatal("no tools in schemas.json")
	}
	for _, name := range Names() {
		s := MustLookup(name)
		if s.Description == "" || len(s.Parameters) == 0 {
			t.Errorf("%s: empty description or parameters", name)
		}
		if _, err := s.resolve(); err != nil {
			t.Errorf("%s: the schema does not compile: %v", name, err)
		}
	}
}

// TestSchemasGolden fails on any schema change until it is reviewed and
// accepted with -update: what the model is told is part of the product,
// and a silent change also breaks every user's prompt cache.
func TestSchemasGolden(t *testing.T) {
	var b strings.Builder
	for _, name := range Names() {
		s := MustLookup(name)
		line, err := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{s.Name, s.Description, s.Parameters})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join("testdata", t.Name(), "tools.jsonl")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./toolspec -update to create it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("tool schemas changed; review the diff and accept with go test ./toolspec -update\n--- got\n%s\n--- want\n%s", b.String(), want)
	}
}

// TestAgentExitStatusEnum pins SPEC §5 constraint 3: agent_exit offers
// only ok, partial and error; degraded is decided by the replay side.
func TestAgentExitStatusEnum(t *testing.T) {
	var schema struct {
		Properties struct {
			Status struct {
				Enum []string `json:"enum"`
			} `json:"status"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(MustLookup("agent_exit").Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Properties.Status.Enum; !slices.Equal(got, []string{"ok", "partial", "error"}) {
		t.Errorf("agent_exit status enum = %q; want exactly ok, partial, error", got)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		tool, args string
		wantErr    string
	}{
		{"read_file", `{"path":"go.mod"}`, ""},
		{"read_file", ``, "missing properties"},
		{"read_file", `{"path":"x","offset":1,"limit":10}`, ""},
		{"read_file", `{"path":1}`, "type"},
		{"read_file", `{"pth":"x","path":"y"}`, "additional properties"},
		{"read_file", `{"path":"x"`, "not valid JSON"},
		{"read_file", `"go.mod"`, "must be a JSON object"},
		{"read_file", `{"path":"x"} {"path":"y"}`, "more than one JSON value"},
		{"agent_exit", `{"status":"degraded","conclusion":"c"}`, "enum"},
		{"agent_exit", `{"status":"ok","conclusion":"c","facts":["a"]}`, ""},
		{"shell", `{"argv":[]}`, "minItems"},
		{"delegate", `{"agent":"explorer","task":"t","context_refs":["a"]}`, ""},
	}
	for _, tt := range tests {
		_, err := MustLookup(tt.tool).Validate(json.RawMessage(tt.args))
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("Validate(%s, %s) = %v; want error containing %q", tt.tool, tt.args, err, tt.wantErr)
		}
	}
}

func FuzzValidate(f *testing.F) {
	for _, s := range []string{`{"path":"x"}`, `{`, `[]`, `{"path":"x","limit":1e400}`, `null`} {
		f.Add(s)
	}
	spec := MustLookup("read_file")
	f.Fuzz(func(t *testing.T, args string) {
		obj, err := spec.Validate(json.RawMessage(args))
		if err == nil && obj == nil {
			t.Fatal("Validate accepted arguments but returned no object")
		}
	})
}
