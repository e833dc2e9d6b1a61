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
// directory whose name never ends in ".md", synced, renamed into place, and
// the directory is synced after the rename. Readers accept only names of the
// note-stem shape, so a half-written file is never taken for a note, and they
// count damaged notes instead of failing. Notes are never rewritten once
// written; legacy (v1) notes are read-only.
//
// The package decides neither when nor what to write (the agents' delegation
// wrap-up does) and stores no artifacts: artifact probing is injected as an
// ArtifactInfoFn.
package blackboard
