package queue

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/change"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
)

// JobKind is the River kind of a delegation job.
const JobKind = "yagent_delegation"

// JobArgs are a delegation as it travels to a worker: everything the
// sub-agent starts from, so the worker needs no board.
type JobArgs struct {
	Run        string `json:"run"`
	Delegation string `json:"delegation"`
	Board      string `json:"board"`
	Key        string `json:"key"`
	Task       string `json:"task"`
	// Agent is the resolved definition; Tools are the exact tool names it
	// has on the coordinator (a worker lacking one refuses the job).
	Agent    JobAgent `json:"agent"`
	Tools    []string `json:"tools"`
	Model    string   `json:"model,omitempty"`
	MaxSteps int      `json:"max_steps,omitempty"`
	// Settings are the model the delegation runs on as the coordinator
	// resolved it (no secrets): a worker whose own settings for that name
	// differ, or that has no such model, refuses the attempt instead of
	// running another model. Nil from a coordinator without them.
	Settings *ModelSettings `json:"model_settings,omitempty"`
	// Index is the board index when the delegation started; Pack the
	// context pack of its refs (their notes' full text).
	Index      string   `json:"index"`
	Pack       string   `json:"pack,omitempty"`
	Unresolved []string `json:"unresolved,omitempty"`
	// Trace is the W3C trace context (traceparent, tracestate) of the
	// batch that queued the job: the worker's spans join its trace.
	Trace map[string]string `json:"trace,omitempty"`
	// Base, set when the coordinator isolates the delegation (issue 28),
	// is its HEAD and uncommitted changes: the worker runs the delegation
	// in a worktree of its own checkout at that base and sends its change
	// back (JobOutput.Patch).
	Base *change.Base `json:"base,omitempty"`
	// Budget is the chain of budget scopes the delegation runs under
	// (the plan's, its entry's): the worker checks and charges them in
	// the queue database's ledger (spend.go).
	Budget []budget.Scope `json:"budget,omitempty"`
	// Stem, when set, is the note's stem the coordinator reserved (a
	// director's background delegation: its ref was announced when it
	// started); the worker's note takes it.
	Stem string `json:"stem,omitempty"`
}

// ModelSettings say which model a delegation runs on, without secrets
// (config.ModelSettings). Workers agree on the model when the ids agree
// (each host may reach it at an address of its own).
type ModelSettings = config.ModelSettings

// ModelsFunc resolves a model name ("" = the default) to its settings;
// ok is false when this host has no such model (it would fall back to
// its default one).
type ModelsFunc func(name string) (ModelSettings, bool)

// modelName is the model a job runs: the delegation's own (its model:),
// else its agent's ("" is the default one).
func (a JobArgs) modelName() string {
	if a.Model != "" {
		return a.Model
	}
	return a.Agent.Model
}

// JobAgent is an agent definition with its prompt.
type JobAgent struct {
	Name     string `json:"name"`
	Model    string `json:"model,omitempty"`
	MaxSteps int    `json:"max_steps,omitempty"`
	Prompt   string `json:"prompt"`
	Source   string `json:"source,omitempty"`
}

// Kind is River's name for the job.
func (JobArgs) Kind() string { return JobKind }

// JobOutput is what a worker returns: the note to land (handoff and body),
// or why it abandoned, and what the delegation spent.
type JobOutput struct {
	Version int    `json:"version"`
	Worker  string `json:"worker"`
	// Handoff and Body are the note; Observed the artifact ids the worker
	// saw the sub-agent produce.
	Handoff  *blackboard.Handoff `json:"handoff,omitempty"`
	Body     string              `json:"body,omitempty"`
	Observed []string            `json:"observed,omitempty"`
	// Stem is the note's file name the worker reserved (its spans name
	// the note by it); the coordinator lands the note under it.
	Stem string `json:"stem,omitempty"`
	// Abandoned is set when a gate stopped the delegation (its token
	// budget): nothing lands.
	Abandoned string `json:"abandoned,omitempty"`
	// Error is why the attempt failed (then the job failed too).
	Error string `json:"error,omitempty"`
	// Usage is the total; Responses each model call's, for spend.
	Usage     agents.UsageEvent `json:"usage"`
	Responses []llm.Usage       `json:"responses,omitempty"`
	ElapsedMS int64             `json:"elapsed_ms"`
	// Patch is the change of an isolated delegation (Handoff.Change set),
	// a binary patch on JobArgs.Base.Snapshot; PatchStored says it was
	// larger than maxOutputPatch and waits in yagent_job_patch instead.
	Patch       []byte `json:"patch,omitempty"`
	PatchStored bool   `json:"patch_stored,omitempty"`
}

// maxOutputPatch is the largest patch a job's output carries: River
// refuses outputs over 32 MB and JSON spells bytes in base64 (4/3), so a
// larger patch goes to the table yagent_job_patch. A variable: a test
// lowers it.
var maxOutputPatch = 16 << 20

// patchFits says the output carries patch itself.
func patchFits(patch []byte) bool { return len(patch) <= maxOutputPatch }

// outputVersion is the version of JobOutput a worker writes. Version 2
// names Responses' fields as the --json stream does (prompt_tokens, …);
// version 1 wrote them with Go's field names, and decodeOutput still reads
// it (a worker of an older yagent during an upgrade).
const outputVersion = 2

// decodeOutput reads a job's output of any version.
func decodeOutput(data []byte) (JobOutput, error) {
	var out JobOutput
	if err := json.Unmarshal(data, &out); err != nil {
		return out, fmt.Errorf("read the job's output: %w", err)
	}
	if out.Version >= 2 {
		return out, nil
	}
	var v1 struct {
		Responses []struct{ PromptTokens, CachedPromptTokens, CompletionTokens, ReasoningTokens int }
	}
	if err := json.Unmarshal(data, &v1); err != nil {
		return out, fmt.Errorf("read the job's output (version %d): %w", out.Version, err)
	}
	out.Responses = nil
	for _, r := range v1.Responses {
		out.Responses = append(out.Responses, llm.Usage{PromptTokens: r.PromptTokens, CachedTokens: r.CachedPromptTokens,
			CompletionTokens: r.CompletionTokens, ReasoningTokens: r.ReasoningTokens})
	}
	return out, nil
}

// retryPolicy retries a failed or rescued job after attempt seconds: a
// worker that cannot run it fails fast, another may take it soon after.
type retryPolicy struct{}

func (retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(time.Duration(max(job.Attempt, 1)) * time.Second)
}
