package yamlstrict

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

type dur time.Duration

func (d *dur) UnmarshalYAML(n *yaml.Node) error { return nil }

type inner struct {
	N int `yaml:"n"`
}

type doc struct {
	Count  int              `yaml:"count"`
	Ratio  float64          `yaml:"ratio"`
	Items  []inner          `yaml:"items"`
	ByName map[string]inner `yaml:"by_name"`
	Ptr    *inner           `yaml:"ptr"`
	Wait   dur              `yaml:"wait"`
	Any    map[string]any   `yaml:"any"`
	inner  `yaml:",inline"`
	Plain  uint
}

// TestFloatsInIntegers: every float that would land in an integer is
// found, with its path and line, through lists, maps, pointers, inline
// structs and aliases; floats in float fields, in types with their own
// UnmarshalYAML and in free-form values are not.
func TestFloatsInIntegers(t *testing.T) {
	src := `count: 2.5
ratio: 0.5
items: [{n: 1}, {n: 1e3}]
by_name: {a: {n: 7.0}}
ptr: &p {n: .5}
again: *p
wait: 1.5
any: {x: 2.5}
n: 3.25
plain: 4.0
`
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range FloatsInIntegers(&n, reflect.TypeFor[doc]()) {
		got = append(got, fmt.Sprintf("%s=%s@%d", f.Path, f.Value, f.Line))
	}
	want := []string{"count=2.5@1", "items[1].n=1e3@3", "by_name.a.n=7.0@4", "ptr.n=.5@5", "n=3.25@9", "plain=4.0@10"}
	if !slices.Equal(got, want) {
		t.Errorf("FloatsInIntegers = %v; want %v", got, want)
	}
}

// TestJSONValue: whatever yaml.v3 decodes into `any` — keys that are
// numbers, booleans or dates, nested under lists — marshals to JSON.
func TestJSONValue(t *testing.T) {
	src := "a: {1: one, true: yes}\nb: [{2026-01-02: x}]\nc: 2026-01-02T03:04:05Z\n"
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(JSONValue(v))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"1":"one","true":"yes"},"b":[{"2026-01-02 00:00:00 +0000 UTC":"x"}],"c":"2026-01-02T03:04:05Z"}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestList: a front-matter list is read either way Claude Code writes it
// (a sequence or one comma-separated string); absent or null is nil, and
// a mapping or a nested list is an error naming the line and what.
func TestList(t *testing.T) {
	tests := []struct {
		src     string
		want    []string
		wantErr string
	}{
		{src: "other: 1\n", want: nil},
		{src: "v: null\n", want: nil},
		{src: "v: ~\n", want: nil},
		{src: "v: Read, Grep ,,Bash\n", want: []string{"Read", "Grep", "Bash"}},
		{src: "v: ''\n", want: []string{}},
		{src: "v: [Read, Edit]\n", want: []string{"Read", "Edit"}},
		{src: "v:\n  - a\n  - b\n", want: []string{"a", "b"}},
		{src: "\nv: {a: 1}\n", wantErr: "line 2: want a list of tool names or a comma-separated string"},
		{src: "v: [[a]]\n", wantErr: "line 1: want a list of tool names"},
	}
	for _, tt := range tests {
		var fm struct {
			V yaml.Node `yaml:"v"`
		}
		if err := yaml.Unmarshal([]byte(tt.src), &fm); err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		got, err := List(&fm.V, "tool names")
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: err = %v; want %q", tt.src, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: List = %#v, %v; want %#v", tt.src, got, err, tt.want)
		}
	}
}
