package kb

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// vectorSearch on PostgreSQL ranks up to exactVectors candidates by exact
// cosine distance; past that, the in-memory sign bits (bitsCache, kept
// current through vector_changes as on SQLite) shortlist shortlistFactor·k
// notes, which are then ranked exactly. While a process's bits are still
// loading, the search is exact. With pgvector the database computes the
// distances (<=>); without, the process does, from the stored bytes.
func (d *pgDialect) vectorSearch(ctx context.Context, s *Store, qv []float32, sc scope, k int) ([]int64, error) {
	model := embedderModel(s.emb)
	where, args := sc.where("v.domain_id", "v.about_project", false)
	args = append([]any{model, len(qv)}, args...)
	from := " FROM note_vectors v WHERE v.model = ?1 AND v.dims = ?2 AND " + where
	if len(qv)%8 == 0 {
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1"+from+" LIMIT "+fmt.Sprint(s.exactVectors+1)+") x",
			args...).Scan(&n); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		if n > s.exactVectors {
			ids, ok, err := s.cachedShortlist(ctx, sc, model, qv, shortlistFactor*k)
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
				if d.pgvector {
					return pgvectorRank(ctx, s, " FROM note_vectors v WHERE v.note_id IN ("+placeholders(len(ids))+")", in, qv, k)
				}
				return rankVectors(ctx, s, "SELECT v.note_id, v.embedding FROM note_vectors v WHERE v.note_id IN ("+placeholders(len(ids))+")", in, qv, k)
			}
		}
	}
	if d.pgvector {
		return pgvectorRank(ctx, s, from, args, qv, k)
	}
	return rankVectors(ctx, s, "SELECT v.note_id, v.embedding"+from, args, qv, k)
}

// pgvectorRank orders the note_vectors rows of from (" FROM note_vectors v
// WHERE …") by pgvector's cosine distance to qv, ties by id.
func pgvectorRank(ctx context.Context, s *Store, from string, args []any, qv []float32, k int) ([]int64, error) {
	from = strings.Replace(from, " FROM note_vectors v ", " FROM note_vectors v JOIN note_pgvectors p ON p.note_id = v.note_id ", 1)
	query := "SELECT v.note_id" + from + " ORDER BY p.vec <=> ?::vector, v.note_id LIMIT ?"
	return s.vectorIDs(ctx, query, append(args, vectorLiteral(qv), k)...)
}

// vectorLiteral is v in pgvector's text form, [1,-0.5,…].
func vectorLiteral(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// decodeVector reads the stored little-endian float32 bytes.
func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// rankVectors reads (id, embedding) rows and keeps the k nearest to qv by
// cosine distance, ties by id.
func rankVectors(ctx context.Context, s *Store, query string, args []any, qv []float32, k int) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	defer rows.Close()
	type cand struct {
		id   int64
		dist float64
	}
	var cands []cand
	var raw []byte
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.id, &raw); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		if len(raw) != 4*len(qv) {
			continue
		}
		c.dist = cosineDistance(qv, raw)
		cands = append(cands, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if x := cmp.Compare(a.dist, b.dist); x != 0 {
			return x
		}
		return cmp.Compare(a.id, b.id)
	})
	ids := make([]int64, 0, min(k, len(cands)))
	for _, c := range cands[:min(k, len(cands))] {
		ids = append(ids, c.id)
	}
	return ids, nil
}

// cosineDistance is 1 − cos(q, v) for v in the stored float32 format, in
// float32 arithmetic as sqlite-vec's vec_distance_cosine computes it.
func cosineDistance(q []float32, v []byte) float64 {
	var dot, qq, vv float32
	for i, a := range q {
		b := math.Float32frombits(binary.LittleEndian.Uint32(v[4*i:]))
		dot += a * b
		qq += a * a
		vv += b * b
	}
	return float64(1 - dot/(float32(math.Sqrt(float64(qq)))*float32(math.Sqrt(float64(vv)))))
}

// storedVector writes the sign bits of a stored vector (on SQLite a
// trigger does it with vec_quantize_binary); the vector_changes trigger
// then stamps the change.
func (d *pgDialect) storedVector(ctx context.Context, tx *txn, id int64, v []float32) error {
	if d.pgvector {
		if _, err := tx.ExecContext(ctx, `INSERT INTO note_pgvectors(note_id, vec) SELECT note_id, ?::vector FROM note_vectors WHERE note_id = ?
			ON CONFLICT (note_id) DO UPDATE SET vec = excluded.vec`, vectorLiteral(v), id); err != nil {
			return err
		}
	}
	if len(v)%8 != 0 {
		_, err := tx.ExecContext(ctx, "DELETE FROM note_vector_bits WHERE note_id = ?", id)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO note_vector_bits(note_id, domain_id, about_project, model, dims, bits)
		SELECT note_id, domain_id, about_project, model, dims, ? FROM note_vectors WHERE note_id = ?
		ON CONFLICT (note_id) DO UPDATE SET domain_id = excluded.domain_id, about_project = excluded.about_project,
		model = excluded.model, dims = excluded.dims, bits = excluded.bits`, quantizeBinary(v), id)
	return err
}
