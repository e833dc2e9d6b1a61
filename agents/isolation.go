package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
)

// Isolation modes of a delegation (agents.isolation, a definition's
// isolation, delegate's isolation argument).
const (
	IsolationAuto     = "auto"
	IsolationNone     = "none"
	IsolationWorktree = "worktree"
)

// Isolation is how a runner isolates the delegations that write (issue
// 28), as config resolved it.
type Isolation struct {
	// Mode is agents.isolation: auto (a worktree for an agent that can
	// write, none for the others), none or worktree.
	Mode string
	// Root is where worktrees and snapshots live
	// ($YAGENT_HOME/worktrees); "" means delegations are never isolated.
	Root string
	// Include are ignored paths copied into a worktree
	// (agents.isolation_include).
	Include []string
	// MaxBytes bounds a snapshot's copy (agents.isolation_max_bytes);
	// 0 = no bound.
	MaxBytes int64
	// Said makes the snapshot fallback (a workspace that is no git
	// repository) said once per run; nil says it at each delegation.
	Said *sync.Once
}

// writingTools are the tools that change the workspace.
var writingTools = []string{"write_file", "edit_file", "shell"}

// isolates decides whether d runs in a worktree of its own: the
// delegation's choice, else its definition's, else the configuration's;
// auto isolates an agent that has a tool that writes. A delegation made
// by an isolated sub-agent (max_depth above 1) works in its parent's
// worktree: its edits become part of the parent's change.
func (r *SubRunner) isolates(ctx context.Context, d Delegation, def *Definition, tools []*Tool) bool {
	if d.Base != nil {
		// Sent from a coordinator that isolates it: a worker host's
		// worktree at the coordinator's base, whose change travels back.
		return true
	}
	if r.Isolation.Root == "" || r.Land != nil || WorkspaceFrom(ctx) != nil {
		// No root, a worker host whose note lands elsewhere and was sent
		// no base (the coordinator does not isolate it), or a parent's
		// worktree already.
		return false
	}
	for _, m := range []string{d.Isolation, def.Isolation, r.Isolation.Mode} {
		switch m {
		case IsolationNone:
			return false
		case IsolationWorktree:
			return true
		}
	}
	return slices.ContainsFunc(tools, func(t *Tool) bool { return slices.Contains(writingTools, t.Name) })
}

// Isolates reports whether the delegation d of the prepared definition
// def would run isolated in this process: a distributed batch's
// coordinator asks it to send the job its base (change.Capture).
func (r *SubRunner) Isolates(ctx context.Context, d Delegation, def *Definition) bool {
	return r.isolates(ctx, d, def, r.tools(def, d.Depth))
}

// isolation is one delegation's worktree (or snapshot) and the workspace
// its tools see there.
type isolation struct {
	tree  *change.Worktree
	ws    *Workspace
	board string
	stem  string
	warn  func(string) // a notice of the run
	// remote: the delegation came from another host (Delegation.Base):
	// its worktree and branch go once the change is recorded, and patch
	// (binary) carries the change back.
	remote bool
	patch  []byte
}

// isolate makes the worktree of a delegation whose note will be stem: a
// git worktree of the person's workspace, or a snapshot when it is no git
// repository (said once per runner).
func (r *SubRunner) isolate(ctx context.Context, board, stem string, base *change.Base) (*isolation, error) {
	person := r.Workspace.Dir()
	board = blackboard.SanitizeBoardID(board)
	if r.Isolation.Root == "" {
		return nil, fmt.Errorf("isolate the delegation: this host has no directory for worktrees (set YAGENT_HOME)")
	}
	var tree *change.Worktree
	var err error
	if base != nil {
		tree, err = change.IsolateAt(ctx, person, r.Isolation.Root, board, stem, base)
	} else {
		tree, err = change.Isolate(ctx, person, r.Isolation.Root, board, stem)
	}
	if errors.Is(err, change.ErrNotRepository) {
		say := func() {
			r.notice(fmt.Sprintf("the workspace %s is no git repository: each writing delegation works in a copy of it (a snapshot, at most agents.isolation_max_bytes) and hands back its change", person))
		}
		if r.Isolation.Said != nil {
			r.Isolation.Said.Do(say)
		} else {
			say()
		}
		tree, err = change.Snapshot(ctx, person, r.Isolation.Root, board, stem, r.Isolation.MaxBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("isolate the delegation: %w (delegate with isolation: none to work in the workspace itself)", err)
	}
	iso := &isolation{tree: tree, board: board, stem: stem, warn: r.notice, remote: base != nil}
	if _, err := tree.Include(ctx, person, r.Isolation.Include, r.Isolation.MaxBytes); err != nil {
		iso.discard(ctx)
		return nil, err
	}
	if iso.ws, err = OpenWorkspace(tree.Workspace); err != nil {
		iso.discard(ctx)
		return nil, err
	}
	for _, w := range tree.Warnings {
		r.notice("warning: " + w)
	}
	return iso, nil
}

// discard drops the worktree and its branch: nothing refers to them.
func (iso *isolation) discard(ctx context.Context) {
	if iso.ws != nil {
		iso.ws.Close()
		iso.ws = nil
	}
	ctx = context.WithoutCancel(ctx)
	c := &change.Change{Branch: iso.tree.Branch, Base: iso.tree.Base, GitDir: iso.tree.GitDir}
	change.Discard(ctx, iso.tree.Repo, c, iso.tree.Dir)
}

// finish records what the delegation left in its worktree as the change
// on its branch and removes the worktree (the branch keeps the change; a
// removal that fails is a warning); an empty change is discarded whole
// and is nil. A worktree that went during the run is an error naming it.
func (iso *isolation) finish(ctx context.Context, agent string) (*change.Change, error) {
	iso.ws.Close()
	iso.ws = nil
	ctx = context.WithoutCancel(ctx)
	c, err := iso.tree.Commit(ctx, fmt.Sprintf("yagent: %s's change (%s/%s)", agent, iso.board, iso.stem))
	if err != nil {
		iso.discard(ctx)
		return nil, err
	}
	if c.Empty() {
		iso.discard(ctx)
		return nil, nil
	}
	if iso.remote {
		// The change travels back as a binary patch; the coordinator
		// imports it as the branch of its own repository. Nothing stays
		// on this host.
		iso.patch, err = iso.tree.BinaryPatch(ctx, c)
		iso.discard(ctx)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	if err := iso.tree.Remove(ctx); err != nil && iso.warn != nil {
		// The change is safe on its branch; the directory is a leftover.
		iso.warn(fmt.Sprintf("warning: could not remove the worktree %s (its change is on %s): %v", iso.tree.Dir, c.Branch, err))
	}
	return c, nil
}

func (r *SubRunner) notice(text string) {
	if r.Events != nil {
		r.Events.Emit(Event{Type: EventNotice, Time: time.Now(), Agent: "yagent", Text: text})
	}
}
