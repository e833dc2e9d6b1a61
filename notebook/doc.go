// Package notebook is the lead's notebook: what the director decided not
// to lose within a session. Notes live in the state database (chat_notes),
// survive the live window, compaction and /clear, and are shown in the
// transient tail's [state] block — bodies verbatim while the notebook is
// small (inline mode), name — description lines plus pinned notes once it
// grows (index mode, with chat_note_read). Modes switch with hysteresis and
// are fixed for a turn. When it grows past the compact thresholds it is
// rebuilt by the model after the turn, with every check of seed 000 before
// the swap and the old notebook archived first.
//
// Sub-agents never see the notebook: its tools are LeadOnly and
// MasterOnly, and neither its rules nor its block are in their prompts.
package notebook
