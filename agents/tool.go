package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/toolspec"
)

// Flags describe when a tool may appear and how it behaves.
type Flags uint16

const (
	// LeadOnly tools never reach a sub-agent turn.
	LeadOnly Flags = 1 << iota
	// MasterOnly tools exist only in turns started by the person.
	MasterOnly
	// IndexedNotesOnly tools exist only while the notebook is in index mode.
	IndexedNotesOnly
	// Quiet tools are not echoed in human output.
	Quiet
	// Uneventful results do not count as progress (e.g. for stall checks).
	Uneventful
	// Writes marks tools that change state; read-only agents and tokens
	// never get them.
	Writes
	// Core tools are never hidden by curation.
	Core
)

// Has reports whether all of want are set.
func (f Flags) Has(want Flags) bool { return f&want == want }

// RunFunc executes one call. A problem the model can fix is a Result with
// IsError set and a nil error; a non-nil error is an infrastructure failure
// that aborts the turn.
type RunFunc func(ctx context.Context, call *Call) (Result, error)

// Tool is one callable tool.
type Tool struct {
	Name        string
	Family      string // fs, shell, board, chat, kb, mcp_<server>, …
	Description string
	Schema      json.RawMessage
	Flags       Flags
	Run         RunFunc

	validator *jsonschema.Resolved
}

// Call is one invocation of a tool.
type Call struct {
	ID   string
	Name string
	// Args are the raw arguments, already checked against the schema.
	Args json.RawMessage
}

// Decode unmarshals the arguments into v.
func (c *Call) Decode(v any) error {
	if err := json.Unmarshal(c.Args, v); err != nil {
		return fmt.Errorf("decode %s arguments: %w", c.Name, err)
	}
	return nil
}

// Result is what a tool call returns to the model.
type Result struct {
	// Content is the tool message sent back to the model.
	Content string
	// IsError marks a result that reports a problem the model can fix.
	IsError bool
	// Summary is a short line for people (e.g. "12 lines", "exit 0").
	Summary string
	// Artifacts are ids of things the call produced, e.g. files written;
	// the system's record of them wins over what a model reports.
	Artifacts []string

	stop bool // set by StopResult: the turn ends after this call
}

// StopResult returns a result that ends the turn after this call (used by
// agent_exit).
func StopResult(content string) Result {
	return Result{Content: content, Summary: "handed over", stop: true}
}

// Errorf returns an error Result for the model.
func Errorf(format string, args ...any) Result {
	msg := fmt.Sprintf(format, args...)
	return Result{Content: "error: " + msg, IsError: true, Summary: msg}
}

// Builtin returns a tool whose name, description and schema come from
// toolspec (schemas.json).
func Builtin(name, family string, flags Flags, run RunFunc) *Tool {
	s := toolspec.MustLookup(name)
	return &Tool{Name: name, Family: family, Description: s.Description, Schema: s.Parameters, Flags: flags, Run: run}
}

// Def returns the declaration sent to the model.
func (t *Tool) Def() llm.ToolDef {
	return llm.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.Schema}
}

// validate checks raw arguments against the tool's schema, compiling it on
// first use.
func (t *Tool) validate(raw json.RawMessage) error {
	if t.validator == nil && len(t.Schema) > 0 {
		r, err := toolspec.Compile(t.Schema)
		if err != nil {
			return fmt.Errorf("tool %s has a bad schema: %w", t.Name, err)
		}
		t.validator = r
	}
	_, err := toolspec.ValidateWith(t.validator, raw)
	return err
}

// Defs returns the declarations of tools in order.
func Defs(tools []*Tool) []llm.ToolDef {
	defs := make([]llm.ToolDef, len(tools))
	for i, t := range tools {
		defs[i] = t.Def()
	}
	return defs
}

// Names returns the tools' names.
func Names(tools []*Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

func findTool(tools []*Tool, name string) *Tool {
	i := slices.IndexFunc(tools, func(t *Tool) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return tools[i]
}

// Count formats n with a noun in singular or plural ("1 match", "3 matches").
func Count(n int, singular, plural string) string {
	if n == 1 {
		return "1 " + singular
	}
	return fmt.Sprintf("%d %s", n, plural)
}
