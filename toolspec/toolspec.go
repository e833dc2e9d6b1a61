// Package toolspec holds the JSON schemas of every built-in tool
// (schemas.json, embedded, golden-tested) and validates a tool call's
// arguments against its schema before the tool runs.
//
// The schemas are the single source of truth for what the model is told:
// names, descriptions and parameters are sent byte for byte, so a stable file
// keeps the prompt prefix cacheable, and any change to it must be reviewed
// (the golden test fails until it is accepted with -update).
package toolspec

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed schemas.json
var schemasJSON []byte

// Spec is one tool's declaration.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`

	resolve func() (*jsonschema.Resolved, error) // compiles Parameters once
}

var (
	loadOnce sync.Once
	specs    map[string]*Spec
	order    []string
	loadErr  error
)

func load() {
	var file struct {
		Version int     `json:"version"`
		Tools   []*Spec `json:"tools"`
	}
	if loadErr = json.Unmarshal(schemasJSON, &file); loadErr != nil {
		loadErr = fmt.Errorf("toolspec: schemas.json: %w", loadErr)
		return
	}
	specs = map[string]*Spec{}
	for _, s := range file.Tools {
		if _, dup := specs[s.Name]; dup {
			loadErr = fmt.Errorf("toolspec: schemas.json: tool %q declared twice", s.Name)
			return
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, s.Parameters); err != nil {
			loadErr = fmt.Errorf("toolspec: %s: %w", s.Name, err)
			return
		}
		s.Parameters = buf.Bytes()
		s.resolve = sync.OnceValues(func() (*jsonschema.Resolved, error) { return Compile(s.Parameters) })
		specs[s.Name] = s
		order = append(order, s.Name)
	}
	sort.Strings(order)
}

// Compile resolves a JSON schema for validation (also used for tools whose
// schemas come from elsewhere, e.g. MCP servers).
func Compile(schema json.RawMessage) (*jsonschema.Resolved, error) {
	var js jsonschema.Schema
	if err := json.Unmarshal(schema, &js); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	r, err := js.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema: %w", err)
	}
	return r, nil
}

// Lookup returns the spec of a built-in tool.
func Lookup(name string) (*Spec, bool) {
	loadOnce.Do(load)
	if loadErr != nil {
		panic(loadErr) // the embedded file is checked by TestSchemasLoad
	}
	s, ok := specs[name]
	return s, ok
}

// MustLookup returns the spec of a built-in tool or panics: built-in tools
// are declared in code (agents.NewTool), and every test that builds one
// catches a missing name.
func MustLookup(name string) *Spec {
	s, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("toolspec: no schema for built-in tool %q", name))
	}
	return s
}

// Names returns every built-in tool name, sorted.
func Names() []string {
	loadOnce.Do(load)
	return append([]string(nil), order...)
}

// Resolved returns the spec's compiled schema, shared by every tool built
// from it (it is only read). It is compiled at the first call, once, however
// many goroutines ask at the same time: compiling all the built-in schemas
// cost milliseconds at every start of the process, and a session calls few
// of its tools. TestSchemasLoad compiles every one.
func (s *Spec) Resolved() *jsonschema.Resolved {
	r, err := s.resolve()
	if err != nil {
		panic(fmt.Sprintf("toolspec: %s: %v", s.Name, err)) // TestSchemasLoad compiles every schema
	}
	return r
}

// Compiled is Resolved with the compile error returned, not raised.
func (s *Spec) Compiled() (*jsonschema.Resolved, error) { return s.resolve() }

// Validate checks arguments (the raw JSON the model sent) against the spec's
// schema. The error is written for the model: it says what to fix.
func (s *Spec) Validate(args json.RawMessage) (map[string]any, error) {
	return ValidateWith(s.Resolved(), args)
}

// ValidateWith checks arguments against a compiled schema.
func ValidateWith(r *jsonschema.Resolved, args json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON (%v): send a JSON object", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("arguments hold more than one JSON value: send one JSON object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(v))
	}
	// jsonschema-go validates float64 numbers; re-decode without UseNumber.
	var plain map[string]any
	if err := json.Unmarshal(args, &plain); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON (%v)", err)
	}
	if r != nil {
		if err := r.Validate(plain); err != nil {
			return nil, fmt.Errorf("arguments do not match the schema: %s", strings.TrimPrefix(err.Error(), "validating root: "))
		}
	}
	return obj, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}
