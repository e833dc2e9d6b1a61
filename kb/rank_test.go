package kb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSearchSnippetKeepsText pins that snippets are cut from the note as
// written (ё stays ё, case kept) around the words that matched, not from
// the folded index text.
func TestSearchSnippetKeepsText(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		long := strings.Repeat("Вступление без нужных слов. ", 30)
		n := f.create(t, "acme/web", "# Праздники\n\n"+long+"Новогодняя Ёлка стоит в холле, её наряжают всем отделом.\n\n"+long)
		for _, q := range []string{"елка", "ёлка", "ЕЛКА холл"} {
			out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: q})
			if err != nil || len(out.Results) != 1 || out.Results[0].ID != n.ID {
				t.Fatalf("Search(%q) = %+v, %v", q, out, err)
			}
			snip := out.Results[0].Snippet
			if !strings.Contains(snip, "Новогодняя Ёлка стоит в холле") || !strings.HasPrefix(snip, "…") || !strings.HasSuffix(snip, "…") ||
				len(snip) > snippetBytes+2*len("…") {
				t.Errorf("Search(%q) snippet = %q; want the original text around the match, cut with …", q, snip)
			}
		}
	})
}

func TestMatchSnippet(t *testing.T) {
	for _, tc := range []struct {
		text  string
		words []string
		want  string
	}{
		{"Deploying the services takes a while.", []string{"deploy", "service"}, "Deploying the services takes a while."},
		{"Policies: every policy is reviewed.", []string{"policy"}, "Policies: every policy is reviewed."},
		{"Миграции схемы базы выполняются ночью.", []string{"миграция"}, "Миграции схемы базы выполняются ночью."},
		{"nothing relevant here", []string{"teapot"}, ""},
	} {
		if got := matchSnippet(tc.text, tc.words, snippetBytes); got != tc.want {
			t.Errorf("matchSnippet(%.30q…, %q) =\n%q; want\n%q", tc.text, tc.words, got, tc.want)
		}
	}
	// In a long text: some context before the match, cut at words, marked.
	long := strings.Repeat("alpha ", 200) + "needle " + strings.Repeat("omega ", 200)
	got := matchSnippet(long, []string{"needle"}, snippetBytes)
	before, _, found := strings.Cut(got, "needle")
	if !found || !strings.HasPrefix(got, "…alpha") || !strings.HasSuffix(got, "omega…") || len(before) < 20 || len(got) > snippetBytes+2*len("…") {
		t.Errorf("matchSnippet(long) = %q", got)
	}
}

// TestSearchPlanIndexOnly pins that full-text search filters matches by
// scope on the notes_scope index alone: the plan never reads note rows.
func TestSearchPlanIndexOnly(t *testing.T) {
	be := sqliteBackend // SQLite internals
	{
		f := newFixture(t, be, Options{})
		sc, err := readScope(t.Context(), f.s.db, f.reader, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"notes_fts", "notes_head_fts"} {
			query, args := ftsScoredSQL(table, `"x"`, "bm25("+table+")", sc, 10)
			rows, err := f.s.db.Query("EXPLAIN QUERY PLAN "+query, args...)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			all := strings.Join(plan, "; ")
			if !strings.Contains(all, "USING COVERING INDEX notes_scope") || strings.Contains(all, "TEMP B-TREE") {
				t.Errorf("%s plan = %s; want the scope read from the covering index and no sort", table, all)
			}
		}
	}
}

// TestSearchTitleOutweighsBody pins the column weights: a note about the
// subject (title, headings) comes before notes that mention it more often.
func TestSearchTitleOutweighsBody(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		for _, topic := range []string{"Budget", "Hiring", "Roadmap", "Incidents", "Glossary"} {
			f.create(t, "acme/web", "# "+topic+"\n\nNotes about "+strings.ToLower(topic)+".")
		}
		page := f.create(t, "acme/web", "# Canvas\n\nA visual workspace for notes.")
		heading := f.create(t, "acme/web", "# Workspace guide\n\n## Canvas layout\n\nArrange cards.")
		f.create(t, "acme/web", "# Weekly notes\n\nThe canvas, the canvas again, more canvas and canvas cards on a canvas.")
		out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "canvas"})
		if err != nil || len(out.Results) != 3 || out.Results[0].ID != page.ID || out.Results[1].ID != heading.ID {
			t.Fatalf("Search(canvas) = %+v, %v; want the Canvas page, then the heading, then the mentions", out.Results, err)
		}
	})
}

// TestSearchPriorDemotesChangelogs pins the search prior: release notes
// that mention a feature in a heading and many times over do not outrank
// the feature's own page.
func TestSearchPriorDemotesChangelogs(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		for _, topic := range []string{"Budget", "Hiring", "Roadmap", "Incidents", "Glossary"} {
			f.create(t, "acme/web", "# "+topic+"\n\nNotes about "+strings.ToLower(topic)+".")
		}
		page := f.create(t, "acme/web", "# Canvas\n\nCanvas is a visual workspace: place notes, images and links on an infinite board.")
		mention := "Canvas cards, canvas groups, canvas export and canvas search; canvas links open faster. "
		rel, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme/web", Path: "Release notes",
			Body: "# Obsidian 1.5: Canvas and Sync\n\n## Canvas\n\n" + strings.Repeat(mention, 4)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "canvas"})
		if err != nil || len(out.Results) != 2 || out.Results[0].ID != page.ID || out.Results[1].ID != rel.ID {
			t.Fatalf("Search(canvas) = %+v, %v; want the Canvas page before the release notes", out.Results, err)
		}
		for _, tc := range []struct {
			n    noteRow
			want float64
		}{
			{noteRow{Title: "Canvas"}, priorPage},
			{noteRow{Title: "CHANGELOG-3.4", Source: "changelog/CHANGELOG-3.4.md"}, priorChangelog},
			{noteRow{Folder: "docs/release-notes", Title: "1.5"}, priorChangelog},
			{noteRow{Title: "What's new in 2.0"}, priorChangelog},
			{noteRow{Title: "История изменений"}, priorChangelog},
			{noteRow{Title: "Release planning", Type: "meeting"}, priorPage},
		} {
			if got := searchPrior(tc.n); got != tc.want {
				t.Errorf("searchPrior(%+v) = %v; want %v", tc.n, got, tc.want)
			}
		}
	})
}

// TestSearchLargeCorpusPlan pins how a search stays fast on a large
// corpus: words in more than half the bodies are not ranked by (a query of
// only such words lists the newest notes holding them), words no note has
// are dropped, and past the rank window the newest matches are scored while
// title matches of older notes still count.
func TestSearchLargeCorpusPlan(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		old := f.create(t, "acme/web", "# Rollback\n\nRevert the tag, then redeploy.")
		var ids []string
		for i := range 6 {
			ids = append(ids, f.create(t, "acme/web", fmt.Sprintf("# Note %d\n\nThe service runs; a rollback is rare.", i)).ID)
		}
		slices.Reverse(ids) // newest first

		f.s.commonFrom = 4
		plan, err := ftsPlanOf(t.Context(), f.s, queryTerms("service rollback teapot"))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(plan) != `{["rollback"] [] ["service" "rollback"]}` {
			t.Errorf("plan = %+v; want rollback ranked in titles only, both words common in bodies, teapot dropped", plan)
		}
		search := func(q string) []string {
			t.Helper()
			out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out.Results {
				got = append(got, r.ID)
			}
			return got
		}
		if got := search("service"); !slices.Equal(got, ids) {
			t.Errorf("Search(service) = %v; want the newest notes holding it, newest first: %v", got, ids)
		}
		if got := search("rollback"); !slices.Equal(got, append([]string{old.ID}, ids...)) {
			t.Errorf("Search(rollback) = %v; want the titled note, then the newest mentions", got)
		}

		// Ranked, but only the newest 3 bodies are scored: the old note's
		// title still counts.
		f.s.commonFrom, f.s.rankWindow = 1000, 3
		window := slices.Clone(ids[:3])
		slices.Reverse(window) // equal scores: by id
		if got := search("rollback"); !slices.Equal(got, append([]string{old.ID}, window...)) {
			t.Errorf("Search(rollback) with a window of 3 = %v; want %s, then %v", got, old.ID, window)
		}
	})
}

// ftsPlanOf is the backend's full-text plan in SQLite's terms: the words
// ranked in titles, ranked in bodies, and common in bodies.
func ftsPlanOf(ctx context.Context, s *Store, words []string) (ftsPlan, error) {
	if s.d.name() == "sqlite" {
		return s.planQuery(ctx, words)
	}
	terms, _, err := pgPlan(ctx, s, words)
	var p ftsPlan
	for _, t := range terms {
		if t.inHead {
			p.head = append(p.head, ftsTerm(t.word))
		}
		if t.inBody {
			p.body = append(p.body, ftsTerm(t.word))
		}
		if t.com {
			p.common = append(p.common, ftsTerm(t.word))
		}
	}
	return p, err
}
