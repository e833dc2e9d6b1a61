-- Schema version 2: how many notes hold each lexeme in each full-text
-- document (d: head_tsv, b: body_tsv), as FTS5's vocabulary tables count
-- them, so search weighs a word without visiting the notes that hold it
-- (counting them through the GIN index reads every matching row: hundreds
-- of milliseconds for a common word in 100 000 notes). Kept by statement
-- triggers on notes; trashed notes count, as they do in the indexes.
CREATE TABLE note_terms (
	doc    "char" NOT NULL CHECK (doc IN ('h', 'b')),
	lexeme text COLLATE "C" NOT NULL,
	ndoc   bigint NOT NULL,
	PRIMARY KEY (doc, lexeme)
);

INSERT INTO note_terms (doc, lexeme, ndoc)
SELECT d.doc, d.lexeme, count(*) FROM notes n,
	LATERAL (SELECT 'h'::"char" AS doc, l AS lexeme FROM unnest(tsvector_to_array(n.head_tsv)) l
		UNION ALL SELECT 'b', l FROM unnest(tsvector_to_array(n.body_tsv)) l) d
GROUP BY d.doc, d.lexeme;

-- A statement's change: +1 for each lexeme of each new row, -1 for each
-- of each old row (a tsvector's lexemes are distinct; an update counts
-- only the documents it changed). A lexeme no note
-- holds any more keeps its row, at 0. PL/pgSQL prepares a statement when
-- it first runs it, so each branch names only its operation's tables.
CREATE FUNCTION kb_note_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO note_terms AS t (doc, lexeme, ndoc)
		SELECT doc, lexeme, sum(d) FROM (
			SELECT 'h'::"char" AS doc, l AS lexeme, 1 AS d FROM new_rows n, unnest(tsvector_to_array(n.head_tsv)) l
			UNION ALL SELECT 'b', l, 1 FROM new_rows n, unnest(tsvector_to_array(n.body_tsv)) l) x
		GROUP BY doc, lexeme ORDER BY doc, lexeme
		ON CONFLICT (doc, lexeme) DO UPDATE SET ndoc = t.ndoc + excluded.ndoc;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO note_terms AS t (doc, lexeme, ndoc)
		SELECT doc, lexeme, sum(d) FROM (
			SELECT 'h'::"char" AS doc, l AS lexeme, -1 AS d FROM old_rows n, unnest(tsvector_to_array(n.head_tsv)) l
			UNION ALL SELECT 'b', l, -1 FROM old_rows n, unnest(tsvector_to_array(n.body_tsv)) l) x
		GROUP BY doc, lexeme ORDER BY doc, lexeme
		ON CONFLICT (doc, lexeme) DO UPDATE SET ndoc = t.ndoc + excluded.ndoc;
	ELSE
		INSERT INTO note_terms AS t (doc, lexeme, ndoc)
		SELECT doc, lexeme, sum(d) FROM (
			SELECT 'h'::"char" AS doc, l AS lexeme, 1 AS d FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(tsvector_to_array(n.head_tsv)) l WHERE n.head_tsv <> o.head_tsv
			UNION ALL SELECT 'b', l, 1 FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(tsvector_to_array(n.body_tsv)) l WHERE n.body_tsv <> o.body_tsv
			UNION ALL SELECT 'h', l, -1 FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(tsvector_to_array(o.head_tsv)) l WHERE n.head_tsv <> o.head_tsv
			UNION ALL SELECT 'b', l, -1 FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(tsvector_to_array(o.body_tsv)) l WHERE n.body_tsv <> o.body_tsv) x
		GROUP BY doc, lexeme HAVING sum(d) <> 0 ORDER BY doc, lexeme
		ON CONFLICT (doc, lexeme) DO UPDATE SET ndoc = t.ndoc + excluded.ndoc;
	END IF;
	RETURN NULL;
END
$$;
CREATE TRIGGER note_terms_insert AFTER INSERT ON notes REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION kb_note_terms();
CREATE TRIGGER note_terms_update AFTER UPDATE ON notes
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION kb_note_terms();
CREATE TRIGGER note_terms_delete AFTER DELETE ON notes REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION kb_note_terms();
