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
// alone; the note's change.state records the decision, moved under the
// board's lock (blackboard.Store.UpdateChange) so a change is applied at
// most once.
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

// changeOf is the change a note's front matter records.
func changeOf(c *blackboard.NoteChange) *change.Change {
	return &change.Change{Branch: c.Branch, Base: c.Base, Head: c.Head, Files: c.Files,
		Insertions: c.Insertions, Deletions: c.Deletions, GitDir: c.GitDir}
}

// decided refuses a change that is no longer pending.
func decided(ref string, c *blackboard.NoteChange) error {
	switch c.State {
	case blackboard.ChangeApplied:
		return fmt.Errorf("%w: the change of %s was applied already (%s); it is in the workspace, nothing was done", blackboard.ErrChangeState, ref, c.Branch)
	case blackboard.ChangeDiscarded:
		return fmt.Errorf("%w: the change of %s was discarded (%s is gone); delegate the work again to redo it", blackboard.ErrChangeState, ref, c.Branch)
	case blackboard.ChangePending:
		return nil
	}
	return fmt.Errorf("%w: the change of %s is %q", blackboard.ErrChangeState, ref, c.State)
}

func applyChange(ctx context.Context, a *app.App, cps *checkpointer, ref string) (agents.Result, error) {
	board, ok := blackboard.BoardIDFrom(ctx)
	if !ok {
		return agents.ErrorResult("this session has no board, so it has no changes"), nil
	}
	var written []string
	var conflict *change.ConflictError
	var refused string
	already := false
	err := a.Board.UpdateChange(board, ref, func(c *blackboard.NoteChange) error {
		if err := decided(ref, c); err != nil {
			return err
		}
		if ok, why, err := permitApply(ctx, a, ref, c); err != nil || !ok {
			refused = why
			return errors.Join(err, errRefused)
		}
		if err := cps.take(ctx, applyCheckpoint(ref)); err != nil {
			return fmt.Errorf("checkpoint the workspace before the apply (nothing was written): %w", err)
		}
		var err error
		written, err = change.Apply(ctx, a.Workspace.Dir(), changeOf(c))
		switch {
		case errors.Is(err, change.ErrAlreadyApplied):
			already = true
		case err != nil:
			return err
		}
		c.State = blackboard.ChangeApplied
		return nil
	})
	switch {
	case errors.As(err, &conflict):
		return conflictResult(ref, conflict), nil
	case errors.Is(err, errRefused) && refused != "":
		return agents.ErrorResult("apply_change %s: %s", ref, refused), nil
	case err != nil && ctx.Err() != nil:
		return agents.Result{}, ctx.Err()
	case errors.Is(err, errRefused):
		return agents.Result{}, err // the question failed: end the turn
	case err != nil:
		return agents.ErrorResult("apply_change %s: %v", ref, err), nil
	case already:
		return agents.Result{Content: fmt.Sprintf("the workspace holds the change of %s already: nothing written; it is marked applied", ref),
			Summary: "already in the workspace"}, nil
	}
	return agents.Result{
		Content: fmt.Sprintf("applied the change of %s: wrote %s in the workspace (unstaged; HEAD and the index unchanged)", ref, strings.Join(written, ", ")),
		Summary: fmt.Sprintf("applied %d files", len(written)),
	}, nil
}

// errRefused marks an apply the person (or the policy) did not allow.
var errRefused = errors.New("not allowed")

// permitApply asks the approval policy about writing the change's files:
// always when one of them is a protected path, under untrusted every
// time; the patch is shown whole.
func permitApply(ctx context.Context, a *app.App, ref string, c *blackboard.NoteChange) (bool, string, error) {
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
	if patch, err := a.Board.ReadPatch(boardOf(ctx), ref); err == nil {
		q.Args = string(patch)
	}
	return a.Policy.PermitChange(ctx, q, strings.Join(protected, ", "))
}

func boardOf(ctx context.Context) string {
	b, _ := blackboard.BoardIDFrom(ctx)
	return b
}

// conflictResult tells the lead which files and hunks conflict: enough to
// delegate a resolution.
func conflictResult(ref string, e *change.ConflictError) agents.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "the change of %s (%s) conflicts with the workspace in %s; the workspace was not changed and the change stays pending.\n",
		ref, e.Branch, strings.Join(e.Files, ", "))
	b.WriteString("Delegate a resolution (give the worker these hunks and the note's ref), then discard_change this one — or discard it.\n")
	for _, f := range e.Files {
		for i, h := range e.Hunks[f] {
			fmt.Fprintf(&b, "\n%s, conflict %d:\n%s\n", f, i+1, h)
		}
	}
	return agents.Result{Content: b.String(), IsError: true, Summary: fmt.Sprintf("conflict in %d files", len(e.Files))}
}

func discardChange(ctx context.Context, a *app.App, ref string) (agents.Result, error) {
	board, ok := blackboard.BoardIDFrom(ctx)
	if !ok {
		return agents.ErrorResult("this session has no board, so it has no changes"), nil
	}
	var branch string
	err := a.Board.UpdateChange(board, ref, func(c *blackboard.NoteChange) error {
		if err := decided(ref, c); err != nil {
			return err
		}
		branch = c.Branch
		if err := change.Discard(context.WithoutCancel(ctx), a.Workspace.Dir(), changeOf(c), ""); err != nil {
			return err
		}
		c.State = blackboard.ChangeDiscarded
		return nil
	})
	if err != nil {
		return agents.ErrorResult("discard_change %s: %v", ref, err), nil
	}
	return agents.Result{Content: fmt.Sprintf("discarded the change of %s: %s is gone, the workspace is as it was", ref, branch), Summary: "discarded"}, nil
}
