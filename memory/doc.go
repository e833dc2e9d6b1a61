// Package memory keeps conversations: rollout files (JSONL, append-only,
// one per session, sub-agents included), the session rows of the state
// database, the history rebuilt from a rollout for /resume, compaction,
// token accounting and the context-pressure line.
//
// Durability: every item is appended to the rollout as it happens, in one
// write, and the file is synced at turn boundaries and at delegation start
// and finish, so a killed process leaves a rollout that says what was in
// flight. A torn last line (the crash hit mid-write) is skipped with a
// warning on read, never fatal. The transient tail of a request is never
// written. Rollout format version: RolloutVersion.
package memory
