package agents

import (
	"context"

	"github.com/yagent/yagent/sandbox"
)

// runWorkspaceKey carries a run's own workspace in its context.
type runWorkspaceKey struct{}

// WithWorkspace makes ws the workspace of the file, search and shell tools
// called with the returned context: a delegation isolated in its worktree
// (issue 28) works there, while the same tools called by the director
// keep the workspace they were built over. The shell's sandbox is the
// tool's policy over ws (sandbox.Policy.ForWorkspace: ws writable, the
// person's workspace read-only).
func WithWorkspace(ctx context.Context, ws *Workspace) context.Context {
	return context.WithValue(ctx, runWorkspaceKey{}, ws)
}

// WorkspaceFrom is the workspace WithWorkspace set, or nil.
func WorkspaceFrom(ctx context.Context) *Workspace {
	ws, _ := ctx.Value(runWorkspaceKey{}).(*Workspace)
	return ws
}

// in is the workspace a call with ctx works in: the run's own when it has
// one, else w.
func (w *Workspace) in(ctx context.Context) *Workspace {
	if ws := WorkspaceFrom(ctx); ws != nil {
		return ws
	}
	return w
}

// sandboxFor is policy's sandbox over the workspace ws a call works in:
// the policy's own for the workspace it was built for, else the same
// policy over ws, which ws alone may write.
func (w *Workspace) sandboxFor(policy *sandbox.Policy, ws *Workspace) (*sandbox.Policy, error) {
	if policy == nil || ws == w {
		return policy, nil
	}
	return policy.ForWorkspace(ws.Dir())
}
