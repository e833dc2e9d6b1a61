// Package yamlstrict walks a YAML node tree along the Go type it decodes
// into, so a reader can judge each value by the field it lands in — what
// yaml.v3 does not do: it silently truncates a float decoded into an
// integer (max_steps: 2.5 becomes 2), and its type errors name a line but
// not the field.
package yamlstrict

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Path is where a node sits: mapping keys and sequence indexes ("[2]").
type Path []string

// String renders the path as a.b[2].c.
func (p Path) String() string {
	var b strings.Builder
	for i, el := range p {
		if i > 0 && !strings.HasPrefix(el, "[") {
			b.WriteByte('.')
		}
		b.WriteString(el)
	}
	return b.String()
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// Walk calls visit for every node under n with the Go type it decodes
// into, as yaml.v3 decodes it: mapping keys to struct fields by their yaml
// tag (inline structs included), map values, slice elements, through
// pointers and aliases. It does not descend into a type with its own
// UnmarshalYAML or into interface values; keys that name no field are
// left to the decoder's own check.
func Walk(n *yaml.Node, t reflect.Type, visit func(p Path, n *yaml.Node, t reflect.Type)) {
	walk(nil, n, t, visit, 0)
}

func walk(p Path, n *yaml.Node, t reflect.Type, visit func(Path, *yaml.Node, reflect.Type), depth int) {
	if n == nil || depth > 64 {
		return
	}
	for n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode {
		walk(p, n.Alias, t, visit, depth+1)
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	visit(p, n, t)
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		fields := fieldsOf(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if ft, ok := fields[k]; ok {
				walk(append(p[:len(p):len(p)], k), n.Content[i+1], ft, visit, depth+1)
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			walk(append(p[:len(p):len(p)], n.Content[i].Value), n.Content[i+1], t.Elem(), visit, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, c := range n.Content {
			walk(append(p[:len(p):len(p)], "["+strconv.Itoa(i)+"]"), c, t.Elem(), visit, depth+1)
		}
	}
}

// fieldsOf maps the YAML keys of struct t to their field types, inline
// structs' keys included.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		switch {
		case name == "-":
			continue
		case strings.Contains(","+opts+",", ",inline,"):
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range fieldsOf(ft) {
					out[k] = v
				}
			}
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// FloatInInteger is a number with a fraction or an exponent (a YAML
// float) where an integer is expected.
type FloatInInteger struct {
	Path  Path
	Line  int
	Value string
}

// FloatsInIntegers lists every float under n that decodes into an
// integer field of t: yaml.v3 would truncate it silently. A type with its
// own UnmarshalYAML reads its value itself and is left alone.
func FloatsInIntegers(n *yaml.Node, t reflect.Type) []FloatInInteger {
	var out []FloatInInteger
	Walk(n, t, func(p Path, n *yaml.Node, t reflect.Type) {
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!float" || t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
			return
		}
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out = append(out, FloatInInteger{Path: append(Path(nil), p...), Line: n.Line, Value: n.Value})
		}
	})
	return out
}

// JSONValue turns what yaml.v3 decoded into `any` into values
// encoding/json accepts: mapping keys that are not strings (numbers,
// booleans, dates) become their text. Maps and slices are converted in
// place. Dates stay time.Time, which JSON writes as RFC 3339.
func JSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = JSONValue(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = JSONValue(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = JSONValue(e)
		}
		return v
	}
	return v
}

// List reads a front-matter value Claude Code writes either way: a list,
// or one string of comma-separated entries (tools: Read, Grep). Absent or
// null is nil; anything else is an error naming its line and what
// (e.g. "tool names").
func List(n *yaml.Node, what string) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		out := []string{}
		for _, part := range strings.Split(n.Value, ",") {
			if p := strings.TrimSpace(part); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := []string{}
		if err := n.Decode(&out); err != nil {
			return nil, fmt.Errorf("line %d: want a list of %s", n.Line, what)
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: want a list of %s or a comma-separated string", n.Line, what)
}
