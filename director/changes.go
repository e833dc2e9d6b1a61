package director

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
)

// changeIn are apply_change's and discard_change's arguments
// (schemas.json has their descriptions).
type changeIn struct {
	Ref string `json:"ref"`
}

// ChangeTools are the lead's decisions on a delegation's change (issue
// 28): apply_change merges it into the person's workspace, discard_change
// drops it. Both write (a read-only turn has neither) and are the lead's
// alone. The work is app.Changes, the one implementation `yagent changes
// apply|discard` shares; here the approval policy is asked first.
//
// Before a change is applied the workspace is checkpointed (cps, nil:
// none), so rewinding that delegation reverts exactly its change.
func ChangeTools(a *app.App, cps *checkpointer) []*agents.Tool {
	return []*agents.Tool{
		agents.NewTool("apply_change", "director", agents.LeadOnly|agents.Writes, func(ctx context.Context, _ *agents.Call, in changeIn) (agents.Result, error) {
			return applyChange(ctx, a, cps, in.Ref)
		}),
		agents.NewTool("discard_change", "director", agents.LeadOnly|agents.Writes, func(ctx context.Context, _ *agents.Call, in changeIn) (agents.Result, error) {
			return discardChange(ctx, a, in.Ref)
		}),
	}
}

// changesOf is the app's changes over the person's workspace.
func changesOf(a *app.App) *app.Changes {
	return &app.Changes{Board: a.Board, Workspace: a.Workspace.Dir(), Root: a.Runner.Isolation.Root}
}

func applyChange(ctx context.Context, a *app.App, cps *checkpointer, ref string) (agents.Result, error) {
	board, ok := blackboard.BoardIDFrom(ctx)
	if !ok {
		return agents.ErrorResult("this session has no board, so it has no changes"), nil
	}
	var askErr error // the question failed: end the turn
	done, err := changesOf(a).Apply(ctx, board, ref, func(c *blackboard.NoteChange) (bool, string, error) {
		ok, why, err := permitApply(ctx, a, board, ref, c)
		if err != nil || !ok {
			askErr = err
			return ok, why, err
		}
		if err := cps.take(ctx, applyCheckpoint(ref)); err != nil {
			return false, "", fmt.Errorf("checkpoint the workspace before the apply (nothing was written): %w", err)
		}
		return true, "", nil
	})
	var conflict *change.ConflictError
	var refused *app.RefusedError
	switch {
	case errors.As(err, &conflict):
		return conflictResult(ref, conflict), nil
	case errors.As(err, &refused):
		return agents.ErrorResult("apply_change %s: %s", ref, refused.Why), nil
	case err != nil && ctx.Err() != nil:
		return agents.Result{}, ctx.Err()
	case askErr != nil:
		return agents.Result{}, err
	case err != nil:
		return agents.ErrorResult("apply_change %s: %v", ref, err), nil
	case done.Already:
		return agents.Result{Content: fmt.Sprintf("the workspace holds the change of %s already: nothing written; it is marked applied", ref),
			Summary: "already in the workspace"}, nil
	}
	return agents.Result{
		Content: fmt.Sprintf("applied the change of %s: wrote %s in the workspace (unstaged; HEAD and the index unchanged)", ref, strings.Join(done.Written, ", ")),
		Summary: "applied " + fileList(done.Written),
	}, nil
}

// permitApply asks the approval policy about writing the change's files:
// always when one of them is a protected path, under untrusted every
// time; the patch is shown whole.
func permitApply(ctx context.Context, a *app.App, board, ref string, c *blackboard.NoteChange) (bool, string, error) {
	var protected, why []string
	for _, f := range c.Files {
		if w, ok := a.Workspace.Protected(filepath.FromSlash(f)); ok {
			protected = append(protected, f)
			why = append(why, w)
		}
	}
	q := agents.Question{
		Action: fmt.Sprintf("apply_change %s: merge %s (%d files, +%d -%d: %s) into the workspace", ref, c.Branch, len(c.Files), c.Insertions, c.Deletions, strings.Join(c.Files, ", ")),
		Why:    strings.Join(why, "; "),
	}
	if patch, err := a.Board.ReadPatch(board, ref); err == nil {
		q.Args = string(patch)
	}
	return a.Policy.PermitChange(ctx, q, strings.Join(protected, ", "))
}

// conflictResult tells the lead which files and hunks conflict: enough to
// delegate a resolution.
func conflictResult(ref string, e *change.ConflictError) agents.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "the change of %s (%s) conflicts with the workspace in %s; the workspace was not changed and the change stays pending.\n",
		ref, e.Branch, strings.Join(e.Files, ", "))
	b.WriteString("Delegate a resolution (give the worker these hunks and the note's ref), then discard_change this one — or discard it.\n")
	b.WriteString(app.ConflictHunks(e))
	return agents.Result{Content: b.String(), IsError: true, Summary: "conflict in " + fileList(e.Files)}
}

// fileList names up to three files, then how many more: a tool line.
func fileList(files []string) string {
	if len(files) <= 3 {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:3], ", "), len(files)-3)
}

func discardChange(ctx context.Context, a *app.App, ref string) (agents.Result, error) {
	board, ok := blackboard.BoardIDFrom(ctx)
	if !ok {
		return agents.ErrorResult("this session has no board, so it has no changes"), nil
	}
	branch, err := changesOf(a).Discard(ctx, board, ref)
	if err != nil {
		return agents.ErrorResult("discard_change %s: %v", ref, err), nil
	}
	return agents.Result{Content: fmt.Sprintf("discarded the change of %s: %s is gone, the workspace is as it was", ref, branch), Summary: "discarded"}, nil
}
