-- Schema version 3: index titles, bodies and tags with ё folded to е (as
-- queries are), so "елка" finds "ёлка" and the other way round. The FTS
-- table reads its content through a view that does the folding; the
-- triggers feed it the same folded text, and the index is rebuilt.
DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_delete;
DROP TRIGGER notes_fts_update;
DROP TABLE notes_fts;

CREATE VIEW notes_fts_source AS
	SELECT id,
		replace(replace(title, 'ё', 'е'), 'Ё', 'Е') AS title,
		replace(replace(body, 'ё', 'е'), 'Ё', 'Е') AS body,
		replace(replace(tags, 'ё', 'е'), 'Ё', 'Е') AS tags
	FROM notes;

CREATE VIRTUAL TABLE notes_fts USING fts5(
	title, body, tags,
	content = 'notes_fts_source', content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
	INSERT INTO notes_fts(rowid, title, body, tags)
	SELECT id, title, body, tags FROM notes_fts_source WHERE id = new.id;
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
	INSERT INTO notes_fts(notes_fts, rowid, title, body, tags) VALUES ('delete', old.id,
		replace(replace(old.title, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.body, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.tags, 'ё', 'е'), 'Ё', 'Е'));
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, body, tags ON notes BEGIN
	INSERT INTO notes_fts(notes_fts, rowid, title, body, tags) VALUES ('delete', old.id,
		replace(replace(old.title, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.body, 'ё', 'е'), 'Ё', 'Е'),
		replace(replace(old.tags, 'ё', 'е'), 'Ё', 'Е'));
	INSERT INTO notes_fts(rowid, title, body, tags)
	SELECT id, title, body, tags FROM notes_fts_source WHERE id = new.id;
END;
INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
