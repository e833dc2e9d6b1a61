package config

import (
	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestZeroMeansWhatDefaultsSay pins "one meaning of zero" (issue 13): every
// number of defaults.yaml (durations too) either is refused at 0, naming
// its key, or says on its own line what 0 means ("0 = …"). Libraries take
// these values as they are, so a 0 means there what it means here; a key
// that accepted an undocumented 0 is where a library would grow a default
// of its own.
func TestZeroMeansWhatDefaultsSay(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal(defaultsYAML, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	var walk func(n *yaml.Node, path []string)
	walk = func(n *yaml.Node, path []string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i].Value, n.Content[i+1]
			p := append(append([]string(nil), path...), key)
			switch {
			case len(p) == 1 && key == "mcp_servers":
				continue // the "*" template is not a server; servers' values are checked by TestMCPAndKBValuesChecked
			case val.Kind == yaml.MappingNode:
				walk(val, p)
				continue
			case val.Kind != yaml.ScalarNode || !isNumber(val):
				continue
			}
			checked++
			dotted := strings.Join(p, ".")
			_, err := load(t, nested(p, "0"), "")
			switch {
			case err != nil && !strings.Contains(err.Error(), dotted):
				t.Errorf("%s: 0 is refused, but the error does not name the key: %v", dotted, err)
			case err == nil && !strings.Contains(val.LineComment, "0 ="):
				t.Errorf("%s: 0 is accepted, but defaults.yaml does not say what it means on its line (write \"0 = …\", or refuse 0 in validate.go)", dotted)
			}
		}
	}
	walk(doc.Content[0], nil)
	if checked < 30 {
		t.Fatalf("checked %d numbers of defaults.yaml; the walk lost its way", checked)
	}
}

// isNumber reports an integer, a float or a duration.
func isNumber(n *yaml.Node) bool {
	if n.Tag == "!!int" || n.Tag == "!!float" {
		return true
	}
	_, err := ParseDuration(n.Value)
	return n.Tag == "!!str" && err == nil
}

// nested renders path: value as a YAML document.
func nested(path []string, value string) string {
	var b strings.Builder
	for i, k := range path {
		b.WriteString(strings.Repeat("  ", i) + k + ":")
		if i < len(path)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString(" " + value + "\n")
	return b.String()
}

// TestDefaultsParsedFast pins Load's shortcut for its own file: without
// its comments and the known-fields probe, defaults.yaml decodes to the
// same configuration as through the full check user files get, which
// passes.
func TestDefaultsParsedFast(t *testing.T) {
	full, err := parseLayer("defaults.yaml", defaultsYAML)
	if err != nil {
		t.Fatalf("defaults.yaml fails the check user files get: %v", err)
	}
	fast, err := parseDefaults()
	if err != nil {
		t.Fatal(err)
	}
	var want, got Config
	if err := full.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if err := fast.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults without comments decode differently (-full +fast):\n%s", diff)
	}
	for in, want := range map[string]string{
		"a: 1 # one\n":            "a: 1\n",
		"# only\nb: x\n":          "b: x\n",
		"c: \"x # not\" # yes\n":  "c: \"x # not\"\n",
		"d: 'it''s # in' # out\n": "d: 'it''s # in'\n",
		"e: a#b\n":                "e: a#b\n",
		"  - [x, y]   # list\n\n": "  - [x, y]\n",
	} {
		if got := string(withoutComments([]byte(in))); got != want {
			t.Errorf("withoutComments(%q) = %q; want %q", in, got, want)
		}
	}
}
