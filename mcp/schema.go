package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/yagent/yagent/kb"
)

// kbSchema holds the JSON schemas of one intent tool, generated from its
// kb.ToolInfo Input and Output types the way the SDK's typed AddTool does.
type kbSchema struct {
	In, Out       *jsonschema.Schema
	InRaw, OutRaw json.RawMessage
}

// generated is one type's schema, generated once.
type generated struct {
	schema *jsonschema.Schema
	raw    json.RawMessage
	err    error
}

// schemas generates each type's schema at its first use and keeps it: a
// session's agents use two or three of the 42 (generating all of them cost
// several milliseconds at every start), `mcp serve` uses all.
var schemas = struct {
	mu sync.Mutex
	m  map[reflect.Type]generated
}{m: map[reflect.Type]generated{}}

func schemaOf(t reflect.Type) (*jsonschema.Schema, json.RawMessage, error) {
	schemas.mu.Lock()
	defer schemas.mu.Unlock()
	g, ok := schemas.m[t]
	if !ok {
		g.schema, g.raw, g.err = schemaFor(t)
		schemas.m[t] = g
	}
	return g.schema, g.raw, g.err
}

func schemaFor(t reflect.Type) (*jsonschema.Schema, json.RawMessage, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		return nil, nil, err
	}
	if s.Type != "object" {
		return nil, nil, fmt.Errorf("%v gives a schema of type %q, not object", t, s.Type)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	return s, raw, nil
}

// mustKBSchema returns a tool's input and output schemas; kb's
// TestToolSchemas and this package's tests keep generation from failing.
func mustKBSchema(t kb.ToolInfo) kbSchema {
	var s kbSchema
	s.In, s.InRaw = mustSchema(t.Name, "input", t.Input)
	s.Out, s.OutRaw = mustSchema(t.Name, "output", t.Output)
	return s
}

func mustSchema(tool, what string, t reflect.Type) (*jsonschema.Schema, json.RawMessage) {
	s, raw, err := schemaOf(t)
	if err != nil {
		panic(fmt.Sprintf("mcp: %s schema of %s: %v", what, tool, err))
	}
	return s, raw
}
