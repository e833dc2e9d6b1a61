// Package app assembles a run: the workspace its tools are confined to,
// the registry of tools with their gates, the agent catalog, the model
// clients, the approval and sandbox policy and the runner of delegations.
// One constructor builds them (New); the director, batch plans, a queue
// worker, the MCP gateway and ACP take the pieces they use and never build
// them again. Commands only parse flags, call New and print.
//
// An App holds no session: a session (memory) is the director's, or a
// batch's; a worker runs delegations without one.
package app

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/hooks"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/skills"
)

// Options are what an App is built from.
type Options struct {
	Config *config.Config
	// Client resolves a model name ("" = the default) to a client:
	// (*Clients).Resolve, or a test's scripted endpoint.
	Client agents.ClientFunc
	// Workspace is the directory the tools are confined to.
	Workspace string
	Board     *blackboard.Store
	// Events receive what the run does (nil: nothing is printed).
	Events agents.Sink
	// Policy decides what shell commands, file writes and external
	// tools may do (NewPolicy).
	Policy agents.ShellPolicy
	// Tools are extra tools: the knowledge base's, external MCP servers'.
	Tools []*agents.Tool
	// Now is the clock of the events (nil: time.Now).
	Now func() time.Time
}

// App is an assembled run. Close releases it.
type App struct {
	Config    *config.Config
	Client    agents.ClientFunc
	Workspace *agents.Workspace
	// Registry holds every tool of the run: the file tools, the shell,
	// the board tools and the extra ones; the director adds its own
	// (notebook, delegate) for its session.
	Registry *agents.Registry
	Catalog  *agents.Catalog
	Board    *blackboard.Store
	Policy   agents.ShellPolicy
	Events   agents.Sink
	// Index is how the board's per-call index is built.
	Index blackboard.IndexOptions
	// Project is the workspace's context files (Context), framed, for
	// prompts, and the skills' catalogue entry (skills.Catalog.Listing).
	Project string
	// Context is what the context files of the workspace gave: the files
	// read (for /status), the text and what was left out.
	Context agents.Context
	// Skills are the run's skills (LoadSkills); the skill tool is in the
	// registry when there is one.
	Skills *skills.Catalog
	// Runner runs delegations; its Recorder is unset (a session sets it).
	Runner *agents.SubRunner
	// Budget is the run's budget without its key (RunBudget): a session
	// puts it on each turn's context (WithBudget).
	Budget budget.Scope
	// Hooks runs the person's Claude Code hooks (LoadHooks; nil when no
	// settings file names one).
	Hooks *hooks.Runner
	now   func() time.Time
}

// New assembles a run.
func New(o Options) (*App, error) {
	if o.Config == nil || o.Client == nil {
		return nil, fmt.Errorf("app: no configuration or model clients")
	}
	cfg := o.Config
	now := o.Now
	if now == nil {
		now = time.Now
	}
	ws, err := agents.OpenWorkspace(o.Workspace)
	if err != nil {
		return nil, err
	}
	reg := agents.NewRegistry()
	var tools []*agents.Tool
	tools = append(tools, agents.FSTools(ws, o.Policy)...)
	tools = append(tools, agents.ShellTool(ws, o.Policy))
	tools = append(tools, agents.BoardTools(o.Board, cfg.Blackboard.ContextPackChars, ws)...)
	var catalog *agents.Catalog // loaded below: it needs the registry
	tools = append(tools, agents.TeamTools(o.Board, func() *agents.Catalog { return catalog })...)
	tools = append(tools, o.Tools...)
	skillCat, skillWarnings := LoadSkills(cfg, ws.Dir())
	if len(skillCat.All()) > 0 {
		tools = append(tools, SkillTool(skillCat))
	}
	tools, ruleWarnings := withRules(cfg, ws, o.Policy, tools)
	for _, t := range tools {
		if err := reg.Add(t); err != nil {
			ws.Close()
			return nil, err
		}
	}
	a := &App{Config: cfg, Client: o.Client, Workspace: ws, Registry: reg, Board: o.Board,
		Policy: o.Policy, Events: o.Events, Index: blackboard.IndexOptionsFromConfig(cfg.Blackboard),
		Context: agents.LoadContext(ContextOptions(cfg, ws.Dir())), Skills: skillCat, now: now}
	a.Project = agents.SystemPrompt(a.Context.Text, skillCat.Listing())
	a.Catalog = agents.LoadCatalog(agents.Sources{Workspace: ws.Dir(), Home: cfg.Home, UserHome: cfg.UserHome},
		func(name string) bool { _, ok := reg.Get(name); return ok })
	catalog = a.Catalog
	if n := a.Catalog.Notice(); n != "" {
		a.Notice("warning: " + n)
	}
	for _, w := range append(append(skillWarnings, a.Context.Notes...), ruleWarnings...) {
		a.Notice(w)
	}
	set, warnings := LoadHooks(cfg, ws.Dir())
	for _, w := range warnings {
		a.Notice(w)
	}
	if !set.Empty() {
		a.Hooks = &hooks.Runner{Set: set, Dir: ws.Dir()}
	}
	ag := cfg.Agents
	a.Runner = &agents.SubRunner{Hooks: a.Hooks,
		Client: o.Client, Registry: reg, Catalog: a.Catalog, Board: o.Board, Workspace: ws, Events: o.Events,
		Index: a.Index, PackChars: cfg.Blackboard.ContextPackChars, MaxSteps: ag.SubagentMaxSteps,
		TokenBudget: ag.DelegationTokenBudget, ParallelTools: ag.ParallelTools, StallRepeats: ag.StallRepeats,
		TailRole: llm.Role(ag.TailRole), Project: a.Project, Skill: preloadSkill(skillCat),
		ProjectIn: func(dir string) string {
			return agents.SystemPrompt(agents.LoadContext(ContextOptions(cfg, dir)).Text, skillCat.Listing())
		},
		Isolation: agents.Isolation{Mode: ag.Isolation, Include: ag.IsolationInclude, MaxBytes: ag.IsolationMaxBytes, Said: new(sync.Once)},
	}
	if cfg.Home != "" {
		a.Runner.Isolation.Root = ChangeWorktrees(cfg.Home)
	}
	return a, nil
}

// Notice shows a line of yagent's own through the run's events.
func (a *App) Notice(text string) {
	if a.Events != nil {
		a.Events.Emit(agents.Event{Type: agents.EventNotice, Time: a.now(), Agent: "yagent", Text: text})
	}
}

// Now is the run's clock.
func (a *App) Now() time.Time { return a.now() }

// Close releases the workspace and the sandbox's private temp dirs.
func (a *App) Close() error {
	err := a.Workspace.Close()
	if a.Policy.Sandbox != nil {
		if cerr := a.Policy.Sandbox.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// ContextOptions are the context files of a run working in dir: the
// project's from its root down to dir, and the person's
// $YAGENT_HOME/AGENTS.md, else ~/.claude/CLAUDE.md.
func ContextOptions(cfg *config.Config, dir string) agents.ContextOptions {
	o := agents.ContextOptions{Dir: dir, Home: cfg.UserHome}
	if cfg.Home != "" {
		o.User = append(o.User, filepath.Join(cfg.Home, "AGENTS.md"))
	}
	if cfg.UserHome != "" {
		o.User = append(o.User, filepath.Join(cfg.UserHome, ".claude", "CLAUDE.md"))
	}
	return o
}
