package toolspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// property is the part of a parameter's schema an input struct must match.
type property struct {
	Type        string    `json:"type"`
	Description string    `json:"description"`
	Items       *property `json:"items"`
}

// defaultInText finds the default an integer parameter's description
// states ("Default 400.").
var defaultInText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bDefault (-?[0-9]+)\.`) })

// CheckInput checks that t, the Go struct a built-in tool's arguments
// decode into, declares exactly the tool's schema in schemas.json:
//   - one exported field per property, named by its json tag;
//   - `omitempty` on exactly the properties the schema does not require;
//   - Go types matching JSON types (string, boolean, integer for int
//     kinds, number for floats, array for slices, item types too);
//   - a `default:"N"` tag on an integer field exactly when the property's
//     description says "Default N." (the tool fills N in for an absent
//     argument).
//
// Descriptions, bounds and enums stay in schemas.json. The error lists
// every mismatch.
func CheckInput(name string, t reflect.Type) error {
	s, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("toolspec: no schema for tool %q in schemas.json", name)
	}
	var schema struct {
		Properties map[string]property `json:"properties"`
		Required   []string            `json:"required"`
	}
	if err := json.Unmarshal(s.Parameters, &schema); err != nil {
		return fmt.Errorf("toolspec: %s: %w", name, err)
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("toolspec: %s: arguments type %s is not a struct", name, t)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("toolspec: %s (%s): %s", name, t, fmt.Sprintf(format, args...)))
	}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		if !ok {
			bad("field %s has no json tag", f.Name)
			continue
		}
		prop, opts, _ := strings.Cut(tag, ",")
		if prop == "-" {
			continue
		}
		seen[prop] = true
		p, ok := schema.Properties[prop]
		if !ok {
			bad("field %s: schemas.json has no property %q", f.Name, prop)
			continue
		}
		optional := slices.Contains(strings.Split(opts, ","), "omitempty")
		if required := slices.Contains(schema.Required, prop); required == optional {
			if required {
				bad("field %s: %q is required in schemas.json; drop omitempty", f.Name, prop)
			} else {
				bad("field %s: %q is optional in schemas.json; tag it omitempty", f.Name, prop)
			}
		}
		if err := matchType(f.Type, p); err != nil {
			bad("field %s: %v", f.Name, err)
		}
		def, hasDef := f.Tag.Lookup("default")
		var said string
		if m := defaultInText().FindStringSubmatch(p.Description); m != nil && p.Type == "integer" {
			said = m[1]
		}
		switch {
		case hasDef && p.Type != "integer":
			bad("field %s: a default tag is only for integers", f.Name)
		case hasDef && def != said:
			bad("field %s: default %q, but the description of %q says %q", f.Name, def, prop, "Default "+said+".")
		case !hasDef && said != "":
			bad("field %s: the description of %q says \"Default %s.\"; tag the field default:%q", f.Name, prop, said, said)
		}
	}
	for prop := range schema.Properties {
		if !seen[prop] {
			bad("schemas.json property %q has no field", prop)
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// matchType checks a Go type against a property's JSON type.
func matchType(t reflect.Type, p property) error {
	want := ""
	switch t.Kind() {
	case reflect.String:
		want = "string"
	case reflect.Bool:
		want = "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		want = "integer"
	case reflect.Float32, reflect.Float64:
		want = "number"
	case reflect.Slice:
		want = "array"
	default:
		return fmt.Errorf("the Go type %s has no JSON counterpart here", t)
	}
	if p.Type != want {
		return fmt.Errorf("the Go type %s is a JSON %s; schemas.json says %q", t, want, p.Type)
	}
	if want == "array" {
		if p.Items == nil {
			return fmt.Errorf("schemas.json declares no items for the array")
		}
		if err := matchType(t.Elem(), *p.Items); err != nil {
			return fmt.Errorf("items: %w", err)
		}
	}
	return nil
}
