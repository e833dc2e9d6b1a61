package kb

import (
	"strings"
	"testing"
)

func TestLink(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		if _, err := f.s.CreateProject(t.Context(), f.person, "acme/ops", ""); err != nil {
			t.Fatal(err)
		}
		a := f.create(t, "acme/web", "# A")
		b := f.create(t, "acme/web", "# B")
		other := f.create(t, "acme/ops", "# Elsewhere")

		out, err := f.s.Link(t.Context(), f.agent, LinkInput{From: a.ID, To: b.ID, Type: "depends-on"})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Created || out.To != b.ID || out.Pending || out.VersionToken != a.VersionToken {
			t.Errorf("Link = %+v", out)
		}
		again, err := f.s.Link(t.Context(), f.agent, LinkInput{From: a.ID, To: b.ID, Type: "depends-on"})
		if err != nil || again.Created {
			t.Errorf("repeated Link = %+v, %v; want created false", again, err)
		}
		byTitle, err := f.s.Link(t.Context(), f.agent, LinkInput{From: a.ID, ToTitle: "b"})
		if err != nil || byTitle.To != b.ID || byTitle.Type != "related" {
			t.Errorf("Link by existing title = %+v, %v; want resolved to %s, type related", byTitle, err, b.ID)
		}
		for _, tc := range []struct {
			name string
			in   LinkInput
			code string
		}{
			{"cross project", LinkInput{From: a.ID, To: other.ID}, CodeInvalidArgument},
			{"no target", LinkInput{From: a.ID}, CodeInvalidArgument},
			{"reserved type", LinkInput{From: a.ID, To: b.ID, Type: "wikilink"}, CodeInvalidArgument},
			{"unknown from", LinkInput{From: "n999", To: b.ID}, CodeNotFound},
		} {
			before := snapshot(t, f.s)
			_, err := f.s.Link(t.Context(), f.agent, tc.in)
			if ErrorCode(err) != tc.code {
				t.Errorf("%s: Link = %v; want %s", tc.name, err, tc.code)
			}
			if snapshot(t, f.s) != before {
				t.Errorf("%s: a refused link changed the database", tc.name)
			}
		}
		links := f.get(t, b.ID).Links
		if len(links) != 2 || links[0].Direction != "in" || links[0].NoteID != a.ID {
			t.Errorf("B's links = %+v; want two incoming from A", links)
		}
	})
}

func TestForwardLinkResolvedWhenTitleAppears(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		a := f.create(t, "acme/web", "# Plan\n\nSee [[Rollback#Steps|the rollback]].")
		out, err := f.s.Link(t.Context(), f.agent, LinkInput{From: a.ID, ToTitle: "Rollback", Type: "needs"})
		if err != nil || !out.Pending {
			t.Fatalf("Link to a missing title = %+v, %v; want pending", out, err)
		}
		for _, l := range f.get(t, a.ID).Links {
			if !l.Pending {
				t.Fatalf("before the target exists: %+v is not pending", l)
			}
		}
		// A note renamed to the awaited title satisfies the references.
		r := f.create(t, "acme/web", "# Draft")
		if _, err := f.s.RenameNote(t.Context(), f.agent, RenameNoteInput{ID: r.ID, Title: "rollback"}); err != nil {
			t.Fatal(err)
		}
		links := f.get(t, a.ID).Links
		if len(links) != 2 {
			t.Fatalf("links = %+v; want 2", links)
		}
		for _, l := range links {
			if l.Pending || l.NoteID != r.ID {
				t.Errorf("after the title appeared: %+v; want resolved to %s", l, r.ID)
			}
		}

		// And a newly created note does the same.
		c := f.create(t, "acme/web", "# Index\n\n[[Glossary]]")
		g := f.create(t, "acme/web", "# Glossary")
		if l := f.get(t, c.ID).Links; len(l) != 1 || l[0].NoteID != g.ID {
			t.Errorf("Index links = %+v; want resolved to %s", l, g.ID)
		}
	})
}

func TestLinkMany(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		a := f.create(t, "acme/web", "# A")
		b := f.create(t, "acme/web", "# B")
		in := LinkManyInput{Links: []LinkInput{
			{From: a.ID, To: b.ID},
			{From: a.ID, ToTitle: "Later"},
			{From: "n999", To: b.ID},
			{From: b.ID, To: a.ID, Type: "part of"},
		}}
		out, err := f.s.LinkMany(t.Context(), f.agent, in)
		if err != nil {
			t.Fatal(err)
		}
		if out.Created != 3 || out.Failed != 1 || out.Results[2].Status != "error" || !strings.Contains(out.Results[2].Error, "n999") {
			t.Fatalf("LinkMany = %+v; want 3 created, item 2 failed naming n999", out)
		}
		if !out.Results[1].Pending {
			t.Errorf("forward reference result = %+v; want pending", out.Results[1])
		}
		before := snapshot(t, f.s)
		again, err := f.s.LinkMany(t.Context(), f.agent, in)
		if err != nil || again.Created != 0 || again.Existing != 3 || again.Failed != 1 {
			t.Errorf("repeated LinkMany = %+v, %v; want 0 created, 3 existing", again, err)
		}
		if snapshot(t, f.s) != before {
			t.Error("repeating link_many changed the database")
		}
	})
}
