// Package blackboard stores one handoff note per finished delegation and
// builds a derived, transient index of a board by rescanning the disk.
//
// On disk a board is notes/{boardID}/{agent}/{stem}.md: YAML front matter
// holding the structured Handoff, then the full deliverable as the body. The
// wire form of a note's ref is "{agent}/{stem}".
//
// Concurrency and durability: any number of goroutines and processes may
// write to one board at once. Stems are unique by construction (timestamp,
// per-process random tag, pid and an in-process counter), so two writers never
// pick the same name; each note is written to a temporary file in its own
// directory whose name never ends in ".md", synced, moved into place only if
// no file has that name (a note is never replaced, even by another host on a
// shared folder), and the directory is synced after the move. Readers accept only names of the
// note-stem shape, so a half-written file is never taken for a note, and they
// count damaged notes instead of failing. Reads are bounded: listing and
// the index read a note's front matter only, bodies are paged or streamed,
// and a note over the store's limit is never loaded whole. Notes are never
// rewritten once written — with one exception: the state of a note's
// change (pending, then applied or discarded), which UpdateChange replaces
// atomically under a lock (flock) on the agent's directory, held while the
// caller merges or drops the change, so two processes never both apply
// one; legacy (v1) notes are read-only.
//
// One artifact is stored: a note that carries a change (an isolated
// delegation's, issue 28) has its patch beside it, {stem}.patch, written
// (never replaced) just before the note and removed with it by GC. The
// package decides neither when nor what to write (the agents' delegation
// wrap-up does); other artifacts are the workspace's, probed through an
// injected ArtifactInfoFn.
//
// Teams (issue 30 item 4): task notes ({board}/.tasks/) and messages
// ({board}/.mail/) are written like notes — once, under a new name,
// never over a file. A claim is created exclusively by the Claims the
// store was given: files by default ({board}/.claims/{stem}.claim,
// moved in only where none is), or PostgreSQL rows (queue.Claims); of
// any number of claimants, on any processes, exactly one wins. A task's
// state is never stored: it is derived on every read from its claim and
// the note the claim names. Only the claimant removes its own claim, and
// only while its note has not landed (ReleaseClaim).
package blackboard
