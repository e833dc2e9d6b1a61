-- Schema version 1 of the knowledge base (kb.db).
-- Times are Unix microseconds (UTC). Public ids are derived from integer keys:
-- notes "n<id>", principals "p<id>", tokens "t<id>".

CREATE TABLE schema_version (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
);

CREATE TABLE principals (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
);

CREATE TABLE spaces (
	id         INTEGER PRIMARY KEY,
	slug       TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
);

-- handle is "space" for a space's root project (slug '') and "space/slug" otherwise.
CREATE TABLE projects (
	id         INTEGER PRIMARY KEY,
	space_id   INTEGER NOT NULL REFERENCES spaces(id),
	slug       TEXT NOT NULL,
	handle     TEXT NOT NULL UNIQUE,
	name       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	created_by INTEGER NOT NULL REFERENCES principals(id),
	UNIQUE (space_id, slug)
);

-- Former handles of renamed projects; they keep resolving to the project.
CREATE TABLE project_aliases (
	handle     TEXT PRIMARY KEY,
	project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE members (
	project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	principal_id INTEGER NOT NULL REFERENCES principals(id),
	created_at   INTEGER NOT NULL,
	PRIMARY KEY (project_id, principal_id)
) WITHOUT ROWID;

-- A domain holds notes: either a project or one principal's personal domain.
CREATE TABLE domains (
	id         INTEGER PRIMARY KEY,
	project_id INTEGER UNIQUE REFERENCES projects(id) ON DELETE CASCADE,
	owner_id   INTEGER UNIQUE REFERENCES principals(id),
	CHECK ((project_id IS NULL) <> (owner_id IS NULL))
);

CREATE TABLE tokens (
	id           INTEGER PRIMARY KEY,
	principal_id INTEGER NOT NULL REFERENCES principals(id),
	name         TEXT NOT NULL,
	hash         TEXT NOT NULL UNIQUE, -- hex sha256 of the plaintext
	write        INTEGER NOT NULL,
	scoped       INTEGER NOT NULL, -- 1: limited to token_projects (even if that empties)
	created_at   INTEGER NOT NULL,
	revoked_at   INTEGER
);
CREATE UNIQUE INDEX tokens_live_name ON tokens(principal_id, name) WHERE revoked_at IS NULL;

CREATE TABLE token_projects (
	token_id   INTEGER NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
	project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	PRIMARY KEY (token_id, project_id)
) WITHOUT ROWID;

-- Small columns first, body and front matter last: filters never read
-- past them into a long body.
CREATE TABLE notes (
	id            INTEGER PRIMARY KEY,
	domain_id     INTEGER NOT NULL REFERENCES domains(id),
	class         TEXT NOT NULL CHECK (class IN ('user-doc', 'agent-memory', 'user-profile')),
	about_project INTEGER REFERENCES projects(id), -- agent-memory: the project it is about
	deleted_at    INTEGER,
	deleted_by    INTEGER REFERENCES principals(id),
	version       INTEGER NOT NULL,
	content_hash  TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL,
	folder        TEXT NOT NULL DEFAULT '',
	title         TEXT NOT NULL,
	title_key     TEXT NOT NULL,
	type          TEXT NOT NULL DEFAULT '',
	tags          TEXT NOT NULL DEFAULT '', -- normalized tags joined by spaces
	source        TEXT, -- import: path relative to the imported folder
	source_hash   TEXT,
	frontmatter   TEXT NOT NULL DEFAULT '{}',
	body          TEXT NOT NULL
);
CREATE UNIQUE INDEX notes_live_title ON notes(domain_id, title_key) WHERE deleted_at IS NULL;
CREATE INDEX notes_folder ON notes(domain_id, folder, title_key);
CREATE INDEX notes_updated ON notes(domain_id, updated_at);
CREATE UNIQUE INDEX notes_source ON notes(domain_id, source) WHERE source IS NOT NULL;

CREATE TABLE note_tags (
	note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	tag     TEXT NOT NULL,
	PRIMARY KEY (note_id, tag)
) WITHOUT ROWID;
CREATE INDEX note_tags_tag ON note_tags(tag);

-- Former titles of renamed notes; old [[wiki links]] keep resolving through them.
CREATE TABLE title_aliases (
	domain_id  INTEGER NOT NULL REFERENCES domains(id),
	title_key  TEXT NOT NULL,
	title      TEXT NOT NULL,
	note_id    INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (domain_id, title_key)
) WITHOUT ROWID;

-- Typed edges. A forward reference has to_note NULL and is resolved by to_key
-- when a note with that title appears. target is 'n<id>' once resolved and
-- 't:<title key>' while pending; it makes (from, type, target) unique.
CREATE TABLE links (
	id         INTEGER PRIMARY KEY,
	domain_id  INTEGER NOT NULL REFERENCES domains(id),
	from_note  INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	type       TEXT NOT NULL,
	to_note    INTEGER REFERENCES notes(id) ON DELETE CASCADE,
	to_title   TEXT NOT NULL,
	to_key     TEXT NOT NULL,
	target     TEXT NOT NULL,
	origin     TEXT NOT NULL CHECK (origin IN ('tool', 'body')),
	created_at INTEGER NOT NULL,
	UNIQUE (from_note, type, target)
);
CREATE INDEX links_to ON links(to_note);
CREATE INDEX links_pending ON links(domain_id, to_key) WHERE to_note IS NULL;

-- One row per note version, with the provenance of the write that made it.
CREATE TABLE revisions (
	note_id      INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	version      INTEGER NOT NULL,
	action       TEXT NOT NULL,
	title        TEXT NOT NULL,
	folder       TEXT NOT NULL,
	body         TEXT NOT NULL,
	type         TEXT NOT NULL,
	tags         TEXT NOT NULL,
	at           INTEGER NOT NULL,
	by_kind      TEXT NOT NULL,
	principal_id INTEGER NOT NULL,
	token_id     INTEGER,
	tool         TEXT NOT NULL,
	client       TEXT NOT NULL,
	session      TEXT NOT NULL,
	PRIMARY KEY (note_id, version)
) WITHOUT ROWID;

-- Every write, including ones that touch no single note (project rename,
-- folder moves); start_session's delta reads it.
CREATE TABLE activity (
	id           INTEGER PRIMARY KEY,
	at           INTEGER NOT NULL,
	domain_id    INTEGER,
	note_id      INTEGER,
	action       TEXT NOT NULL,
	detail       TEXT NOT NULL DEFAULT '',
	by_kind      TEXT NOT NULL,
	principal_id INTEGER NOT NULL,
	token_id     INTEGER,
	tool         TEXT NOT NULL,
	client       TEXT NOT NULL,
	session      TEXT NOT NULL
);
CREATE INDEX activity_domain_at ON activity(domain_id, at);

-- start_session visit marks per principal and scope ('all' or 'd<domain id>').
-- A visit is a run of calls from one session; its delta starts where the
-- previous visit started, so nothing written during a visit is missed.
CREATE TABLE visits (
	principal_id INTEGER NOT NULL REFERENCES principals(id),
	scope        TEXT NOT NULL,
	session      TEXT NOT NULL,
	mark_at      INTEGER, -- start of the delta shown during this visit; NULL on the first
	started_at   INTEGER NOT NULL,
	seen_at      INTEGER NOT NULL,
	PRIMARY KEY (principal_id, scope)
) WITHOUT ROWID;

-- Embeddings as little-endian float32 blobs, compared with sqlite-vec's
-- vec_distance_cosine. A row exists only for a live note whose text is
-- the one embedded (writes delete stale rows); domain_id and about_project
-- are copied from the note so vector search reads this table alone.
CREATE TABLE note_vectors (
	note_id       INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
	domain_id     INTEGER NOT NULL,
	about_project INTEGER,
	model         TEXT NOT NULL,
	dims          INTEGER NOT NULL,
	content_hash  TEXT NOT NULL,
	embedding     BLOB NOT NULL
);
CREATE INDEX note_vectors_domain ON note_vectors(domain_id);

CREATE VIRTUAL TABLE notes_fts USING fts5(
	title, body, tags,
	content = 'notes', content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
	INSERT INTO notes_fts(rowid, title, body, tags) VALUES (new.id, new.title, new.body, new.tags);
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
	INSERT INTO notes_fts(notes_fts, rowid, title, body, tags) VALUES ('delete', old.id, old.title, old.body, old.tags);
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body, tags ON notes BEGIN
	INSERT INTO notes_fts(notes_fts, rowid, title, body, tags) VALUES ('delete', old.id, old.title, old.body, old.tags);
	INSERT INTO notes_fts(rowid, title, body, tags) VALUES (new.id, new.title, new.body, new.tags);
END;
