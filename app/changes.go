package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
)

// Changes decides a board's changes (issue 28): the director's
// apply_change/discard_change and `yagent changes apply|discard` are this
// one implementation. The note's change.state records the decision, moved
// under the board's lock (blackboard.Store.UpdateChange), so a change is
// applied at most once whoever applies it.
type Changes struct {
	Board     *blackboard.Store
	Workspace string // the person's working directory the changes merge into
	// Root is where the isolations live ($YAGENT_HOME/worktrees).
	Root string
}

// ChangeWorktrees is the root of the delegations' worktrees under home.
func ChangeWorktrees(home string) string { return filepath.Join(home, "worktrees") }

// PermitChange decides whether a pending change may be written: the
// director asks its approval policy; the CLI, which acts on the person's
// word, passes nil. why says why not.
type PermitChange func(c *blackboard.NoteChange) (ok bool, why string, err error)

// RefusedError is an apply the person or the policy did not allow.
type RefusedError struct{ Ref, Why string }

func (e *RefusedError) Error() string { return fmt.Sprintf("apply the change of %s: %s", e.Ref, e.Why) }

// Applied is what an apply did.
type Applied struct {
	Branch  string
	Written []string // the files written in the workspace
	Already bool     // the workspace held the change already: nothing written
}

// ChangeOf is the change a note's front matter records.
func ChangeOf(c *blackboard.NoteChange) *change.Change {
	return &change.Change{Branch: c.Branch, Base: c.Base, Head: c.Head, Files: c.Files,
		Insertions: c.Insertions, Deletions: c.Deletions, GitDir: c.GitDir}
}

// decided refuses a change that is no longer pending
// (blackboard.ErrChangeState).
func decided(ref string, c *blackboard.NoteChange) error {
	switch c.State {
	case blackboard.ChangeApplied:
		return stateError(fmt.Sprintf("the change of %s was applied already (%s); it is in the workspace, nothing was done", ref, c.Branch))
	case blackboard.ChangeDiscarded:
		return stateError(fmt.Sprintf("the change of %s was discarded (%s is gone); delegate the work again to redo it", ref, c.Branch))
	case blackboard.ChangePending:
		return nil
	}
	return stateError(fmt.Sprintf("the change of %s is %q, not pending", ref, c.State))
}

// stateError is a change no longer pending: one message, and
// errors.Is(err, blackboard.ErrChangeState).
type stateError string

func (e stateError) Error() string        { return string(e) }
func (e stateError) Is(target error) bool { return target == blackboard.ErrChangeState }

// update is Board.UpdateChange with decide's own error returned as it is
// (it says which change already; UpdateChange's prefix would say it twice).
func (x *Changes) update(board, ref string, decide func(c *blackboard.NoteChange) error) error {
	var said error
	err := x.Board.UpdateChange(board, ref, func(c *blackboard.NoteChange) error {
		said = decide(c)
		return said
	})
	if said != nil {
		return said
	}
	return err
}

// Apply merges the pending change of the note ref into the workspace
// (change.Apply: three-way, only its files, HEAD and the index untouched)
// and marks it applied. A conflict is a *change.ConflictError and changes
// nothing (the change stays pending); a change no longer pending wraps
// blackboard.ErrChangeState; permit's refusal is a *RefusedError.
func (x *Changes) Apply(ctx context.Context, board, ref string, permit PermitChange) (Applied, error) {
	var out Applied
	err := x.update(board, ref, func(c *blackboard.NoteChange) error {
		if err := decided(ref, c); err != nil {
			return err
		}
		out.Branch = c.Branch
		if permit != nil {
			ok, why, err := permit(c)
			if err != nil {
				return err
			}
			if !ok {
				return &RefusedError{Ref: ref, Why: why}
			}
		}
		written, err := change.Apply(ctx, x.Workspace, ChangeOf(c))
		switch {
		case errors.Is(err, change.ErrAlreadyApplied):
			out.Already = true
		case err != nil:
			return err
		}
		out.Written = written
		c.State = blackboard.ChangeApplied
		return nil
	})
	return out, err
}

// Discard drops the pending change of the note ref (its branch and
// worktree) and marks it discarded.
func (x *Changes) Discard(ctx context.Context, board, ref string) (branch string, err error) {
	err = x.update(board, ref, func(c *blackboard.NoteChange) error {
		if err := decided(ref, c); err != nil {
			return err
		}
		branch = c.Branch
		if err := change.Discard(context.WithoutCancel(ctx), x.Workspace, ChangeOf(c), x.worktree(board, ref)); err != nil {
			return err
		}
		c.State = blackboard.ChangeDiscarded
		return nil
	})
	return branch, err
}

// worktree is the directory an isolation of the note ref would have.
func (x *Changes) worktree(board, ref string) string {
	if x.Root == "" {
		return ""
	}
	_, stem, _ := strings.Cut(ref, "/")
	return filepath.Join(x.Root, board, stem)
}

// List returns the notes of board that carry a change: the pending ones,
// or every one with all.
func (x *Changes) List(board string, all bool) ([]blackboard.NoteMeta, error) {
	res, err := x.Board.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []blackboard.NoteMeta
	for _, m := range res.Notes {
		if m.Change != nil && (all || m.Change.State == blackboard.ChangePending) {
			out = append(out, m)
		}
	}
	return out, nil
}

// Stale lists the isolations no note claims (change.Leftovers): a branch
// or worktree whose note is gone, or whose change was decided.
// A worktree younger than a day whose note has not landed yet may be a
// delegation still running, and is claimed.
func (x *Changes) Stale(ctx context.Context) ([]change.Leftover, error) {
	all, err := change.Leftovers(ctx, x.Workspace, x.Root)
	if err != nil {
		return nil, err
	}
	var out []change.Leftover
	for _, l := range all {
		if !x.claimed(l.Board, l.Note) {
			out = append(out, l)
		}
	}
	return out, nil
}

// Collect removes the isolations Stale lists (change.Collect).
func (x *Changes) Collect(ctx context.Context) ([]change.Leftover, error) {
	return change.Collect(ctx, x.Workspace, x.Root, x.claimed)
}

// claimed says whether a note of board still needs the isolation of note:
// its change is pending, or it has not landed and its worktree is fresh.
func (x *Changes) claimed(board, note string) bool {
	if blackboard.CheckBoardID(board) != nil || !blackboard.IsNoteStem(note) {
		return false
	}
	res, err := x.Board.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		return true // unreadable: never remove what might be needed
	}
	for _, m := range res.Notes {
		if m.Stem == note {
			return m.Change != nil && m.Change.State == blackboard.ChangePending
		}
	}
	fi, err := os.Stat(filepath.Join(x.Root, board, note))
	return err == nil && time.Since(fi.ModTime()) < 24*time.Hour
}

// ConflictHunks lists a conflict's hunks, file by file, with git's markers.
func ConflictHunks(e *change.ConflictError) string {
	var b strings.Builder
	for _, f := range e.Files {
		for i, h := range e.Hunks[f] {
			fmt.Fprintf(&b, "\n%s, conflict %d:\n%s\n", f, i+1, h)
		}
	}
	return b.String()
}
