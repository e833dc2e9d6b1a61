package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
)

// cmdMkChange implements "mkchange VAR WS BOARD AGENT FILE SRC": a writing
// delegation as the director's runner makes one (change.Isolate under
// $YAGENT_HOME/worktrees, FILE written with SRC's content, Commit), landed
// on BOARD as a note carrying the pending change and its patch; VAR is set
// to the note's ref, VAR_STEM to its stem.
func cmdMkChange(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 6 {
		ts.Fatalf("usage: mkchange VAR WS BOARD AGENT FILE SRC")
	}
	store := blackboard.Open(ts.Getenv("YAGENT_NOTES_ROOT"))
	meta, err := landChange(context.Background(), store, ts.MkAbs(args[1]), filepath.Join(ts.Getenv("YAGENT_HOME"), "worktrees"),
		args[2], args[3], args[4], ts.ReadFile(args[5]))
	ts.Check(err)
	ts.Setenv(args[0], meta.Ref)
	ts.Setenv(args[0]+"_STEM", meta.Stem)
}

// landChange isolates ws (a git worktree, else a snapshot copy) under
// root, writes file there, commits the change and lands it on board as
// agent's note, pending.
func landChange(ctx context.Context, store *blackboard.Store, ws, root, board, agent, file, content string) (blackboard.NoteMeta, error) {
	stem := store.NewStem()
	w, err := change.Isolate(ctx, ws, root, board, stem)
	if errors.Is(err, change.ErrNotRepository) {
		w, err = change.Snapshot(ctx, ws, root, board, stem, 1<<30)
	}
	if err != nil {
		return blackboard.NoteMeta{}, err
	}
	if err := os.WriteFile(filepath.Join(w.Dir, file), []byte(content), 0o644); err != nil {
		return blackboard.NoteMeta{}, err
	}
	ch, err := w.Commit(ctx, "edit "+file)
	if err != nil {
		return blackboard.NoteMeta{}, err
	}
	if err := w.Remove(ctx); err != nil {
		return blackboard.NoteMeta{}, err
	}
	return store.WriteNote(board, blackboard.NewNote{Stem: stem, Patch: ch.Patch, Handoff: blackboard.Handoff{
		Status: blackboard.StatusOK, Agent: agent, Task: "edit " + file, Conclusion: "edited " + file,
		Change: &blackboard.NoteChange{Branch: ch.Branch, Base: ch.Base, Head: ch.Head, Files: ch.Files,
			Insertions: ch.Insertions, Deletions: ch.Deletions, State: blackboard.ChangePending, GitDir: ch.GitDir}}})
}
