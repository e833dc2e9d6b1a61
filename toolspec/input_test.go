package toolspec

import (
	"reflect"
	"strings"
	"testing"
)

// TestCheckInput pins what an arguments struct must agree on with its
// schemas.json entry: property names, the required set, JSON types (item
// types too) and integer defaults; each mismatch is named.
func TestCheckInput(t *testing.T) {
	type good struct {
		Path   string `json:"path"`
		Offset int    `json:"offset,omitempty" default:"1"`
		Limit  int    `json:"limit,omitempty" default:"400"`
	}
	type missing struct {
		Path   string `json:"path"`
		Offset int    `json:"offset,omitempty" default:"1"`
	}
	type extra struct {
		Path   string `json:"path"`
		Offset int    `json:"offset,omitempty" default:"1"`
		Limit  int    `json:"limit,omitempty" default:"400"`
		Lines  int    `json:"lines,omitempty"`
	}
	type wrongType struct {
		Path   string `json:"path"`
		Offset string `json:"offset,omitempty"`
		Limit  int    `json:"limit,omitempty" default:"400"`
	}
	type requiredOptional struct {
		Path   string `json:"path,omitempty"`
		Offset int    `json:"offset,omitempty" default:"1"`
		Limit  int    `json:"limit,omitempty" default:"400"`
	}
	type optionalRequired struct {
		Path   string `json:"path"`
		Offset int    `json:"offset" default:"1"`
		Limit  int    `json:"limit,omitempty" default:"400"`
	}
	type wrongDefault struct {
		Path   string `json:"path"`
		Offset int    `json:"offset,omitempty" default:"1"`
		Limit  int    `json:"limit,omitempty" default:"200"`
	}
	type noDefault struct {
		Path   string `json:"path"`
		Offset int    `json:"offset,omitempty" default:"1"`
		Limit  int    `json:"limit,omitempty"`
	}
	type stringDefault struct {
		Path string `json:"path,omitempty" default:"1"`
	}
	type noTag struct {
		Path   string
		Offset int `json:"offset,omitempty" default:"1"`
		Limit  int `json:"limit,omitempty" default:"400"`
	}
	type refsOK struct {
		Refs []string `json:"refs"`
	}
	type refsWrongItems struct {
		Refs []int `json:"refs"`
	}
	tests := []struct {
		tool    string
		typ     reflect.Type
		wantErr string
	}{
		{"read_file", reflect.TypeFor[good](), ""},
		{"context_pack", reflect.TypeFor[refsOK](), ""},
		{"read_file", reflect.TypeFor[missing](), `property "limit" has no field`},
		{"read_file", reflect.TypeFor[extra](), `schemas.json has no property "lines"`},
		{"read_file", reflect.TypeFor[wrongType](), `field Offset: the Go type string is a JSON string; schemas.json says "integer"`},
		{"read_file", reflect.TypeFor[requiredOptional](), `"path" is required in schemas.json; drop omitempty`},
		{"read_file", reflect.TypeFor[optionalRequired](), `"offset" is optional in schemas.json; tag it omitempty`},
		{"read_file", reflect.TypeFor[wrongDefault](), `default "200", but the description of "limit" says "Default 400."`},
		{"read_file", reflect.TypeFor[noDefault](), `tag the field default:"400"`},
		{"list_dir", reflect.TypeFor[stringDefault](), "a default tag is only for integers"},
		{"read_file", reflect.TypeFor[noTag](), "field Path has no json tag"},
		{"context_pack", reflect.TypeFor[refsWrongItems](), "items: the Go type int is a JSON integer"},
		{"read_file", reflect.TypeFor[string](), "is not a struct"},
		{"no_such_tool", reflect.TypeFor[good](), `no schema for tool "no_such_tool"`},
	}
	for _, tt := range tests {
		err := CheckInput(tt.tool, tt.typ)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("CheckInput(%s, %s) = %v; want error containing %q", tt.tool, tt.typ, err, tt.wantErr)
		}
	}
}
