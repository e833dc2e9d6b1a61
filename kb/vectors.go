package kb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Embedder turns texts into vectors, one per text, all of one length.
// An Embedder may also have a Model() string method; vectors made by a
// different model are ignored and remade.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

func embedderModel(e Embedder) string {
	if m, ok := e.(interface{ Model() string }); ok && m.Model() != "" {
		return m.Model()
	}
	return "default"
}

const (
	embedBatch     = 32
	embedTextBytes = 8000
)

// encodeVector packs v as little-endian float32, sqlite-vec's blob format.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func usableVector(v []float32) bool {
	var sum float64
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
		sum += float64(f) * float64(f)
	}
	return sum > 0
}

func embedText(title, body string) string {
	t := title + "\n\n" + body
	if len(t) <= embedTextBytes {
		return t
	}
	return strings.ToValidUTF8(t[:embedTextBytes], "")
}

// embedNotes refreshes the vectors of ids. It is best effort: a failing
// embedder leaves those notes to full-text search until EmbedPending.
func (s *Store) embedNotes(ctx context.Context, ids []int64) {
	if s.emb == nil {
		return
	}
	for len(ids) > 0 {
		n := min(len(ids), embedBatch)
		if err := s.embedBatch(ctx, ids[:n]); err != nil {
			return
		}
		ids = ids[n:]
	}
}

func (s *Store) embedBatch(ctx context.Context, ids []int64) error {
	type item struct {
		id   int64
		hash string
		text string
	}
	var items []item
	for _, id := range ids {
		var it item
		var title, body string
		err := s.db.QueryRowContext(ctx, "SELECT id, content_hash, title, body FROM notes WHERE id = ? AND deleted_at IS NULL", id).
			Scan(&it.id, &it.hash, &title, &body)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return fmt.Errorf("embed: load %s: %w", noteRef(id), err)
		}
		it.text = embedText(title, body)
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.text
	}
	vecs, err := s.emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed %d notes: %w", len(items), err)
	}
	if len(vecs) != len(items) {
		return fmt.Errorf("embed %d notes: the embedder returned %d vectors", len(items), len(vecs))
	}
	model := embedderModel(s.emb)
	return s.inTx(ctx, func(tx *txn) error {
		for i, it := range items {
			if !usableVector(vecs[i]) {
				continue
			}
			// Only if the note still has the text that was embedded.
			_, err := tx.ExecContext(ctx, `INSERT INTO note_vectors(note_id, domain_id, about_project, model, dims, content_hash, embedding)
				SELECT id, domain_id, about_project, ?, ?, content_hash, ? FROM notes
				WHERE id = ? AND content_hash = ? AND deleted_at IS NULL
				ON CONFLICT(note_id) DO UPDATE SET model = excluded.model, dims = excluded.dims,
				content_hash = excluded.content_hash, embedding = excluded.embedding`,
				model, len(vecs[i]), encodeVector(vecs[i]), it.id, it.hash)
			if err != nil {
				return fmt.Errorf("store vector of %s: %w", noteRef(it.id), err)
			}
			if err := s.d.storedVector(ctx, tx, it.id, vecs[i]); err != nil {
				return fmt.Errorf("store vector of %s: %w", noteRef(it.id), err)
			}
		}
		return nil
	})
}

// EmbedPending embeds up to limit live notes whose vector is missing or
// stale (other text or other model) and reports how many it embedded. With
// no embedder configured it does nothing.
func (s *Store) EmbedPending(ctx context.Context, limit int) (int, error) {
	if s.emb == nil {
		return 0, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT n.id FROM notes n LEFT JOIN note_vectors v ON v.note_id = n.id
		WHERE n.deleted_at IS NULL AND (v.note_id IS NULL OR v.content_hash <> n.content_hash OR v.model <> ?)
		ORDER BY n.id LIMIT ?`, embedderModel(s.emb), limit)
	if err != nil {
		return 0, fmt.Errorf("embed pending: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("embed pending: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("embed pending: %w", err)
	}
	done := 0
	for len(ids) > 0 {
		n := min(len(ids), embedBatch)
		if err := s.embedBatch(ctx, ids[:n]); err != nil {
			return done, err
		}
		done += n
		ids = ids[n:]
	}
	return done, nil
}

// vectorSearch ranks the notes in scope by cosine distance to qv, using
// sqlite-vec's distance functions over the stored blobs. It reads the
// vector tables alone: their rows are live and current. Up to exactVectors
// candidates are compared exactly; beyond that a shortlist of
// shortlistFactor·k by Hamming distance of the sign bits (note_vector_bits,
// a narrow table) is reranked by exact cosine.
func (s *Store) vectorSearch(ctx context.Context, qv []float32, sc scope, k int) ([]int64, error) {
	query, args, shortlisted, err := s.vectorQuery(ctx, qv, sc, k)
	if err != nil {
		return nil, err
	}
	if shortlisted {
		// The shortlist from the in-memory bits when they are loaded.
		ids, ok, err := s.cachedShortlist(ctx, sc, embedderModel(s.emb), qv, shortlistFactor*k)
		if err != nil {
			return nil, err
		}
		if ok {
			if len(ids) == 0 {
				return nil, nil
			}
			in := make([]any, len(ids))
			for i, id := range ids {
				in[i] = id
			}
			query = "SELECT e.note_id FROM note_vectors e WHERE e.note_id IN (" + placeholders(len(ids)) +
				") ORDER BY vec_distance_cosine(e.embedding, ?), e.note_id LIMIT ?"
			args = append(in, encodeVector(qv))
		}
	}
	return s.vectorIDs(ctx, query, append(args, k)...)
}

// vectorIDs runs a vector search query that selects note ids.
func (s *Store) vectorIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return ids, nil
}

// vectorQuery picks the exact or the shortlisted query (shortlisted says
// which); the caller appends k.
func (s *Store) vectorQuery(ctx context.Context, qv []float32, sc scope, k int) (query string, args []any, shortlisted bool, err error) {
	head := []any{encodeVector(qv), embedderModel(s.emb), len(qv)}
	exactWhere, exactArgs := sc.where("v.domain_id", "v.about_project", false)
	exact := "SELECT v.note_id FROM note_vectors v WHERE v.model = ?2 AND v.dims = ?3 AND " + exactWhere +
		" ORDER BY vec_distance_cosine(v.embedding, ?1), v.note_id LIMIT ?"
	if len(qv)%8 != 0 {
		return exact, append(head, exactArgs...), false, nil
	}
	where, args := sc.where("b.domain_id", "b.about_project", false)
	from := " FROM note_vector_bits b WHERE b.model = ?2 AND b.dims = ?3 AND " + where
	// Count no further than the threshold: past it the answer is the same.
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1"+from+" LIMIT "+fmt.Sprint(s.exactVectors+1)+")",
		append(head, args...)...).Scan(&n); err != nil {
		return "", nil, false, fmt.Errorf("vector search: %w", err)
	}
	if n <= s.exactVectors {
		return exact, append(head, exactArgs...), false, nil
	}
	shortlist := `SELECT s.note_id FROM (SELECT b.note_id` + from + `
		ORDER BY vec_distance_hamming(vec_bit(b.bits), vec_bit(?)), b.note_id LIMIT ` + fmt.Sprint(shortlistFactor*k) + `) s
		JOIN note_vectors e ON e.note_id = s.note_id
		ORDER BY vec_distance_cosine(e.embedding, ?1), s.note_id LIMIT ?`
	return shortlist, append(append(head, args...), quantizeBinary(qv)), true, nil
}

// quantizeBinary packs the sign bits of v as sqlite-vec's
// vec_quantize_binary does: bit i (least significant first) is v[i] > 0.
func quantizeBinary(v []float32) []byte {
	b := make([]byte, (len(v)+7)/8)
	for i, f := range v {
		if f > 0 {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b
}

const (
	defaultExactVectors = 4096
	shortlistFactor     = 8
)

// dropVector forgets a note's vector when its text changes or it is
// trashed, so vector search never sees stale or trashed notes.
func (w *wtx) dropVector(note int64) error {
	if _, err := w.ExecContext(w.ctx, "DELETE FROM note_vectors WHERE note_id = ?", note); err != nil {
		return fmt.Errorf("drop vector of %s: %w", noteRef(note), err)
	}
	return nil
}
