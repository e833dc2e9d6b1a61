package statedb

// migrations are applied in order; migrations[i] takes the schema from
// version i to i+1. Never edit a released migration: append a new one.
var migrations = []string{
	// 1: sessions and spend.
	`
CREATE TABLE chats (
	id                TEXT PRIMARY KEY,
	kind              TEXT NOT NULL,
	title             TEXT NOT NULL DEFAULT '',
	name              TEXT UNIQUE,
	cwd               TEXT NOT NULL DEFAULT '',
	model             TEXT NOT NULL DEFAULT '',
	parent_id         TEXT,
	rollout           TEXT NOT NULL,
	created           INTEGER NOT NULL,
	updated           INTEGER NOT NULL,
	board_id          TEXT NOT NULL,
	turns             INTEGER NOT NULL DEFAULT 0,
	summary_upto      INTEGER NOT NULL DEFAULT 0,
	notes_mode        TEXT NOT NULL DEFAULT 'inline',
	notes_nudged_upto INTEGER NOT NULL DEFAULT 0,
	wrap_nudged_upto  INTEGER NOT NULL DEFAULT -1,
	next_sleep_at     INTEGER,
	deleted           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chats_updated ON chats(deleted, updated);
CREATE INDEX chats_parent ON chats(parent_id);
CREATE TABLE spend (
	chat_id           TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
	label             TEXT NOT NULL,
	requests          INTEGER NOT NULL DEFAULT 0,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	cached_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (chat_id, label)
);
`,
	// 2: the lead's notebook, its archive and the visit mark.
	`
CREATE TABLE chat_notes (
	chat_id     TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
	name        TEXT NOT NULL,
	description TEXT NOT NULL,
	body        TEXT NOT NULL,
	prev_body   TEXT NOT NULL DEFAULT '',
	pinned      INTEGER NOT NULL DEFAULT 0,
	created     INTEGER NOT NULL,
	updated     INTEGER NOT NULL,
	PRIMARY KEY (chat_id, name)
);
CREATE TABLE chat_notes_archive (
	chat_id  TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
	archived INTEGER NOT NULL,
	notes    TEXT NOT NULL
);
ALTER TABLE chats ADD COLUMN notes_seen_at INTEGER NOT NULL DEFAULT 0;
`,
	// 3: tool curation ("sleep"): per-turn statistics, loads of hidden
	// tools, tool profiles, the environment snapshot, the journal.
	`
CREATE TABLE turn_stats (
	chat_id  TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
	turn     INTEGER NOT NULL,
	at       INTEGER NOT NULL,
	day      TEXT NOT NULL,
	messages INTEGER NOT NULL,
	PRIMARY KEY (chat_id, turn)
);
CREATE TABLE tool_stats (
	chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
	turn    INTEGER NOT NULL,
	tool    TEXT NOT NULL,
	calls   INTEGER NOT NULL,
	PRIMARY KEY (chat_id, turn, tool)
);
CREATE TABLE tool_loads (
	chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
	tool    TEXT NOT NULL,
	at      INTEGER NOT NULL
);
CREATE INDEX tool_loads_chat ON tool_loads(chat_id, at);
CREATE TABLE tool_profiles (
	chat_id      TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
	visible      TEXT NOT NULL DEFAULT '[]',
	pinned       TEXT NOT NULL DEFAULT '[]',
	curated      INTEGER NOT NULL DEFAULT 0,
	last_curated INTEGER NOT NULL DEFAULT 0,
	updated      INTEGER NOT NULL
);
CREATE TABLE chat_turn_env (
	chat_id TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
	access  TEXT NOT NULL DEFAULT '',
	gates   INTEGER NOT NULL DEFAULT 0,
	model   TEXT NOT NULL DEFAULT '',
	window  INTEGER NOT NULL DEFAULT 0,
	updated INTEGER NOT NULL
);
CREATE TABLE sleep_runs (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	chat_id   TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
	started   INTEGER NOT NULL,
	finished  INTEGER NOT NULL DEFAULT 0,
	status    TEXT NOT NULL,
	reason    TEXT NOT NULL DEFAULT '',
	dry_run   INTEGER NOT NULL DEFAULT 0,
	added     TEXT NOT NULL DEFAULT '[]',
	removed   TEXT NOT NULL DEFAULT '[]',
	plan      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sleep_runs_chat ON sleep_runs(chat_id, started);
ALTER TABLE chats ADD COLUMN sleep_started INTEGER;
`,
	// 4: the notebook rebuild's backoff: failed rebuilds in a row and the
	// first turn that may try again.
	`
ALTER TABLE chats ADD COLUMN notes_rebuild_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chats ADD COLUMN notes_rebuild_after INTEGER NOT NULL DEFAULT 0;
`,
	// 5: the owner of an in-process batch's plan run: one row per board
	// and plan digest, held by the process whose lease (expires, unix ms)
	// it renews; token grows with each new holder.
	`
CREATE TABLE batch_leases (
	board       TEXT NOT NULL,
	digest      TEXT NOT NULL,
	holder_host TEXT NOT NULL,
	holder_pid  INTEGER NOT NULL,
	token       INTEGER NOT NULL,
	since       INTEGER NOT NULL,
	expires     INTEGER NOT NULL,
	PRIMARY KEY (board, digest)
);
`,
	// 6: budgets (budget): what each scope — a session, a plan run, a
	// batch entry — spent on models, summed by every process.
	`
CREATE TABLE budget_spend (
	scope   TEXT PRIMARY KEY,
	cost    REAL NOT NULL DEFAULT 0,
	tokens  INTEGER NOT NULL DEFAULT 0,
	calls   INTEGER NOT NULL DEFAULT 0,
	updated INTEGER NOT NULL
);
`,
	// 7: how a session's last turn ended (agents.Outcome.Reason: answer,
	// length, agent_exit, max_steps, cancelled, error; '' before its
	// first), the STATUS of `yagent sessions ls`.
	`
ALTER TABLE chats ADD COLUMN last_reason TEXT NOT NULL DEFAULT '';
`,
}
