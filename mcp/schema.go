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

// kbSchemas generates every tool's schemas once.
var kbSchemas = sync.OnceValues(func() (map[string]kbSchema, error) {
	out := map[string]kbSchema{}
	for _, t := range kb.Tools() {
		var s kbSchema
		var err error
		if s.In, s.InRaw, err = schemaFor(t.Input); err != nil {
			return nil, fmt.Errorf("input schema of %s: %w", t.Name, err)
		}
		if s.Out, s.OutRaw, err = schemaFor(t.Output); err != nil {
			return nil, fmt.Errorf("output schema of %s: %w", t.Name, err)
		}
		out[t.Name] = s
	}
	return out, nil
})

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

// mustKBSchema returns a tool's schemas; kb's TestToolSchemas and this
// package's tests keep generation from failing.
func mustKBSchema(name string) kbSchema {
	all, err := kbSchemas()
	if err != nil {
		panic("mcp: " + err.Error())
	}
	s, ok := all[name]
	if !ok {
		panic("mcp: no kb tool " + name)
	}
	return s
}
