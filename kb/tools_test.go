package kb

import (
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestToolsTable pins the seed's 21 tool names, their order and their
// annotations.
func TestToolsTable(t *testing.T) {
	want := []struct {
		name                              string
		readOnly, destructive, idempotent bool
	}{
		{"start_session", true, false, true},
		{"whoami", true, false, true},
		{"get_my_projects", true, false, true},
		{"list_notes", true, false, true},
		{"recent_activity", true, false, true},
		{"search", true, false, true},
		{"get_note", true, false, true},
		{"recall", true, false, true},
		{"create_note", false, false, false},
		{"remember_about_user", false, false, true},
		{"remember_about_project", false, false, true},
		{"edit_note", false, true, false},
		{"delete_note", false, true, true},
		{"link", false, false, true},
		{"move_note", false, false, true},
		{"rename_note", false, false, true},
		{"move_folder", false, false, false},
		{"rename_folder", false, false, false},
		{"rename_project", false, false, true},
		{"create_notes", false, false, false},
		{"link_many", false, false, true},
	}
	got := Tools()
	if len(got) != len(want) {
		t.Fatalf("%d tools; want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.ReadOnly != w.readOnly || g.Destructive != w.destructive || g.Idempotent != w.idempotent {
			t.Errorf("tool %d = %s ro=%v d=%v i=%v; want %+v", i, g.Name, g.ReadOnly, g.Destructive, g.Idempotent, w)
		}
		if len(g.Description) < 80 || strings.Contains(g.Description, "{{") {
			t.Errorf("%s: description %q is too short or templated", g.Name, g.Description)
		}
	}
	if !reflect.DeepEqual(Tools(), Tools()) {
		t.Error("Tools() is not deterministic")
	}
}

// TestToolDescriptions keeps tooldesc/*.md and the table in step.
func TestToolDescriptions(t *testing.T) {
	files, err := fs.Glob(toolDescFS, "tooldesc/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(f, "tooldesc/"), ".md"))
	}
	tools := toolNames()
	slices.Sort(names)
	slices.Sort(tools)
	if !slices.Equal(names, tools) {
		t.Errorf("description files %v; tools %v", names, tools)
	}
}

// TestToolSchemas generates every input and output schema the way the MCP
// SDK does, so the MCP layer can register the tools as they are.
func TestToolSchemas(t *testing.T) {
	for _, tool := range Tools() {
		for _, typ := range []reflect.Type{tool.Input, tool.Output} {
			s, err := jsonschema.ForType(typ, nil)
			if err != nil {
				t.Errorf("%s: schema of %v: %v", tool.Name, typ, err)
				continue
			}
			if s.Type != "object" {
				t.Errorf("%s: schema of %v has type %q; want object", tool.Name, typ, s.Type)
			}
			for name, p := range s.Properties {
				if typ == tool.Input && p.Description == "" {
					t.Errorf("%s: input field %s has no description", tool.Name, name)
				}
			}
		}
	}
}
