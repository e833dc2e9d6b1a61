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
}
