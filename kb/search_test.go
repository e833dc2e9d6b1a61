package kb

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// conceptEmbedder maps texts to one dimension per concept: a text mentioning
// any word of a concept points that way. It lets a test make vector search
// find what full text cannot.
type conceptEmbedder struct{ concepts [][]string }

func (e conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(e.concepts)+1)
		v[len(e.concepts)] = 0.01 // never all zero
		for j, words := range e.concepts {
			for _, w := range textWords(t) {
				for _, cw := range words {
					if w == cw {
						v[j] = 1
					}
				}
			}
		}
		out[i] = v
	}
	return out, nil
}

type failingEmbedder struct{}

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("connection refused")
}

func seedSearch(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for key, body := range map[string]string{
		"deploy":  "# Deployment\n\nWe deploy the billing service to production with `make release`, then watch the dashboards.",
		"oncall":  "# On-call rotation\n\nWho carries the pager each week, and how to hand over.",
		"k8s":     "# Kubernetes cluster\n\nNode pools, autoscaling and upgrades.",
		"ru":      "# Развертывание\n\nМы деплоим сервис через пайплайн, затем проверяем метрики.",
		"holiday": "# Holiday calendar\n\nPublic holidays for the team.",
		"yo":      "# Ёлка в офисе\n\nНовогодняя ёлка и её игрушки.",
	} {
		ids[key] = f.create(t, "acme/web", body).ID
	}
	return ids
}

func TestSearchNaturalLanguage(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		ids := seedSearch(t, f)
		for _, tc := range []struct{ query, want string }{
			{"how do we deploy the service?", "deploy"},
			{"How do we DEPLOY services to production??", "deploy"},
			{"who is on call this week", "oncall"},
			{"как мы деплоим сервис?", "ru"},
			{"развертывания сервисов", "ru"},
			{"ёлка", "yo"},
			{"где стоит елка?", "yo"},
			{"ЁЛКИ", "yo"},
			{`"kubernetes" AND (upgrade OR NEAR) -cluster*`, "k8s"},
			{"deploy billing teapot", "deploy"}, // no note has every word: falls back to any word
		} {
			t.Run(tc.query, func(t *testing.T) {
				out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: tc.query})
				if err != nil {
					t.Fatal(err)
				}
				if out.Mode != "fts" || len(out.Results) == 0 || out.Results[0].ID != ids[tc.want] {
					t.Fatalf("Search(%q) = %+v; want %s first", tc.query, out, ids[tc.want])
				}
				if r := out.Results[0]; r.Project != "acme/web" || r.Snippet == "" || r.Score <= 0 || r.Score >= 1 {
					t.Errorf("hit = %+v; want project, snippet and an RRF score", r)
				}
			})
		}
		if _, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "?!"}); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("query without words: %v; want invalidArgument", err)
		}
	})
}

func TestSearchFTSFallback(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		for _, tc := range []struct {
			name   string
			emb    Embedder
			notice string
		}{
			{"no embedder", nil, "no embedder"},
			{"failing embedder", failingEmbedder{}, "failed"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, be, Options{Embedder: tc.emb})
				ids := seedSearch(t, f)
				out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "deploy"})
				if err != nil {
					t.Fatalf("Search with %s = %v; want no error", tc.name, err)
				}
				if out.Mode != "fts" || !strings.Contains(out.Notice, tc.notice) || len(out.Results) == 0 || out.Results[0].ID != ids["deploy"] {
					t.Errorf("Search = %+v; want mode fts, a notice, the deploy note", out)
				}
			})
		}
	})
}

func TestSearchHybrid(t *testing.T) {
	eachVectorBackend(t, func(t *testing.T, be backend) {
		emb := conceptEmbedder{concepts: [][]string{{"k8s", "kubernetes", "cluster"}, {"vacation", "holiday", "holidays"}}}
		f := newFixture(t, be, Options{Embedder: emb})
		ids := seedSearch(t, f)
		out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "k8s"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Mode != "hybrid" || len(out.Results) == 0 || out.Results[0].ID != ids["k8s"] {
			t.Fatalf("Search(k8s) = %+v; want hybrid with the Kubernetes note found by vector alone", out)
		}
		if !strings.Contains(out.Results[0].Snippet, "Node pools") {
			t.Errorf("vector-only hit snippet = %q; want the note's opening", out.Results[0].Snippet)
		}
		// A note found by both lists outranks one found by one.
		both, _ := f.s.Search(t.Context(), f.reader, SearchInput{Query: "holiday deploy"})
		if len(both.Results) < 2 || both.Results[0].ID != ids["holiday"] {
			t.Errorf("Search(holiday deploy) = %+v; want the holiday note (FTS and vector) first", both.Results)
		}
	})
}

func TestFuse(t *testing.T) {
	got := fuse([]hit{{id: 1}, {id: 2}, {id: 3}}, []int64{3, 4, 1}, 10)
	var order []int64
	for _, h := range got {
		order = append(order, h.id)
	}
	// 1: 1/61+1/63, 3: 1/63+1/61, 2: 1/62, 4: 1/62 — ties keep FTS order.
	if want := []int64{1, 3, 2, 4}; !equalInts(order, want) {
		t.Errorf("fuse order = %v; want %v", order, want)
	}
	if s := got[0].score; s < 1.0/61+1.0/63-1e-12 || s > 1.0/61+1.0/63+1e-12 {
		t.Errorf("fused score = %v; want 1/61 + 1/63 (k = 60)", s)
	}
	if len(fuse([]hit{{id: 1}, {id: 2}}, nil, 1)) != 1 {
		t.Error("fuse ignores the limit")
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSearchCoversOwnMemoryOnly(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		if _, err := f.s.RememberAboutProject(t.Context(), f.agent, RememberAboutProjectInput{Project: "acme/web", Category: "pitfalls", Observation: "The flamingo cache must be warmed."}); err != nil {
			t.Fatal(err)
		}
		out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "flamingo", Project: "acme/web"})
		if err != nil || len(out.Results) != 1 || out.Results[0].Class != ClassAgentMemory || out.Results[0].Project != "" {
			t.Fatalf("own memory search = %+v, %v; want the agent-memory note", out, err)
		}
		bob, _ := f.s.CreatePrincipal(t.Context(), "bob")
		bobPerson := PersonCaller(bob.ID, "cli")
		if err := f.s.AddMember(t.Context(), f.person, "acme/web", bob.ID); err != nil {
			t.Fatal(err)
		}
		other, err := f.s.Search(t.Context(), bobPerson, SearchInput{Query: "flamingo"})
		if err != nil || len(other.Results) != 0 {
			t.Errorf("another member's search = %+v, %v; want nothing: memory is private", other, err)
		}
		// A token limited to another project does not see memory about this one.
		if _, err := f.s.CreateProject(t.Context(), f.person, "acme/ops", ""); err != nil {
			t.Fatal(err)
		}
		ops := f.token(t, TokenSpec{Name: "ops", Projects: []string{"acme/ops"}})
		if res, _ := f.s.Search(t.Context(), ops, SearchInput{Query: "flamingo"}); len(res.Results) != 0 {
			t.Errorf("ops-only token finds memory about acme/web: %+v", res.Results)
		}
	})
}

// TestFTSIndexStaysConsistent edits, renames and purges notes with ё and
// checks the external-content index against its source after each step.
func TestFTSIndexStaysConsistent(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		check := func(step string) {
			t.Helper()
			if be.name != "sqlite" {
				return // PostgreSQL's tsvector columns are generated from the row
			}
			for _, table := range []string{"notes_fts", "notes_head_fts"} {
				if _, err := f.s.db.Exec("INSERT INTO " + table + "(" + table + ", rank) VALUES ('integrity-check', 1)"); err != nil {
					t.Fatalf("after %s: %s integrity check: %v", step, table, err)
				}
			}
		}
		n := f.create(t, "acme/web", "# Ёжик\n\nЁжик в тумане, ёлка.")
		check("create")
		e, err := f.s.EditNote(t.Context(), f.agent, EditNoteInput{ID: n.ID, VersionToken: n.VersionToken, Mode: "findReplace", Find: "ёлка", Content: "Ёлочка"})
		if err != nil {
			t.Fatal(err)
		}
		check("edit")
		if _, err := f.s.RenameNote(t.Context(), f.agent, RenameNoteInput{ID: n.ID, Title: "Ёж", VersionToken: e.VersionToken}); err != nil {
			t.Fatal(err)
		}
		check("rename")
		for _, q := range []string{"еж", "елочка"} {
			if out, _ := f.s.Search(t.Context(), f.reader, SearchInput{Query: q}); len(out.Results) != 1 {
				t.Errorf("Search(%q) = %+v; want the note", q, out.Results)
			}
		}
		if out, _ := f.s.Search(t.Context(), f.reader, SearchInput{Query: "ёлка"}); len(out.Results) != 0 {
			t.Errorf("the replaced word still matches: %+v", out.Results)
		}
		if _, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: n.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.TrashEmpty(t.Context(), f.person, ""); err != nil {
			t.Fatal(err)
		}
		check("purge")
	})
}
