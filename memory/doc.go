// Package memory keeps conversations: rollout files (JSONL, append-only,
// one per session, sub-agents included), the session rows of the state
// database, the history rebuilt from a rollout for /resume, compaction,
// token accounting and the context-pressure line.
//
// Format: one event of package event per line (what --json prints, grown
// by whole messages, compactions and the token anchor), session_meta
// first; rollouts of version 1 are converted as they are read, never
// rewritten (convert.go).
//
// Durability: every event is appended to the rollout as it happens, in one
// write, and the file is synced at turn boundaries and at delegation start
// and finish, so a killed process leaves a rollout that says what was in
// flight. A torn last line (the crash hit mid-write) is skipped with a
// warning on read, never fatal. The transient tail of a request is never
// written. Rollout format version: RolloutVersion.
//
// Concurrency: a session has one writing process. Create and Resume take
// an advisory lock (flock) on a file beside the rollout and keep it until
// Close; another process gets a *BusyError or waits (LockOptions.Wait).
// The kernel releases the lock of a process that dies. Within the process,
// a Session's methods are safe for concurrent use.
package memory
