package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Call runs the tool name with JSON arguments for c and returns its JSON
// result. A mistake the caller can fix (unknown tool, bad or unknown
// arguments, access, conflicts) comes back as an error with a code
// (ErrorCode); any other error is an infrastructure failure.
func (s *Store) Call(ctx context.Context, c Caller, name string, args []byte) ([]byte, error) {
	var d *toolDef
	for _, t := range toolDefs() {
		if t.Name == name {
			d = &t
			break
		}
	}
	if d == nil {
		return nil, invalidf("unknown tool %q; the tools are %s", name, strings.Join(toolNames(), ", "))
	}
	if !d.ReadOnly {
		if err := c.requireWrite(name); err != nil {
			return nil, err
		}
	}
	out, err := d.call(ctx, s, c, args)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", name, err)
	}
	return b, nil
}

// decodeArgs checks args against the fields of the struct v points to
// (unknown and missing required fields are named) and decodes them.
func decodeArgs(tool string, args []byte, v any) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return invalidf("%s: arguments are not valid JSON (%v); send one JSON object", tool, err)
	}
	if _, ok := raw.(map[string]any); !ok {
		return invalidf("%s: arguments must be a JSON object", tool)
	}
	if err := checkFields(tool, raw, reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	dec = json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return invalidf("%s: argument %s must be %s, not %s", tool, te.Field, jsonKind(te.Type), te.Value)
		}
		return invalidf("%s: arguments do not fit (%v)", tool, err)
	}
	return nil
}

type fieldInfo struct {
	name     string
	required bool
	desc     string
	typ      reflect.Type
}

func structFields(t reflect.Type) []fieldInfo {
	var out []fieldInfo
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		required := !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero")
		out = append(out, fieldInfo{name: name, required: required, desc: f.Tag.Get("jsonschema"), typ: f.Type})
	}
	return out
}

// checkFields walks a decoded JSON value along type t and reports the first
// unknown or missing field with what is accepted instead.
func checkFields(tool string, v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil // the decoder reports the type mismatch
		}
		fields := structFields(t)
		byName := map[string]fieldInfo{}
		var names []string
		for _, f := range fields {
			byName[f.name] = f
			names = append(names, f.name)
		}
		for key := range obj {
			if _, ok := byName[key]; !ok {
				accepted := "none"
				if len(names) > 0 {
					accepted = strings.Join(names, ", ")
				}
				return invalidf("%s: unknown argument %q%s; accepted arguments: %s", tool, key, at(path), accepted)
			}
		}
		for _, f := range fields {
			val, present := obj[f.name]
			if !present {
				if f.required {
					return invalidf("%s: missing required argument %q%s (%s)", tool, f.name, at(path), f.desc)
				}
				continue
			}
			if err := checkFields(tool, val, f.typ, join(path, f.name)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, e := range arr {
			if err := checkFields(tool, e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return " in " + path
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}
