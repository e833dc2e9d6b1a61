// Package change isolates a writing delegation in a git worktree of its
// own and turns what it did into a change — a branch, a diffstat and a
// patch — that reaches the person's working tree only when applied on
// purpose.
//
// Isolate starts a worktree from the person's HEAD plus their uncommitted
// changes, tracked and untracked-not-ignored alike, on the branch
// yagent/<board>/<note>; Worktree.Commit records what the delegation left
// there as one commit on that branch and returns the Change; Apply merges a
// change into the working tree three-way (git merge-tree --write-tree: the
// index and HEAD are never touched) and writes only the files the change
// touches, as unstaged changes; a conflict leaves the working tree as it
// was and names the files and hunks; Discard drops the branch.
//
// Every commit yagent makes is plumbing (a private index, write-tree,
// commit-tree, update-ref), so the person's hooks and signing never run;
// every git yagent runs has hooks, fsmonitor, signing and automatic gc off.
// Nothing is written into the person's index, HEAD, stash or branches but
// the yagent/ branches.
package change
