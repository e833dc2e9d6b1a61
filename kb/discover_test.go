package kb

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListNotes(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		for _, d := range []CreateNoteInput{
			{Body: "# beta", Tags: []string{"x"}},
			{Body: "# Alpha"},
			{Body: "# Gamma", Tags: []string{"x"}},
			{Body: "# Deep", Path: "guides/ops"},
			{Body: "# Guide", Path: "guides", Tags: []string{"x"}},
			{Body: "# Adr", Path: "decisions"},
		} {
			d.Project = "acme/web"
			if _, err := f.s.CreateNote(t.Context(), f.agent, d); err != nil {
				t.Fatal(err)
			}
		}
		root, err := f.s.ListNotes(t.Context(), f.reader, ListNotesInput{Project: "acme/web", Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]FolderCount{{"decisions", 1}, {"guides", 2}}, root.Folders); diff != "" {
			t.Errorf("folders (-want +got):\n%s", diff)
		}
		titles := func(out ListNotesOutput) string {
			var s []string
			for _, n := range out.Notes {
				s = append(s, n.Title)
			}
			return fmt.Sprint(s)
		}
		if got := titles(root); got != "[Alpha beta]" || root.NextCursor == "" {
			t.Errorf("page 1 = %s (cursor %q); want [Alpha beta] and a cursor", got, root.NextCursor)
		}
		page2, err := f.s.ListNotes(t.Context(), f.reader, ListNotesInput{Project: "acme/web", Limit: 2, Cursor: root.NextCursor})
		if err != nil || titles(page2) != "[Gamma]" || page2.NextCursor != "" || len(page2.Folders) != 0 {
			t.Errorf("page 2 = %+v, %v; want [Gamma], last page, no folders", page2, err)
		}
		all, err := f.s.ListAllNotes(t.Context(), f.reader, ListNotesInput{Project: "acme/web", Limit: 2})
		if err != nil || titles(all) != "[Alpha beta Gamma]" || all.NextCursor != "" || len(all.Folders) != 2 {
			t.Errorf("every page = %+v, %v; want [Alpha beta Gamma], the folders of page 1, no cursor", all, err)
		}
		guides, err := f.s.ListNotes(t.Context(), f.reader, ListNotesInput{Project: "acme/web", Path: "guides"})
		if err != nil || titles(guides) != "[Guide]" || len(guides.Folders) != 1 || guides.Folders[0].Path != "guides/ops" {
			t.Errorf("guides = %+v, %v", guides, err)
		}
		tagged, err := f.s.ListNotes(t.Context(), f.reader, ListNotesInput{Project: "acme/web", Tag: "X"})
		if err != nil || titles(tagged) != "[beta Gamma]" || len(tagged.Folders) != 1 {
			t.Errorf("tag x = %+v, %v; want [beta Gamma] and folder guides", tagged, err)
		}
		for _, in := range []ListNotesInput{
			{Project: "acme/web", Path: "missing"},
			{Project: "acme/web", Cursor: "!!"},
			{Project: "nope"},
		} {
			if _, err := f.s.ListNotes(t.Context(), f.reader, in); ErrorCode(err) == "" {
				t.Errorf("ListNotes(%+v) = %v; want a tool error", in, err)
			}
		}
	})
}

func TestRecentActivity(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		a := f.create(t, "acme/web", "# A")
		f.create(t, "acme/web", "# B")
		if _, err := f.s.EditNote(t.Context(), f.person, EditNoteInput{ID: a.ID, VersionToken: a.VersionToken, Mode: "append", Content: "x"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.RememberAboutUser(t.Context(), f.agent, RememberAboutUserInput{Category: "c", Observation: "o"}); err != nil {
			t.Fatal(err)
		}
		out, err := f.s.RecentActivity(t.Context(), f.reader, RecentActivityInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Notes) != 2 {
			t.Fatalf("recent_activity = %+v; want A and B (memory is not listed)", out.Notes)
		}
		got := out.Notes[0]
		if got.ID != a.ID || got.Action != "edit" || got.Changed.By != KindPerson || got.Changed.Tool != "edit_note" ||
			got.Changed.Client != "test-cli" || got.Changed.Principal != "alice" || got.Changed.At.IsZero() {
			t.Errorf("most recent = %+v; want A edited by a person through edit_note from test-cli", got)
		}
		if b := out.Notes[1]; b.Changed.By != KindAgent || b.Changed.Token != "agent" || b.Changed.Session != "s1" {
			t.Errorf("second = %+v; want created by the agent token in session s1", b)
		}
		one, _ := f.s.RecentActivity(t.Context(), f.reader, RecentActivityInput{Limit: 1, Project: "acme/web"})
		if len(one.Notes) != 1 {
			t.Errorf("limit 1 gave %d", len(one.Notes))
		}
	})
}
