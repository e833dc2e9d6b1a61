package kb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	mbits "math/bits"
	"slices"
	"sync/atomic"
	"testing"
)

// switchEmbedder fails while down is set, then behaves like inner.
type switchEmbedder struct {
	inner Embedder
	down  atomic.Bool
}

func (e *switchEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.down.Load() {
		return nil, errors.New("503 service unavailable")
	}
	return e.inner.Embed(ctx, texts)
}

func vectorIDs(t *testing.T, f *fixture, query string) []string {
	t.Helper()
	sc, err := readScope(t.Context(), f.s.db, f.agent, "")
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := f.s.emb.Embed(t.Context(), []string{query})
	ids, err := f.s.d.vectorSearch(t.Context(), f.s, vs[0], sc, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, id := range ids {
		out = append(out, noteRef(id))
	}
	return out
}

func TestVectorsFollowWrites(t *testing.T) {
	eachVectorBackend(t, func(t *testing.T, be backend) {
		emb := &switchEmbedder{inner: conceptEmbedder{concepts: [][]string{{"k8s", "kubernetes"}}}}
		f := newFixture(t, be, Options{Embedder: emb})
		n := f.create(t, "acme/web", "# Cluster\n\nOur kubernetes setup.")
		if got := vectorIDs(t, f, "k8s"); len(got) != 1 || got[0] != n.ID {
			t.Fatalf("vector hits = %v; want [%s]", got, n.ID)
		}
		// An edit that removes the concept drops the old vector and embeds anew.
		e, err := f.s.EditNote(t.Context(), f.agent, EditNoteInput{ID: n.ID, VersionToken: n.VersionToken, Mode: "replace", Content: "Bare metal now."})
		if err != nil {
			t.Fatal(err)
		}
		var stale int
		f.s.db.QueryRow("SELECT count(*) FROM note_vectors v JOIN notes n ON n.id = v.note_id WHERE v.content_hash <> n.content_hash").Scan(&stale)
		if got := vectorIDs(t, f, "k8s"); len(got) != 1 || stale != 0 {
			t.Fatalf("vector rows after edit = %v (%d stale); want the re-embedded note only", got, stale)
		}
		// Trashed notes leave vector search; restored ones come back.
		if _, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: n.ID, VersionToken: e.VersionToken}); err != nil {
			t.Fatal(err)
		}
		if got := vectorIDs(t, f, "k8s"); len(got) != 0 {
			t.Errorf("vector hits after delete = %v; want none", got)
		}
		if _, err := f.s.TrashRestore(t.Context(), f.person, n.ID); err != nil {
			t.Fatal(err)
		}
		if got := vectorIDs(t, f, "k8s"); len(got) != 1 {
			t.Errorf("vector hits after restore = %v; want the note back", got)
		}

		// Writes succeed while the embedder is down; EmbedPending catches up.
		emb.down.Store(true)
		late := f.create(t, "acme/web", "# Upgrade\n\nkubernetes 1.30 upgrade.")
		if out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "k8s"}); err != nil || out.Mode != "fts" {
			t.Errorf("search while the embedder is down = %+v, %v; want mode fts, no error", out, err)
		}
		emb.down.Store(false)
		if got := vectorIDs(t, f, "k8s"); len(got) != 1 {
			t.Errorf("before EmbedPending: %v; want only the old note", got)
		}
		done, err := f.s.EmbedPending(t.Context(), 100)
		if err != nil || done != 1 {
			t.Fatalf("EmbedPending = %d, %v; want 1", done, err)
		}
		if got := vectorIDs(t, f, "k8s"); len(got) != 2 || got[1] != late.ID && got[0] != late.ID {
			t.Errorf("after EmbedPending: %v; want %s included", got, late.ID)
		}
	})
}

// TestVectorSearchShortlist compares the Hamming-shortlisted search with
// the exact one on a store too big for exact comparison.
func TestVectorSearchShortlist(t *testing.T) {
	eachVectorBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{Embedder: HashEmbedder{Dims: 256}})
		drafts := benchCorpus(300, 7)
		for i := 0; i < len(drafts); i += maxBatch {
			if _, err := f.s.CreateNotes(t.Context(), f.agent, CreateNotesInput{Project: "acme/web", Notes: drafts[i:min(i+maxBatch, len(drafts))]}); err != nil {
				t.Fatal(err)
			}
		}
		// The bits table follows note_vectors through inserts, updates and deletes.
		first := f.get(t, "n1")
		if _, err := f.s.EditNote(t.Context(), f.agent, EditNoteInput{ID: "n1", VersionToken: first.VersionToken, Mode: "append", Content: "changed"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: "n2"}); err != nil {
			t.Fatal(err)
		}
		var vectors, bits, mismatched int
		f.s.db.QueryRow("SELECT count(*) FROM note_vectors").Scan(&vectors)
		f.s.db.QueryRow("SELECT count(*) FROM note_vector_bits").Scan(&bits)
		mismatched = bitsMismatched(t, f.s)
		if vectors != 299 || bits != vectors || mismatched != 0 {
			t.Fatalf("%d vectors, %d bit rows, %d mismatched; want 299, 299, 0", vectors, bits, mismatched)
		}

		sc, err := readScope(t.Context(), f.s.db, f.agent, "")
		if err != nil {
			t.Fatal(err)
		}
		agree := 0
		for _, q := range benchQueries {
			qv, _ := f.s.emb.Embed(t.Context(), []string{q})
			f.s.exactVectors = 1 << 30
			exact, err := f.s.d.vectorSearch(t.Context(), f.s, qv[0], sc, 5)
			if err != nil {
				t.Fatal(err)
			}
			f.s.exactVectors = 50
			short, err := f.s.d.vectorSearch(t.Context(), f.s, qv[0], sc, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(short) != 5 {
				t.Fatalf("shortlisted search returned %d ids; want 5", len(short))
			}
			if exact[0] == short[0] {
				agree++
			}
		}
		t.Logf("shortlist and exact search agree on the best hit for %d of %d queries", agree, len(benchQueries))
		if agree < len(benchQueries)*7/10 {
			t.Errorf("shortlist agrees with exact search on the best hit for %d of %d queries; want at least 70%%", agree, len(benchQueries))
		}
	})
}

func TestQuantizeBinaryMatchesSqliteVec(t *testing.T) {
	be := sqliteBackend // SQLite internals
	{
		f := newFixture(t, be, Options{})
		v := []float32{1, -1, 0, 2, -3, 4, 5, -6, 0.5, -0.5, 0, 0, 1, 1, 1, 1}
		var want []byte
		if err := f.s.db.QueryRow("SELECT vec_quantize_binary(?)", encodeVector(v)).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := quantizeBinary(v); string(got) != string(want) {
			t.Errorf("quantizeBinary = %08b; sqlite-vec gives %08b", got, want)
		}
	}
}

// TestVectorBitsCacheMatchesSQL pins that the in-memory shortlist ranks
// exactly as the SQL one, before and after writes from this store and from
// another one (another process) on the same file.
func TestVectorBitsCacheMatchesSQL(t *testing.T) {
	eachVectorBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{Embedder: HashEmbedder{Dims: 64}})
		for i := range 120 {
			f.create(t, "acme/web", fmt.Sprintf("# Note %d\n\n%s", i, benchQueries[i%len(benchQueries)]))
		}
		f.s.exactVectors = 20
		other := be.reopen(t, f.target, Options{Embedder: HashEmbedder{Dims: 64}})
		sc, err := readScope(t.Context(), f.s.db, f.reader, "")
		if err != nil {
			t.Fatal(err)
		}
		compare := func(step string) {
			t.Helper()
			for _, q := range benchQueries {
				qv, _ := f.s.emb.Embed(t.Context(), []string{q})
				f.s.bg.Wait()
				saved := f.s.bits.ready
				f.s.bits.mu.Lock()
				f.s.bits.ready, f.s.bits.loading = false, true // rank in SQL
				f.s.bits.mu.Unlock()
				viaSQL, err := f.s.d.vectorSearch(t.Context(), f.s, qv[0], sc, 5)
				if err != nil {
					t.Fatal(err)
				}
				f.s.bits.mu.Lock()
				f.s.bits.ready, f.s.bits.loading = saved, false
				f.s.bits.mu.Unlock()
				if !f.s.bits.ready {
					if err := f.s.bits.load(t.Context(), f.s.db); err != nil {
						t.Fatal(err)
					}
				}
				viaCache, err := f.s.d.vectorSearch(t.Context(), f.s, qv[0], sc, 5)
				if err != nil {
					t.Fatal(err)
				}
				// On PostgreSQL the uncached search is exact, not a
				// shortlist in SQL: only the shortlists compare.
				if be.name == "sqlite" && (len(viaSQL) != 5 || !slices.Equal(viaSQL, viaCache)) {
					t.Fatalf("%s: %q: SQL shortlist %v, cached %v", step, q, viaSQL, viaCache)
				}
				// The shortlists themselves, not only what survives the rerank.
				want := hammingShortlist(t, f.s, quantizeBinary(qv[0]), 40)
				got, ok, err := f.s.cachedShortlist(t.Context(), sc, embedderModel(f.s.emb), qv[0], 40)
				if err != nil || !ok || !slices.Equal(got, want) {
					t.Fatalf("%s: %q: cached shortlist %v (%v, %v); SQL gives %v", step, q, got, ok, err, want)
				}
			}
		}
		compare("fresh")
		// Writes through this store, then through another one.
		for i, store := range []*Store{f.s, other} {
			for j := 1; j <= 10; j++ {
				id := fmt.Sprintf("n%d", i*20+j)
				n := f.get(t, id)
				if _, err := store.EditNote(t.Context(), f.agent, EditNoteInput{ID: id, VersionToken: n.VersionToken, Mode: "replace",
					Content: benchQueries[(j+3)%len(benchQueries)] + " rewritten"}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := store.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: fmt.Sprintf("n%d", 100+i)}); err != nil {
				t.Fatal(err)
			}
			compare(fmt.Sprintf("after writes through store %d", i))
		}
		if _, err := other.TrashEmpty(t.Context(), f.person, ""); err != nil {
			t.Fatal(err)
		}
		compare("after the trash was emptied")
	})
}

// bitsMismatched counts the rows of note_vector_bits that are not the
// sign bits of their vector.
func bitsMismatched(t *testing.T, s *Store) int {
	t.Helper()
	rows, err := s.db.Query("SELECT v.embedding, b.bits FROM note_vectors v JOIN note_vector_bits b ON b.note_id = v.note_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var emb, bits []byte
		if err := rows.Scan(&emb, &bits); err != nil {
			t.Fatal(err)
		}
		v := make([]float32, len(emb)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(emb[4*i:]))
		}
		if !bytes.Equal(quantizeBinary(v), bits) {
			n++
		}
	}
	return n
}

// hammingShortlist is the shortlist the database itself gives: on SQLite
// by sqlite-vec's Hamming distance in SQL, on PostgreSQL computed here
// from the stored bits (ties by id either way).
func hammingShortlist(t *testing.T, s *Store, q []byte, n int) []int64 {
	t.Helper()
	query := "SELECT note_id, bits FROM note_vector_bits ORDER BY note_id"
	if s.d.name() == "sqlite" {
		query = "SELECT note_id, bits FROM note_vector_bits ORDER BY vec_distance_hamming(vec_bit(bits), vec_bit(?)), note_id LIMIT ?"
	}
	rows, err := s.db.Query(query, q, n)
	if s.d.name() != "sqlite" {
		rows, err = s.db.Query(query)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type cand struct {
		id   int64
		dist int
	}
	var cands []cand
	for rows.Next() {
		var c cand
		var bits []byte
		if err := rows.Scan(&c.id, &bits); err != nil {
			t.Fatal(err)
		}
		for i := range min(len(bits), len(q)) {
			c.dist += mbits.OnesCount8(bits[i] ^ q[i])
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	var out []int64
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.id)
	}
	return out
}
