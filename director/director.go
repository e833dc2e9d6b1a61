package director

import (
	"context"
	"fmt"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
)

// Options are what a session's director is built from.
type Options struct {
	Config *config.Config
	// Client resolves a model name ("" = the default) to a client.
	Client agents.ClientFunc
	// Workspace is the directory the tools are confined to.
	Workspace string
	Board     *blackboard.Store
	// BoardID is the session's board (see agents.SetBoardScope).
	BoardID string
	Events  agents.Sink
	Policy  agents.ShellPolicy
	// MaxSteps overrides agents.max_steps when positive.
	MaxSteps int
	// Tools are extra tools to register (knowledge base, MCP servers).
	Tools []*agents.Tool
	// Append records each message of the director's history as it happens.
	Append func(llm.Message) error
	// SubAppend returns the recorder of a delegation's messages.
	SubAppend func(agents.Delegation) func(llm.Message) error
}

// Director is the lead of a session: it talks to the person, delegates, and
// keeps the conversation's history.
type Director struct {
	opts      Options
	client    llm.Client
	model     string
	ws        *agents.Workspace
	reg       *agents.Registry
	catalog   *agents.Catalog
	delegator *Delegator
	system    string
	index     blackboard.IndexOptions

	// History is the conversation so far (never holds a transient tail).
	History []llm.Message
	// State, when set, contributes the [state] block of the tail (window
	// line, notebook) before the board index.
	State func(ctx context.Context) (string, error)
}

// New builds a session's director: workspace, tool registry, sub-agent
// catalog, delegator and the stable prompt.
func New(opts Options) (*Director, error) {
	cfg := opts.Config
	if opts.BoardID == "" {
		return nil, fmt.Errorf("director: no board id (use agents.SetBoardScope)")
	}
	ws, err := agents.OpenWorkspace(opts.Workspace)
	if err != nil {
		return nil, err
	}
	client, model, err := opts.Client("")
	if err != nil {
		ws.Close()
		return nil, err
	}
	reg := agents.NewRegistry()
	add := func(tools []*agents.Tool) {
		for _, t := range tools {
			if err == nil {
				err = reg.Add(t)
			}
		}
	}
	add(agents.FSTools(ws, opts.Policy))
	add([]*agents.Tool{agents.ShellTool(ws, opts.Policy)})
	add(agents.BoardTools(opts.Board, cfg.Blackboard.ContextPackChars, ws))
	add(opts.Tools)
	if err != nil {
		ws.Close()
		return nil, err
	}
	home := cfg.Home
	catalog, err := agents.LoadCatalog(ws.Dir(), home, func(name string) bool { _, ok := reg.Get(name); return ok })
	if err != nil {
		ws.Close()
		return nil, err
	}
	project := agents.ProjectInstructions(ws)
	index := blackboard.IndexOptionsFromConfig(cfg.Blackboard)
	a := cfg.Agents
	runner := &agents.SubRunner{
		Client: opts.Client, Registry: reg, Catalog: catalog, Board: opts.Board, Workspace: ws, Events: opts.Events,
		Index: index, PackChars: cfg.Blackboard.ContextPackChars, MaxSteps: a.SubagentMaxSteps,
		TokenBudget: a.DelegationTokenBudget, StallRepeats: stallRepeats(a.StallRepeats), TailRole: llm.Role(a.TailRole),
		Project: project, Append: opts.SubAppend,
	}
	del := NewDelegator(runner, Guards{MaxParallel: a.MaxParallelDelegations, MaxPerTurn: a.MaxDelegationsPerTurn, MaxDepth: a.MaxDepth}, opts.Events)
	if err := reg.Add(del.Tool(1)); err != nil {
		ws.Close()
		return nil, err
	}
	return &Director{
		opts: opts, client: client, model: model, ws: ws, reg: reg, catalog: catalog, delegator: del,
		system: SystemPrompt(ws.Dir(), catalog, project), index: index,
	}, nil
}

// stallRepeats maps the configured valve (0 = off) to the loop's (-1 = off).
func stallRepeats(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// Close releases the workspace.
func (d *Director) Close() error { return d.ws.Close() }

// SubRunner returns the runner of delegations (batch plans use it
// directly, without a director turn).
func (d *Director) SubRunner() *agents.SubRunner { return d.delegator.Runner }

// Registry returns the tool registry.
func (d *Director) Registry() *agents.Registry { return d.reg }

// Catalog returns the sub-agent catalog.
func (d *Director) Catalog() *agents.Catalog { return d.catalog }

// Workspace returns the confined workspace.
func (d *Director) Workspace() *agents.Workspace { return d.ws }

// BoardID returns the session's board.
func (d *Director) BoardID() string { return d.opts.BoardID }

// Agent returns the director as it runs a turn with the given gates.
func (d *Director) Agent(g agents.Gates) *agents.Agent {
	maxSteps := d.opts.Config.Agents.MaxSteps
	if d.opts.MaxSteps > 0 {
		maxSteps = d.opts.MaxSteps
	}
	return &agents.Agent{Name: "director", System: d.system, Tools: d.reg.Reachable(g), Model: d.model, MaxSteps: maxSteps}
}

// Tail is the transient tail of the director's next call: the [state]
// block, then the board index rebuilt from disk right now.
func (d *Director) Tail(ctx context.Context) (string, error) {
	state := ""
	if d.State != nil {
		var err error
		if state, err = d.State(ctx); err != nil {
			return "", err
		}
	}
	idx, err := IndexTail(d.opts.Board, d.opts.BoardID, d.index)(ctx)
	if err != nil {
		return "", err
	}
	return agents.ComposeTail(state, idx), nil
}

// Turn runs one master turn: the person's input, the director's work, its
// answer. The history grows by the turn's messages, also when it ends in an
// error (what was recorded is whole).
func (d *Director) Turn(ctx context.Context, input string) (*agents.Outcome, error) {
	d.delegator.StartTurn()
	cfg := d.opts.Config.Agents
	loop := &agents.Loop{
		Client: d.client, Events: d.opts.Events, Tail: d.Tail, TailRole: llm.Role(cfg.TailRole),
		ParallelTools: cfg.ParallelTools, StallRepeats: stallRepeats(cfg.StallRepeats), Append: d.opts.Append,
	}
	ctx = blackboard.WithBoardID(ctx, d.opts.BoardID)
	out, err := loop.Run(ctx, d.Agent(agents.Gates{Master: true}), d.History, llm.Message{Role: llm.RoleUser, Content: input})
	d.History = append(d.History, out.Messages...)
	return out, err
}
