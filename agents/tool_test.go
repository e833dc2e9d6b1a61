package agents

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestNewTool pins how a built-in tool is declared: its description and
// schema come from schemas.json, its arguments reach run decoded into In
// with the `default` tags filled in for absent ones, and an In that does
// not match the schema is refused when the tool is built.
func TestNewTool(t *testing.T) {
	var got readFileIn
	tool := NewTool("read_file", "fs", Core, func(_ context.Context, _ *Call, in readFileIn) (Result, error) {
		got = in
		return Result{Content: "ok"}, nil
	})
	if tool.Description == "" || tool.validator == nil || tool.Family != "fs" || !tool.Flags.Has(Core) {
		t.Fatalf("NewTool(read_file) = %+v; want the schemas.json declaration, compiled", tool)
	}
	tests := []struct {
		args string
		want readFileIn
	}{
		{`{"path":"a"}`, readFileIn{Path: "a", Offset: 1, Limit: 400}},
		{`{"path":"a","limit":5}`, readFileIn{Path: "a", Offset: 1, Limit: 5}},
		{`{"path":"a","offset":7,"limit":2}`, readFileIn{Path: "a", Offset: 7, Limit: 2}},
		{``, readFileIn{Offset: 1, Limit: 400}},
	}
	for _, tt := range tests {
		got = readFileIn{}
		res, err := tool.Run(t.Context(), &Call{Name: "read_file", Args: json.RawMessage(tt.args)})
		if err != nil || res.IsError || got != tt.want {
			t.Errorf("read_file(%s): run got %+v (%v, %v); want %+v", tt.args, got, res.Content, err, tt.want)
		}
	}
	if res, _ := tool.Run(t.Context(), &Call{Name: "read_file", Args: json.RawMessage(`{"path":3}`)}); !res.IsError || !strings.Contains(res.Content, "decode read_file arguments") {
		t.Errorf("undecodable arguments = %q; want an error result", res.Content)
	}

	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(error).Error(), `"offset" has no field`) {
			t.Errorf("NewTool with a struct missing a property: panic %v; want one naming the property", p)
		}
	}()
	type short struct {
		Path  string `json:"path"`
		Limit int    `json:"limit,omitempty" default:"400"`
	}
	NewTool("read_file", "fs", 0, func(context.Context, *Call, short) (Result, error) { return Result{}, nil })
}

// TestNewDynamicTool pins that a tool with a schema from elsewhere is
// compiled when it is built: a schema that does not compile is an error
// then, not at its first call.
func TestNewDynamicTool(t *testing.T) {
	run := func(context.Context, *Call) (Result, error) { return Result{Content: "ran"}, nil }
	tool, err := NewDynamicTool(Tool{Name: "mcp_x__y", Family: "mcp_x", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := tool.validate(json.RawMessage(`{"n":"no"}`)); err == nil {
		t.Error(`validate({"n":"no"}) = nil; want a schema error`)
	}
	if _, err := NewDynamicTool(Tool{Name: "mcp_x__bad", Schema: json.RawMessage(`{"$ref":"#/nowhere"}`)}, run); err == nil || !strings.Contains(err.Error(), "mcp_x__bad") {
		t.Errorf("NewDynamicTool(dangling $ref) = %v; want an error naming the tool", err)
	}
}

// TestNewGeneratedTool: a generated schema is compiled at the first call,
// not when the tool is built; arguments are checked against it, and a
// schema that does not compile makes the call an error, never a panic.
func TestNewGeneratedTool(t *testing.T) {
	run := func(context.Context, *Call) (Result, error) { return Result{Content: "ran"}, nil }
	tool := NewGeneratedTool(Tool{Name: "recall", Family: "kb", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}, run)
	if err := tool.validate(json.RawMessage(`{"n":"no"}`)); err == nil {
		t.Error(`validate({"n":"no"}) = nil; want a schema error`)
	}
	if err := tool.validate(json.RawMessage(`{"n":1}`)); err != nil {
		t.Errorf(`validate({"n":1}) = %v`, err)
	}
	bad := NewGeneratedTool(Tool{Name: "bad", Schema: json.RawMessage(`{"$ref":"#/nowhere"}`)}, run)
	if err := bad.validate(json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "does not compile") {
		t.Errorf("validate with a schema that does not compile = %v; want an error saying so", err)
	}
}
