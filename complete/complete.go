// Package complete lists the candidates of shell completion
// (`yagent completion bash|zsh|fish|powershell`): the values a flag or an
// argument names are completed from what exists — session ids, board ids,
// agent names, configured models and toolsets — and enum flags from their
// fixed values. A flag means the same thing in every command that has it,
// so the tables are by flag name (Flags) and by command path (Args);
// cmd/yagent registers them over its tree. Completing never creates
// anything: without a state database there are no sessions to offer.
package complete

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/sandbox"
	"github.com/yagent/yagent/toolspec"
)

// Sources are where candidates come from, each opened only when a
// completion needs it.
type Sources struct {
	Config   func() (*config.Config, error)
	Sessions func(ctx context.Context) (*memory.Store, error)
	Board    func() (*blackboard.Store, error)
	// Dir is the working directory ("" = ".").
	Dir string
}

// Func lists candidates ("value\tdescription") for what is typed.
type Func func(ctx context.Context, s Sources, toComplete string) []string

// Flags complete a flag's value, by flag name.
var Flags = map[string]Func{
	"session":  sessions,
	"board":    boards,
	"agent":    agentNames,
	"model":    models,
	"toolset":  toolsets,
	"approval": fixed(string(agents.ApproveUntrusted)+"\task before every command and file write", string(agents.ApproveOnRequest)+"\task before every command", string(agents.ApproveNever)+"\tnever ask"),
	"sandbox":  fixed(string(sandbox.WorkspaceWrite)+"\twrite only in the workspace, no network", string(sandbox.ReadOnly)+"\twrite nowhere, no network", string(sandbox.Off)+"\tno confinement"),
	"status":   fixed(string(blackboard.StatusOK), string(blackboard.StatusPartial), string(blackboard.StatusError), string(blackboard.StatusDegraded)),
}

// Args complete positional arguments, by command path: each
// lists what the argument at that position names ("" = no completion).
var Args = map[string][]Func{
	"resume":        {sessions},
	"sessions show": {sessions},
	"sessions rm":   {sessions},
}

// fixed completes one of a flag's fixed values.
func fixed(values ...string) Func {
	return func(_ context.Context, _ Sources, toComplete string) []string {
		return withPrefix(values, toComplete)
	}
}

// withPrefix keeps the candidates whose value starts with prefix.
func withPrefix(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if v, _, _ := strings.Cut(c, "\t"); strings.HasPrefix(v, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// sessions offers session ids (and names), this directory's first.
func sessions(ctx context.Context, s Sources, toComplete string) []string {
	cfg, err := s.Config()
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(cfg.Home, "state.db")); err != nil {
		return nil // no sessions yet; never create the database here
	}
	st, err := s.Sessions(ctx)
	if err != nil {
		return nil
	}
	cwd, _ := app.WorkspaceDir(s.Dir)
	list, err := st.List(ctx, memory.ListOptions{Cwd: cwd, All: true, HereFirst: true, Limit: 100})
	if err != nil {
		return nil
	}
	var out []string
	for _, in := range list {
		desc := brief.Line(in.Title, 60)
		if in.Name != "" {
			out = append(out, in.Name+"\t"+in.ID+" · "+desc)
			desc = in.Name + " · " + desc
		}
		out = append(out, in.ID+"\t"+desc)
	}
	return withPrefix(out, toComplete)
}

// boards offers board ids, most recently active first.
func boards(_ context.Context, s Sources, toComplete string) []string {
	store, err := s.Board()
	if err != nil {
		return nil
	}
	boards, err := store.Boards()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(boards))
	for _, b := range boards {
		out = append(out, b.ID+"\t"+agents.Count(b.Notes, "note", "notes"))
	}
	return withPrefix(out, toComplete)
}

// agentNames offers the sub-agents of the catalog (yagent agents ls).
func agentNames(_ context.Context, s Sources, toComplete string) []string {
	cfg, err := s.Config()
	if err != nil {
		return nil
	}
	dir := s.Dir
	if dir == "" {
		dir = "."
	}
	known := func(name string) bool { _, ok := toolspec.Lookup(name); return ok }
	catalog := agents.LoadCatalog(agents.Sources{Workspace: dir, Home: cfg.Home, UserHome: cfg.UserHome}, known)
	var out []string
	for _, d := range catalog.All() {
		out = append(out, d.Name+"\t"+brief.Line(d.Description, 60))
	}
	return withPrefix(out, toComplete)
}

// models offers the models configured under models:.
func models(_ context.Context, s Sources, toComplete string) []string {
	cfg, err := s.Config()
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Models)) {
		out = append(out, name+"\t"+cfg.Models[name].Model)
	}
	return withPrefix(out, toComplete)
}

// toolsets offers the toolsets configured under toolsets:.
func toolsets(_ context.Context, s Sources, toComplete string) []string {
	cfg, err := s.Config()
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Toolsets)) {
		out = append(out, name+"\t"+strconv.Itoa(len(cfg.Toolsets[name]))+" tools")
	}
	return withPrefix(out, toComplete)
}
