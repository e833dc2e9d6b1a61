-- Schema version 4: notes as people keep them in vaults and docs trees.
--
-- A note is known by its place: titles are unique per folder, not per
-- project (Plugins/Templates and Web Clipper/Templates are two notes).
-- Title aliases may be shared by several notes and say what they are: a
-- former title, an alias from front matter, or an imported file's name.
-- Attachments a note embeds or links (![[diagram.png]]) are recorded apart
-- from links to notes. Titles and headings get a full-text index of their
-- own, weighted above the body's; search_prior demotes changelogs and
-- release notes below the pages they mention. The Go step fill_derived_columns computes
-- headings and search_prior of the notes already stored.

DROP INDEX notes_live_title;
CREATE UNIQUE INDEX notes_live_title ON notes(domain_id, title_key, folder) WHERE deleted_at IS NULL;

CREATE TABLE title_aliases_v4 (
	domain_id  INTEGER NOT NULL REFERENCES domains(id),
	title_key  TEXT NOT NULL,
	title      TEXT NOT NULL,
	note_id    INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('former', 'alias', 'file')),
	created_at INTEGER NOT NULL,
	PRIMARY KEY (domain_id, title_key, note_id)
) WITHOUT ROWID;
INSERT INTO title_aliases_v4(domain_id, title_key, title, note_id, kind, created_at)
	SELECT domain_id, title_key, title, note_id, 'former', created_at FROM title_aliases;
DROP TABLE title_aliases;
ALTER TABLE title_aliases_v4 RENAME TO title_aliases;
CREATE INDEX title_aliases_note ON title_aliases(note_id);

CREATE TABLE attachments (
	note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	name    TEXT NOT NULL, -- as the body names it: diagram.png, assets/report.pdf
	PRIMARY KEY (note_id, name)
) WITHOUT ROWID;

ALTER TABLE notes ADD COLUMN headings TEXT NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN search_prior REAL NOT NULL DEFAULT 1.0;

-- Search filters every full-text match by scope through this index alone,
-- never reading the (long) note rows.
CREATE INDEX notes_scope ON notes(id, domain_id, about_project, deleted_at, search_prior);

-- Vector search keeps the sign bits in memory (a process's cache, checked
-- against this log before each use): every change to note_vector_bits
-- stamps its note with the next sequence number.
CREATE TABLE vector_changes (
	note_id INTEGER PRIMARY KEY,
	seq     INTEGER NOT NULL
);
CREATE INDEX vector_changes_seq ON vector_changes(seq);
CREATE TRIGGER vector_changes_insert AFTER INSERT ON note_vector_bits BEGIN
	INSERT OR REPLACE INTO vector_changes(note_id, seq)
	VALUES (new.note_id, (SELECT coalesce(max(seq), 0) + 1 FROM vector_changes));
END;
CREATE TRIGGER vector_changes_update AFTER UPDATE ON note_vector_bits BEGIN
	INSERT OR REPLACE INTO vector_changes(note_id, seq)
	VALUES (new.note_id, (SELECT coalesce(max(seq), 0) + 1 FROM vector_changes));
END;
CREATE TRIGGER vector_changes_delete AFTER DELETE ON note_vector_bits BEGIN
	INSERT OR REPLACE INTO vector_changes(note_id, seq)
	VALUES (old.note_id, (SELECT coalesce(max(seq), 0) + 1 FROM vector_changes));
END;

DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_delete;
DROP TRIGGER notes_fts_update;
DROP TABLE notes_fts;
DROP VIEW notes_fts_source;

-- @go fill_derived_columns

-- Two full-text indexes: the body (and tags), and the title with the
-- headings. Each has its own word statistics, so a word common in bodies
-- still weighs in a title (BM25 gives no weight to a word more than half
-- of the documents hold). Both read the notes through views that fold ё to е.
CREATE VIEW notes_fts_source AS
	SELECT id,
		replace(replace(body, 'ё', 'е'), 'Ё', 'Е') AS body,
		replace(replace(tags, 'ё', 'е'), 'Ё', 'Е') AS tags
	FROM notes;
CREATE VIEW notes_head_source AS
	SELECT id,
		replace(replace(title, 'ё', 'е'), 'Ё', 'Е') AS title,
		replace(replace(headings, 'ё', 'е'), 'Ё', 'Е') AS headings
	FROM notes;

CREATE VIRTUAL TABLE notes_fts USING fts5(
	body, tags,
	content = 'notes_fts_source', content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE notes_head_fts USING fts5(
	title, headings,
	content = 'notes_head_source', content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Document frequencies, for search to tell which words are too common to
-- rank by.
CREATE VIRTUAL TABLE notes_fts_vocab USING fts5vocab(notes_fts, 'row');
CREATE VIRTUAL TABLE notes_head_vocab USING fts5vocab(notes_head_fts, 'row');

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
	INSERT INTO notes_fts(rowid, body, tags)
	SELECT id, body, tags FROM notes_fts_source WHERE id = new.id;
	INSERT INTO notes_head_fts(rowid, title, headings)
	SELECT id, title, headings FROM notes_head_source WHERE id = new.id;
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
	INSERT INTO notes_fts(notes_fts, rowid, body, tags) VALUES ('delete', old.id,
		replace(replace(old.body, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.tags, 'ё', 'е'), 'Ё', 'Е'));
	INSERT INTO notes_head_fts(notes_head_fts, rowid, title, headings) VALUES ('delete', old.id,
		replace(replace(old.title, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.headings, 'ё', 'е'), 'Ё', 'Е'));
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE OF body, tags ON notes BEGIN
	INSERT INTO notes_fts(notes_fts, rowid, body, tags) VALUES ('delete', old.id,
		replace(replace(old.body, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.tags, 'ё', 'е'), 'Ё', 'Е'));
	INSERT INTO notes_fts(rowid, body, tags)
	SELECT id, body, tags FROM notes_fts_source WHERE id = new.id;
END;
CREATE TRIGGER notes_head_fts_update AFTER UPDATE OF title, headings ON notes BEGIN
	INSERT INTO notes_head_fts(notes_head_fts, rowid, title, headings) VALUES ('delete', old.id,
		replace(replace(old.title, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.headings, 'ё', 'е'), 'Ё', 'Е'));
	INSERT INTO notes_head_fts(rowid, title, headings)
	SELECT id, title, headings FROM notes_head_source WHERE id = new.id;
END;
INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
INSERT INTO notes_head_fts(notes_head_fts) VALUES ('rebuild');
