package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/kb"
)

// KBToolsOptions configure the in-process KB tools of yagent's agents.
type KBToolsOptions struct {
	// Names are the intent tools to offer, by kb name (config
	// kb.agent_tools); an unknown name is an error.
	Names []string
	// Project is the project the agents work in (config kb.project). A
	// tool's project argument defaults to it. Empty: no project is
	// configured, and a call that needs one is refused, never given a
	// default.
	Project string
}

// ErrNoProject is the message of a call refused because kb.project is empty.
const ErrNoProject = "no project configured: set kb.project (a handle from `yagent kb projects`) in .yagent/config.yaml or ~/.yagent/config.yaml"

// AgentToolName is the registry name of an intent tool: its kb name, except
// where a built-in tool owns the name (the board's list_notes), which gets
// a kb_ prefix.
func AgentToolName(name string) string {
	if name == "list_notes" {
		return "kb_list_notes"
	}
	return name
}

// ErrUnknownKBTool reports a name in kb.agent_tools that is no intent tool
// of the knowledge base: a configuration mistake.
var ErrUnknownKBTool = errors.New("no knowledge-base tool")

// KBBackend is what the agents' KB tools need of a knowledge base: run one
// intent tool as a caller (*kb.Store is one).
type KBBackend interface {
	Call(ctx context.Context, c kb.Caller, tool string, args []byte) ([]byte, error)
}

// KBOpener opens the knowledge base and returns the caller the agents' KB
// tools act as. KBTools calls it at the first call of one of its tools,
// never before: a session whose agents do not touch the knowledge base
// never opens it. Its outcome, a failure included, serves every later call
// of the session; a call cancelled while it opened leaves the next call to
// try again.
type KBOpener func(ctx context.Context) (KBBackend, kb.Caller, error)

// KBTools returns the named intent tools as agents.Tools of family kb that
// call the knowledge base directly (no MCP round-trip), opened through open
// at the first call. Write tools carry the Writes flag. Results are the
// tools' JSON; mistakes the model can fix, and a knowledge base that could
// not be opened, are error results; anything else fails the call. An
// unknown name is ErrUnknownKBTool.
func KBTools(open KBOpener, opts KBToolsOptions) ([]*agents.Tool, error) {
	all := kb.Tools()
	lazy := &lazyKB{open: open}
	var out []*agents.Tool
	for _, name := range opts.Names {
		i := slices.IndexFunc(all, func(t kb.ToolInfo) bool { return t.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("kb.agent_tools: %w %q; the tools are %s", ErrUnknownKBTool, name, strings.Join(kbToolNames(all), ", "))
		}
		t, err := kbAgentTool(lazy, all[i], opts.Project)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// lazyKB opens the knowledge base once, at the first call that needs it.
type lazyKB struct {
	open KBOpener

	mu      sync.Mutex
	opened  bool
	backend KBBackend
	caller  kb.Caller
	err     error
}

func (l *lazyKB) get(ctx context.Context) (KBBackend, kb.Caller, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.opened {
		b, c, err := l.open(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, kb.Caller{}, err
		}
		l.opened, l.backend, l.caller, l.err = true, b, c, err
	}
	return l.backend, l.caller, l.err
}

func kbToolNames(all []kb.ToolInfo) []string {
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name
	}
	return names
}

func kbAgentTool(lazy *lazyKB, info kb.ToolInfo, project string) (*agents.Tool, error) {
	schema, hasProject, projectRequired, err := agentSchema(info)
	if err != nil {
		return nil, err
	}
	var flags agents.Flags
	if !info.ReadOnly {
		flags |= agents.Writes
	}
	run := func(ctx context.Context, c *agents.Call) (agents.Result, error) {
		args := c.Args
		if hasProject {
			var refused string
			if args, refused = withProject(args, project, projectRequired, !info.ReadOnly); refused != "" {
				return agents.ErrorResult("%s", refused), nil
			}
		}
		backend, caller, err := lazy.get(ctx)
		if ctx.Err() != nil {
			return agents.Result{}, ctx.Err()
		}
		if err != nil {
			return agents.ErrorResult("the knowledge base is not available in this session (%v); go on without it", err), nil
		}
		out, err := backend.Call(ctx, caller, info.Name, args)
		if err != nil {
			if kb.ErrorCode(err) != "" {
				return agents.ErrorResult("%v", err), nil
			}
			return agents.Result{}, fmt.Errorf("%s: %w", info.Name, err)
		}
		return agents.Result{Content: string(out), Summary: summarize(info.Name, out)}, nil
	}
	// The schema is generated from kb's Go types (TestKBToolsInProcess
	// compiles every one): compiled at the first call, not at every start.
	return agents.NewGeneratedTool(agents.Tool{Name: AgentToolName(info.Name), Family: "kb", Description: info.Description, Schema: schema, Flags: flags}, run), nil
}

// agentSchema is the tool's MCP input schema with the project argument,
// if any, made optional: it defaults to kb.project.
func agentSchema(info kb.ToolInfo) (schema json.RawMessage, hasProject, required bool, err error) {
	_, raw := mustSchema(info.Name, "input", info.Input)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, false, fmt.Errorf("schema of %s: %w", info.Name, err)
	}
	props, _ := m["properties"].(map[string]any)
	if p, ok := props["project"].(map[string]any); ok {
		hasProject = true
		p["description"] = strings.TrimSpace(fmt.Sprint(p["description"])) + "; omit it for the project yagent is configured for (kb.project)"
		if req, ok := m["required"].([]any); ok {
			i := slices.Index(req, any("project"))
			required = i >= 0
			if required {
				m["required"] = slices.Delete(req, i, i+1)
			}
		}
	}
	schema, err = json.Marshal(m)
	return schema, hasProject, required, err
}

// withProject fills in the configured project when the model gave none,
// and refuses what needs a project when none is configured.
func withProject(args json.RawMessage, project string, required, writes bool) (json.RawMessage, string) {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return args, "" // kb names the problem
	}
	given, _ := m["project"].(string)
	switch {
	case project == "" && (writes || required && given == ""):
		return args, ErrNoProject
	case given == "" && project != "":
		m["project"] = project
		b, err := json.Marshal(m)
		if err != nil {
			return args, ""
		}
		return b, ""
	}
	return args, ""
}

// summarize is the one-line summary people see for a KB call.
func summarize(name string, out []byte) string {
	var v struct {
		Mode      string            `json:"mode"`
		Results   []json.RawMessage `json:"results"`
		Notes     []json.RawMessage `json:"notes"`
		Duplicate *bool             `json:"duplicate"`
		ID        string            `json:"id"`
	}
	_ = json.Unmarshal(out, &v)
	switch {
	case name == "search":
		return agents.Count(len(v.Results), "result", "results") + " (" + v.Mode + ")"
	case name == "recall":
		return agents.Count(len(v.Notes), "note", "notes") + " (" + v.Mode + ")"
	case v.Duplicate != nil && *v.Duplicate:
		return "already remembered"
	case v.Duplicate != nil:
		return "remembered"
	case v.ID != "":
		return v.ID
	}
	return agents.Count(len(out), "byte", "bytes")
}
