package llmtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

func TestWordsAndPieces(t *testing.T) {
	if diff := cmp.Diff([]string{"  ", "lead ", "two\n", "é"}, words("  lead two\né")); diff != "" {
		t.Errorf("words (-want +got):\n%s", diff)
	}
	got := pieces(`{"k":"✓✓✓"}`, 7)
	if strings.Join(got, "") != `{"k":"✓✓✓"}` {
		t.Errorf("pieces do not concatenate back: %q", got)
	}
	for _, p := range got {
		if len(p) > 7 || !utf8Valid(p) {
			t.Errorf("piece %q longer than 7 bytes or splits a rune", p)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestNodeJSONKeepsOrderAndTypes(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("{z: 1, a: [true, null, 2.5, '7', x], m: {k: 0x10}, s: \"<${v}>\"}"), &n); err != nil {
		t.Fatal(err)
	}
	got, err := nodeJSON(&n, func(s string) string { return strings.ReplaceAll(s, "${v}", `"q"`) })
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"a":[true,null,2.5,"7","x"],"m":{"k":16},"s":"<\"q\">"}`
	if got != want {
		t.Errorf("nodeJSON = %s; want %s", got, want)
	}
}

func TestNodeJSONBoundsAliasExpansion(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		doc += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	if _, err := nodeJSON(&n, nil); err == nil || !strings.Contains(err.Error(), "aliases") {
		t.Errorf("nodeJSON of 10^8 values: err = %v; want the expansion refused", err)
	}
}
