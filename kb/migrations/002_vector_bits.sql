-- Schema version 2: the sign bits of each embedding (sqlite-vec's
-- vec_quantize_binary) in a narrow table of their own, so vector search over
-- many notes can shortlist by Hamming distance without reading embeddings,
-- then rerank the shortlist by exact cosine. Triggers keep it in step with
-- note_vectors; dimensions that are not a multiple of 8 get no bits.
CREATE TABLE note_vector_bits (
	note_id       INTEGER PRIMARY KEY REFERENCES note_vectors(note_id) ON DELETE CASCADE,
	domain_id     INTEGER NOT NULL,
	about_project INTEGER,
	model         TEXT NOT NULL,
	dims          INTEGER NOT NULL,
	bits          BLOB NOT NULL
);
CREATE INDEX note_vector_bits_domain ON note_vector_bits(domain_id);
INSERT INTO note_vector_bits(note_id, domain_id, about_project, model, dims, bits)
	SELECT note_id, domain_id, about_project, model, dims, vec_quantize_binary(embedding)
	FROM note_vectors WHERE dims % 8 = 0;
CREATE TRIGGER note_vector_bits_insert AFTER INSERT ON note_vectors WHEN new.dims % 8 = 0 BEGIN
	INSERT OR REPLACE INTO note_vector_bits(note_id, domain_id, about_project, model, dims, bits)
	VALUES (new.note_id, new.domain_id, new.about_project, new.model, new.dims, vec_quantize_binary(new.embedding));
END;
CREATE TRIGGER note_vector_bits_update AFTER UPDATE ON note_vectors BEGIN
	DELETE FROM note_vector_bits WHERE note_id = old.note_id;
	INSERT INTO note_vector_bits(note_id, domain_id, about_project, model, dims, bits)
	SELECT new.note_id, new.domain_id, new.about_project, new.model, new.dims, vec_quantize_binary(new.embedding)
	WHERE new.dims % 8 = 0;
END;
