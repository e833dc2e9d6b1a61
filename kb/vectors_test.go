package kb

import (
	"context"
	"errors"
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
	ids, err := f.s.vectorSearch(t.Context(), vs[0], sc, 10)
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
	emb := &switchEmbedder{inner: conceptEmbedder{concepts: [][]string{{"k8s", "kubernetes"}}}}
	f := newFixture(t, Options{Embedder: emb})
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
}
