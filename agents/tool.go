package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"

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
	// Uneventful results do not count as progress: the stall check
	// neither counts such a call nor lets it break a run of identical
	// calls (a notebook write beside each repeat hides no stall).
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

// Tool is one callable tool. A Tool is immutable once built, so one Tool
// serves any number of concurrent turns. Its argument validator is compiled
// by NewDynamicTool, or, for a built-in tool (NewTool) and a generated one
// (NewGeneratedTool), once at the first call (sync.OnceValues, safe for
// concurrent first calls): compiling them all at each start cost
// milliseconds. Never assign to its fields.
type Tool struct {
	Name        string
	Family      string // fs, shell, board, chat, kb, mcp_<server>, …
	Description string
	Schema      json.RawMessage
	Flags       Flags

	run       RunFunc
	validator func() (*jsonschema.Resolved, error)
}

// NewTool declares a built-in tool. Its description and schema come from
// toolspec (schemas.json); In is the type its arguments decode into, and
// must match the schema (toolspec.CheckInput: one json-tagged field per
// property, `omitempty` exactly on the optional ones, Go types matching
// JSON types, an integer's `default:"N"` tag exactly where the schema says
// "Default N."). run gets the decoded arguments with the defaults filled
// in for absent ones. NewTool panics on a mismatch: built-in tools are
// declared in code, and every test that builds one catches it
// (TestEveryBuiltinToolDeclared, director).
func NewTool[In any](name, family string, flags Flags, run func(ctx context.Context, c *Call, in In) (Result, error)) *Tool {
	s := toolspec.MustLookup(name)
	typ := reflect.TypeFor[In]()
	if err := toolspec.CheckInput(name, typ); err != nil {
		panic(err)
	}
	defaults := inputDefaults(typ)
	return &Tool{
		Name: name, Family: family, Description: s.Description, Schema: s.Parameters, Flags: flags,
		validator: s.Compiled,
		run: func(ctx context.Context, c *Call) (Result, error) {
			var in In
			v := reflect.ValueOf(&in).Elem()
			for _, d := range defaults {
				v.Field(d.field).SetInt(d.value)
			}
			args := c.Args
			if len(bytes.TrimSpace(args)) == 0 {
				args = json.RawMessage("{}")
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return ErrorResult("decode %s arguments: %v", c.Name, err), nil
			}
			return run(ctx, c, in)
		},
	}
}

// NewDynamicTool declares a tool whose schema comes from elsewhere (an MCP
// server, the knowledge base): decl holds its name, family, description,
// schema and flags; run gets the raw arguments once they passed the
// schema. The schema is compiled here; one that does not is an error.
func NewDynamicTool(decl Tool, run RunFunc) (*Tool, error) {
	r, err := toolspec.Compile(decl.Schema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", decl.Name, err)
	}
	return &Tool{Name: decl.Name, Family: decl.Family, Description: decl.Description, Schema: decl.Schema, Flags: decl.Flags,
		run: run, validator: func() (*jsonschema.Resolved, error) { return r, nil }}, nil
}

// NewGeneratedTool declares a tool whose schema yagent generates from a Go
// type (the knowledge base's tools): decl and run as for NewDynamicTool,
// but the schema is compiled once, at the first call. Its package's tests
// compile every such schema; one that still did not compile would make
// each call an error result naming why.
func NewGeneratedTool(decl Tool, run RunFunc) *Tool {
	return &Tool{Name: decl.Name, Family: decl.Family, Description: decl.Description, Schema: decl.Schema, Flags: decl.Flags,
		run: run, validator: sync.OnceValues(func() (*jsonschema.Resolved, error) { return toolspec.Compile(decl.Schema) })}
}

// inputDefault is one `default:"N"` tag of an In struct.
type inputDefault struct {
	field int
	value int64
}

// inputDefaults reads the default tags (toolspec.CheckInput has checked
// them against the schema).
func inputDefaults(t reflect.Type) []inputDefault {
	var out []inputDefault
	for i := range t.NumField() {
		tag, ok := t.Field(i).Tag.Lookup("default")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(tag, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("agents: %s.%s: default %q is not an integer", t.Name(), t.Field(i).Name, tag))
		}
		out = append(out, inputDefault{i, n})
	}
	return out
}

// Call is one invocation of a tool.
type Call struct {
	ID   string
	Name string
	// Args are the raw arguments, already checked against the schema.
	Args json.RawMessage
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
	// Diff, Output and ExitCode show a person what changed (the
	// tool_result event's): a write's unified diff, a command's first and
	// last lines of output and its exit code.
	Diff     string
	Output   string
	ExitCode *int

	stop bool // set by StopResult: the turn ends after this call
}

// StopResult returns a result that ends the turn after this call (used by
// agent_exit).
func StopResult(content string) Result {
	return Result{Content: content, Summary: "handed over", stop: true}
}

// ErrorResult returns a Result reporting a problem the model can fix (not
// a Go error: the turn goes on).
func ErrorResult(format string, args ...any) Result {
	msg := fmt.Sprintf(format, args...)
	return Result{Content: "error: " + msg, IsError: true, Summary: msg}
}

// Def returns the declaration sent to the model.
func (t *Tool) Def() llm.ToolDef {
	return llm.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.Schema}
}

// Run runs one call whose arguments passed the tool's schema.
func (t *Tool) Run(ctx context.Context, c *Call) (Result, error) { return t.run(ctx, c) }

// validate checks raw arguments against the tool's compiled schema.
func (t *Tool) validate(raw json.RawMessage) error {
	r, err := t.validator()
	if err != nil {
		return fmt.Errorf("the tool's schema does not compile (%v): this tool cannot be used", err)
	}
	_, err = toolspec.ValidateWith(r, raw)
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
