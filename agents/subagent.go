package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
	personhooks "github.com/yagent/yagent/hooks"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/sandbox"
	"github.com/yagent/yagent/telemetry"
)

// Delegation is one task handed to a sub-agent.
type Delegation struct {
	CallID      string
	Agent       string
	Task        string
	ContextRefs []string
	BoardID     string
	Depth       int // 1 for the director's sub-agents
	// Key, when set, is stored in the note's handoff so the writer can
	// find the note again (batch plans: "batch:<id>").
	Key string
	// Model and MaxSteps, when set, override the definition's (a batch
	// plan's per-delegation model and max_steps).
	Model    string
	MaxSteps int
	// Isolation, when set (none or worktree), overrides the definition's
	// and the configuration's (delegate's isolation argument).
	Isolation string
	// Base, when set, is where a delegation sent from another host (a
	// River job) starts: the coordinator's HEAD and uncommitted changes.
	// The delegation then runs in a worktree of this host's checkout at
	// that base, and its change comes back in the note (Handoff.Change,
	// Patch: a binary patch) to a Land that imports it (issue 28).
	Base *change.Base
	// Prepared, when set, is the delegation's input made ready elsewhere
	// (a distributed batch's coordinator, SubRunner.Prepare): the runner
	// then looks up no agent and reads nothing from the board.
	Prepared *Prepared
	// FollowUp, when set, makes the delegation a follow-up (issue 30):
	// Task is the message, and the run continues the sub-agent session
	// that holds an earlier delegation's history (the Recorder reopens it
	// and hands the history over in DelegationHooks.History).
	FollowUp *FollowUp
	// Stem, when set, is the stem the note lands under (reserved with
	// blackboard.Store.NewStem by a delegator that named the ref before
	// the run: a background delegation's ref is known when it starts).
	Stem string
	// Background marks a delegation the lead did not wait for (issue 30):
	// the Recorder records it so, and the lead learns of its end from the
	// next board index.
	Background bool
	// Team, when set, makes the sub-agent a member of that team (issue 30
	// item 4): it keeps claiming the team's open tasks, one round of its
	// loop each, each round's handoff landing as that task's note, until
	// none is left; the delegation's own note then sums them up.
	Team string
	// Rounds, when set, runs each round of a team member elsewhere (with
	// queue.dsn, a River worker's job: queue.Background's Run) instead of
	// in this loop: the member still claims here, where the board is,
	// and hands each claimed task over as a delegation of its own
	// (Prepared: its definition, the member's mailbox first and the
	// index; Stem: the one its claim named), whose runner lands the
	// task's note. Each round is then a fresh conversation.
	Rounds func(ctx context.Context, d Delegation) (DelegationResult, error)
}

// FollowUp names what a follow-up continues: the note it supersedes and
// the sub-agent session (the note's `session:`) holding that delegation's
// history.
type FollowUp struct {
	Ref     string
	Session string
}

// Prepared is what a sub-agent starts from besides the task: its
// definition (with the prompt), the board index as it was when the
// delegation started, and the context pack of its refs.
type Prepared struct {
	Definition Definition
	Prompt     string
	Index      string
	Pack       string
	Unresolved []string
}

// DelegationResult is what the delegator learns. The note's body is not in
// it: it is one read_note away.
type DelegationResult struct {
	Status     blackboard.Status
	Ref        string
	Conclusion string
	// Abandoned is set when a gate stopped the delegation (cancel, token
	// budget): nothing was written.
	Abandoned bool
	Reason    string
	// Unresolved are context refs that named nothing on the board.
	Unresolved []string
	Usage      UsageEvent
	Elapsed    time.Duration
	// Change is what an isolated delegation changed, on its branch (nil:
	// not isolated, or nothing changed).
	Change *change.Change
	// Isolated names the worktree or snapshot the delegation ran in.
	Isolated string
}

// ErrTokenBudget is the cause when a delegation spends its token budget.
var ErrTokenBudget = errors.New("token budget exceeded")

// ClientFunc resolves a definition's model name ("" = the default) to a
// client and the provider's model id.
type ClientFunc func(model string) (llm.Client, string, error)

// SubRunner runs delegations.
type SubRunner struct {
	Client    ClientFunc
	Registry  *Registry
	Catalog   *Catalog
	Board     *blackboard.Store
	Workspace *Workspace
	Events    Sink
	Index     blackboard.IndexOptions
	// PackChars is the context pack's budget in runes
	// (blackboard.context_pack_chars); 0 means no limit.
	PackChars int
	// MaxSteps is the step budget of a definition without max_steps
	// (agents.subagent_max_steps).
	MaxSteps int
	// TokenBudget is how many tokens (prompt + completion, summed over
	// requests) one delegation may spend (agents.delegation_token_budget);
	// 0 means no limit.
	TokenBudget int
	// ParallelTools, StallRepeats and TailRole are the sub-agents' Loop's.
	ParallelTools int
	StallRepeats  int
	TailRole      llm.Role
	// Project is the workspace's context files (LoadContext), framed,
	// and the skills' catalogue entry, for the prefix.
	Project string
	// ProjectIn, when set, is Project for another directory: a
	// delegation that works elsewhere (its worktree) gets the context
	// files of the directory it works in.
	ProjectIn func(dir string) string
	// Skill returns a skill's text to preload into the prompt of a
	// definition that names it in skills: (nil: no skills; an error is a
	// notice and the delegation goes on without it).
	Skill func(name string) (string, error)
	// ExtraTools returns tools added at a depth (delegate, when max_depth
	// lets sub-agents delegate further).
	ExtraTools func(depth int) []*Tool
	// Hooks runs the person's hooks (nil: none) around the sub-agents'
	// tool calls, around each delegation (SubagentStart before its first
	// call, its context added to the input; SubagentStop as it would hand
	// over, a block sending it back) and as it ends (NoteLanded when its
	// note is written here, DelegationFinished; notify-only).
	Hooks *personhooks.Runner
	// Recorder, when set, is told when a delegation starts (with Model set
	// to the model name the delegation runs with), gets every message and
	// response of the sub-agent, fits its requests to the window, and is
	// told how it finished (rollouts, spend).
	Recorder func(ctx context.Context, d Delegation) (DelegationHooks, error)
	// Land, when set, receives the finished delegation's note instead of
	// the board (a queue worker returns it as its job's output; the
	// coordinator writes it).
	Land func(board string, n blackboard.NewNote) (blackboard.NoteMeta, error)
	// NoClaims leaves claim_task out of the sub-agents' tools (a queue
	// worker: Board is its own host's, where no team's tasks are).
	NoClaims bool
	// Isolation is how delegations that write are isolated (issue 28);
	// the zero value isolates none.
	Isolation Isolation
}

// DelegationHooks receive one delegation's record.
type DelegationHooks struct {
	// Session is the id of the sub-agent session recording the
	// delegation: its note's `session:`, what a follow-up continues.
	// Transcript is its rollout (a hook's transcript_path).
	Session    string
	Transcript string
	// History is the conversation a follow-up continues (the reopened
	// session's, compaction summary first); nil for a new delegation.
	History []llm.Message
	// Read and MarkRead keep which mailbox messages the sub-agent was
	// shown (its session's record, issue 30 item 4); nil: the run keeps
	// them itself.
	Read       func(ref string) bool
	MarkRead   func(refs ...string) error
	Append     func(llm.Message) error
	OnResponse func(llm.Response)
	// Fit keeps the sub-agent's requests inside its model's window
	// (Loop.Fit): the sub-agent's turn squeezes and compacts like the
	// director's.
	Fit    func(context.Context, *Fitting) error
	Finish func(DelegationResult)
	// Progress, when set, is told the steps (model responses) and last
	// tool of a delegation that runs elsewhere (a queue worker), as its
	// executor reads them; a delegation run here never calls it (its
	// OnResponse and Append say as much).
	Progress func(steps int, lastTool string)
}

// Prepare resolves what d starts from: its agent's definition, the board
// index as it is right now and the context pack of the refs the delegator
// stressed. Run calls it unless d carries its Prepared already.
func (r *SubRunner) Prepare(d Delegation) (*Prepared, error) {
	def, ok := r.Catalog.Get(d.Agent)
	if !ok {
		return nil, fmt.Errorf("there is no sub-agent %q; the catalog has: %s", d.Agent, strings.Join(catalogNames(r.Catalog), ", "))
	}
	p := &Prepared{Definition: *def, Prompt: def.Prompt}
	idx, err := r.Board.BuildIndex(d.BoardID, r.Index)
	if err != nil {
		return nil, fmt.Errorf("build the board index for %s: %w", def.Name, err)
	}
	p.Index = idx.Text
	if len(d.ContextRefs) > 0 {
		pack, err := r.Board.ResolveRefs(d.BoardID, d.ContextRefs, blackboard.PackOptions{Budget: r.PackChars, ArtifactInfo: r.Workspace.ArtifactInfo})
		if err != nil {
			return nil, fmt.Errorf("context refs: %w", err)
		}
		p.Pack, p.Unresolved = pack.Text, pack.Unresolved
	}
	return p, nil
}

// Run runs one delegation to its end and writes exactly one note — unless
// a gate abandoned it, in which case nothing is written. The error is for
// the model (an unknown agent, say) and means nothing ran.
func (r *SubRunner) Run(ctx context.Context, d Delegation) (res DelegationResult, err error) {
	start := time.Now()
	// The delegation's shell commands share a private /tmp of their own,
	// which no other delegation sees; it goes when the delegation ends.
	scope := new(sandbox.Scope)
	defer scope.Close()
	ctx = sandbox.WithScope(ctx, scope)
	ctx, sp := telemetry.StartAgent(ctx, d.Agent, d.Model, d.Depth, d.CallID)
	if sp != nil {
		defer func() { endDelegationSpan(sp, d, res, err) }()
	}
	prep := d.Prepared
	if prep == nil {
		var err error
		if prep, err = r.Prepare(d); err != nil {
			return DelegationResult{}, err
		}
	}
	def := &prep.Definition
	modelName := def.Model
	if d.Model != "" {
		modelName = d.Model
	}
	client, model, err := r.Client(modelName)
	sp.String(telemetry.KeyRequestModel, model)
	if err != nil {
		return DelegationResult{}, fmt.Errorf("sub-agent %s: %w", def.Name, err)
	}
	steps := def.MaxSteps
	if d.MaxSteps > 0 {
		steps = d.MaxSteps
	}
	if steps <= 0 {
		steps = r.MaxSteps
	}
	if steps <= 0 {
		return DelegationResult{}, fmt.Errorf("sub-agent %s has no step budget: set max_steps in its definition or agents.subagent_max_steps", def.Name)
	}
	res = DelegationResult{Unresolved: prep.Unresolved}
	var hooks DelegationHooks
	if r.Recorder != nil {
		rd := d
		rd.Model = modelName
		if hooks, err = r.Recorder(ctx, rd); err != nil {
			return res, fmt.Errorf("record the delegation to %s: %w", def.Name, err)
		}
	}
	if hooks.Finish != nil {
		defer func() { hooks.Finish(res) }()
	}
	// The delegation prefix: the board index as it was when it started,
	// and the context pack of the refs the delegator stressed.
	input := "Task:\n" + d.Task
	if d.FollowUp != nil {
		if hooks.History == nil {
			return res, fmt.Errorf("follow up %s: no rollout of it was reopened (this runner records no sessions)", d.FollowUp.Ref)
		}
		input = "Follow-up:\n" + d.Task
	}
	if prep.Pack != "" {
		input = prep.Pack + "\n\n" + input
	}
	tools := r.tools(def, d.Depth)
	workspace := r.Workspace.Dir()
	if ws := WorkspaceFrom(ctx); ws != nil {
		workspace = ws.Dir() // a parent's worktree
	}
	var iso *isolation
	// A member whose rounds run elsewhere changes nothing here.
	if d.Rounds == nil && r.isolates(ctx, d, def, tools) {
		stem := d.Stem
		if stem == "" {
			stem = r.Board.NewStem()
		}
		if iso, err = r.isolate(ctx, d.BoardID, stem, d.Base); err != nil {
			return res, fmt.Errorf("sub-agent %s: %w", def.Name, err)
		}
		ctx = WithWorkspace(ctx, iso.ws)
		workspace = iso.ws.Dir()
		res.Isolated = iso.tree.Dir
	}
	agent := &Agent{
		Name:     def.Name,
		System:   SystemPrompt(Prompt("base", map[string]string{"name": def.Name, "workspace": workspace}), prep.Prompt, r.preloadSkills(def), Prompt("subagent", nil), r.projectIn(workspace)),
		Tools:    tools,
		Model:    model,
		MaxSteps: steps,
		Depth:    d.Depth,
	}
	// Who runs, for the team tools and the mailbox: the stem its note
	// lands at is reserved when a claim names it (a team's rounds each
	// get one of their own).
	reserved := ""
	m := &member{agent: def.Name, session: hooks.Session, team: d.Team, board: d.BoardID, store: r.Board,
		read: hooks.Read, markRead: hooks.MarkRead}
	m.stem = func() string {
		switch {
		case d.Team != "":
			return r.Board.NewStem()
		case reserved != "":
		case iso != nil:
			reserved = iso.stem
		case d.Stem != "":
			reserved = d.Stem
		default:
			reserved = r.Board.NewStem()
		}
		return reserved
	}
	bctx, cancel := context.WithCancelCause(withMember(blackboard.WithBoardID(ctx, d.BoardID), m))
	defer cancel(nil)
	var mu sync.Mutex
	spent := 0
	tail := func(context.Context) (string, error) { return m.tail(prep.Index), nil }
	if r.Land != nil {
		// A worker host: the index it was sent is the board as the
		// coordinator saw it (a team round's with the member's unread
		// messages first); this host's own board is never read.
		tail = func(context.Context) (string, error) { return ComposeTail(prep.Index), nil }
	}
	loop := &Loop{
		Client: client, Events: parented(r.Events, d.CallID), TailRole: r.TailRole, ParallelTools: r.ParallelTools, StallRepeats: r.StallRepeats,
		Tail:   tail,
		Append: hooks.Append, Fit: hooks.Fit,
		Hooks: r.Hooks, HookBase: personhooks.Input{SessionID: hooks.Session, TranscriptPath: hooks.Transcript, Cwd: r.Workspace.Dir(),
			AgentID: d.CallID, AgentType: def.Name},
		OnResponse: func(resp llm.Response) {
			if hooks.OnResponse != nil {
				hooks.OnResponse(resp)
			}
			if err := m.answered(); err != nil && r.Events != nil {
				r.Events.Emit(Event{Type: EventNotice, Agent: def.Name, Depth: d.Depth, Time: time.Now(), Text: "warning: could not record which messages were read: " + err.Error()})
			}
			mu.Lock()
			defer mu.Unlock()
			spent += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
			if r.TokenBudget > 0 && spent > r.TokenBudget {
				cancel(fmt.Errorf("%w: spent %d of %d tokens", ErrTokenBudget, spent, r.TokenBudget))
			}
		},
	}
	if input, err = loop.subagentStart(bctx, agent, input); err != nil {
		return res, fmt.Errorf("sub-agent %s: %w", def.Name, err)
	}
	land := r.Board.WriteNote
	if r.Land != nil {
		land = r.Land
	}
	var out *Outcome
	var runErr error
	var rounds []teamRound
	if d.Team == "" {
		out, runErr = loop.Run(bctx, agent, hooks.History, llm.Message{Role: llm.RoleUser, Content: input})
		res.Usage = out.Usage
	} else {
		out, rounds, runErr = r.runTeam(bctx, loop, agent, m, d, prep, input, hooks.History, steps, land, &res.Usage)
	}
	sp.Int(telemetry.KeySteps, out.Steps)
	res.Elapsed = time.Since(start)
	if runErr != nil {
		if cause := context.Cause(bctx); bctx.Err() != nil {
			// A task this run holds goes back to the team: its note
			// never came.
			if c := m.holding(); c != nil {
				_ = r.Board.ReleaseClaim(d.BoardID, *c)
			}
			// Abandoned by a gate: the person cancelled, or the budget ran
			// out. Nothing is written — an empty note would take an index
			// slot and pass for a conclusion.
			if iso != nil {
				iso.discard(ctx)
			}
			res.Abandoned = true
			res.Reason = "cancelled"
			if errors.Is(cause, ErrTokenBudget) {
				res.Reason = cause.Error()
			}
			loop.delegationEnded(ctx, agent, res, false)
			return res, nil
		}
	}
	note := handoffFromOutcome(def.Name, d.Task, out, runErr, steps)
	if d.Team != "" {
		note = teamNote(def.Name, d, rounds, runErr)
	}
	note.Handoff.Key = d.Key
	note.Handoff.Session = hooks.Session
	note.Stem = d.Stem
	if reserved != "" {
		note.Stem = reserved // a claim named it
	}
	if d.FollowUp != nil {
		note.Handoff.Supersedes = d.FollowUp.Ref
	}
	if iso != nil {
		note.Stem = iso.stem
		ch, err := iso.finish(ctx, def.Name)
		if err != nil {
			// The worktree went during the run (or its commit failed):
			// what the delegation did cannot be handed over.
			note.Handoff.Status = blackboard.StatusDegraded
			note.Handoff.Reason = err.Error()
		}
		if ch != nil {
			note.Handoff.Change = &blackboard.NoteChange{Branch: ch.Branch, Base: ch.Base, Head: ch.Head, Files: ch.Files,
				Insertions: ch.Insertions, Deletions: ch.Deletions, State: blackboard.ChangePending, GitDir: ch.GitDir}
			note.Patch = ch.Patch
			if iso.remote {
				note.Patch = iso.patch
			}
		}
		res.Change = ch
	}
	meta, err := land(d.BoardID, note)
	if err != nil {
		return res, fmt.Errorf("write the handoff note of %s: %w", def.Name, err)
	}
	res.Status, res.Ref, res.Conclusion = meta.Status, meta.Ref, meta.Conclusion
	if note.Handoff.Reason != "" {
		res.Reason = note.Handoff.Reason
	}
	loop.delegationEnded(ctx, agent, res, r.Land == nil)
	return res, nil
}

// tools returns a sub-agent's tools: the registry's, gated for a sub-agent
// turn and the definition's whitelist, plus agent_exit and whatever the
// depth allows.
func (r *SubRunner) tools(def *Definition, depth int) []*Tool {
	tools := r.Registry.Reachable(Gates{SubAgent: true, Master: true, Allow: def.Tools})
	// The team tools reach every sub-agent, whatever its tool list.
	for _, name := range TeamToolNames {
		if t, ok := r.Registry.Get(name); ok && !slices.ContainsFunc(tools, func(have *Tool) bool { return have.Name == name }) {
			tools = append(tools, t)
		}
	}
	if r.Board != nil && !r.NoClaims {
		tools = append(tools, ClaimTaskTool(r.Board))
	}
	tools = append(tools, ExitTool())
	if r.ExtraTools != nil {
		tools = append(tools, r.ExtraTools(depth)...)
	}
	return tools
}

// ExitTool returns agent_exit: the sub-agent's way to hand over. Its
// arguments become the note's handoff (handoffFromOutcome). It holds no
// state, so every sub-agent shares one.
func ExitTool() *Tool { return exitTool() }

var exitTool = sync.OnceValue(func() *Tool {
	return NewTool("agent_exit", "agent", Core|Quiet, func(context.Context, *Call, ExitArgs) (Result, error) {
		return StopResult("handed over"), nil
	})
})

func catalogNames(c *Catalog) []string {
	var names []string
	for _, d := range c.All() {
		names = append(names, d.Name)
	}
	return names
}

// parented tags a delegation's events with its call id (Event.Parent);
// events of deeper delegations keep theirs.
func parented(s Sink, callID string) Sink {
	if s == nil || callID == "" {
		return s
	}
	return SinkFunc(func(e Event) {
		if e.Parent == "" {
			e.Parent = callID
		}
		s.Emit(e)
	})
}

// preloadSkills is the text of the skills def names in skills:, each
// framed; one that cannot be read is a notice naming the definition.
func (r *SubRunner) preloadSkills(def *Definition) string {
	var parts []string
	for _, name := range def.Skills {
		var text string
		err := errors.New("no skills are loaded")
		if r.Skill != nil {
			text, err = r.Skill(name)
		}
		if err != nil {
			if r.Events != nil {
				r.Events.Emit(Event{Type: EventNotice, Time: time.Now(), Agent: "yagent", Text: fmt.Sprintf("warning: agent %s names the skill %s in skills:, which was not preloaded: %v (yagent skills ls lists the skills)", def.Name, name, err)})
			}
			continue
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n")
}

// projectIn is the prefix's project part for a sub-agent working in dir.
func (r *SubRunner) projectIn(dir string) string {
	if r.ProjectIn != nil && r.Workspace != nil && dir != r.Workspace.Dir() {
		return r.ProjectIn(dir)
	}
	return r.Project
}
