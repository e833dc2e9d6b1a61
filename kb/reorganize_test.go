package kb

import (
	"slices"
	"strings"
	"testing"
)

func TestMoveNote(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		a := f.create(t, "acme/web", "# A")
		b := f.create(t, "acme/web", "# B\n\n[[A]]")
		out, err := f.s.MoveNote(t.Context(), f.agent, MoveNoteInput{ID: a.ID, Path: "archive/2026"})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Changed || out.Path != "archive/2026" || out.VersionToken == a.VersionToken {
			t.Errorf("MoveNote = %+v", out)
		}
		if n := f.get(t, a.ID); n.Path != "archive/2026" || n.VersionToken != out.VersionToken {
			t.Errorf("after move: %+v", n)
		}
		if l := f.get(t, b.ID).Links; len(l) != 1 || l[0].NoteID != a.ID {
			t.Errorf("incoming link after move = %+v; want intact", l)
		}
		same, err := f.s.MoveNote(t.Context(), f.agent, MoveNoteInput{ID: a.ID, Path: "archive/2026/"})
		if err != nil || same.Changed || same.VersionToken != out.VersionToken {
			t.Errorf("moving to the same folder = %+v, %v; want no change", same, err)
		}
		if _, err := f.s.MoveNote(t.Context(), f.agent, MoveNoteInput{ID: a.ID, Path: "x", VersionToken: a.VersionToken}); ErrorCode(err) != CodeVersionConflict {
			t.Errorf("move with a stale token: %v; want versionConflict", err)
		}
	})
}

func TestRenameNoteOldWikiLinkResolves(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		old := f.create(t, "acme/web", "# Deploy guide")
		ref := f.create(t, "acme/web", "# Index\n\nRead [[Deploy guide]] first.")
		out, err := f.s.RenameNote(t.Context(), f.agent, RenameNoteInput{ID: old.ID, Title: "Shipping guide", VersionToken: old.VersionToken})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Changed || out.OldTitle != "Deploy guide" || out.Title != "Shipping guide" {
			t.Errorf("RenameNote = %+v", out)
		}
		n, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "[[Deploy guide]]", Project: "acme/web", Detailed: true})
		if err != nil {
			t.Fatal(err)
		}
		if n.ID != old.ID || n.Title != "Shipping guide" || n.ResolvedVia == "" || !slices.Contains(n.Aliases, "Deploy guide") {
			t.Errorf("get_note [[Deploy guide]] = %+v; want %s via its former title", n, old.ID)
		}
		if l := f.get(t, ref.ID).Links; len(l) != 1 || l[0].NoteID != old.ID || l[0].Title != "Shipping guide" {
			t.Errorf("Index's link = %+v; want it to reach %s", l, old.ID)
		}
		// A link written after the rename, with the old title, resolves too.
		late := f.create(t, "acme/web", "# Later\n\n[[deploy guide]]")
		if l := f.get(t, late.ID).Links; len(l) != 1 || l[0].NoteID != old.ID {
			t.Errorf("new [[old title]] link = %+v; want resolved to %s", l, old.ID)
		}
		// The old title is free for a new note, which then wins.
		newer := f.create(t, "acme/web", "# Deploy guide")
		if n, _ := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "Deploy guide", Project: "acme/web"}); n.ID != newer.ID {
			t.Errorf("after reuse of the title get_note = %s; want %s", n.ID, newer.ID)
		}
		if _, err := f.s.RenameNote(t.Context(), f.agent, RenameNoteInput{ID: old.ID, Title: "Index"}); ErrorCode(err) != CodeConflict {
			t.Errorf("rename onto a taken title: %v; want conflict", err)
		}
	})
}

func TestMoveFolder(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		var ids []string
		for _, p := range []string{"guides", "guides/ops", "guides/ops/deep"} {
			out, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme/web", Body: "# In " + p, Path: p})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, out.ID)
		}
		f.create(t, "acme/web", "# Root note")
		out, err := f.s.MoveFolder(t.Context(), f.agent, MoveFolderInput{Project: "acme/web", Path: "guides/ops", NewParent: "archive"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Path != "archive/ops" || len(out.Notes) != 2 {
			t.Fatalf("MoveFolder = %+v; want 2 notes moved to archive/ops", out)
		}
		for i, want := range []string{"guides", "archive/ops", "archive/ops/deep"} {
			if n := f.get(t, ids[i]); n.Path != want {
				t.Errorf("%s path = %q; want %q", ids[i], n.Path, want)
			}
		}
		for _, tc := range []struct {
			in   MoveFolderInput
			code string
		}{
			{MoveFolderInput{Project: "acme/web", Path: "nope", NewParent: ""}, CodeNotFound},
			{MoveFolderInput{Project: "acme/web", Path: "archive", NewParent: "archive/ops"}, CodeInvalidArgument},
			{MoveFolderInput{Project: "acme/web", Path: "", NewParent: "x"}, CodeInvalidArgument},
			{MoveFolderInput{Project: "acme/web", Path: "archive/ops", NewParent: ""}, CodeConflict},
		} {
			if tc.code == CodeConflict {
				f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme/web", Body: "# Blocker", Path: "ops"})
			}
			before := snapshot(t, f.s)
			if _, err := f.s.MoveFolder(t.Context(), f.agent, tc.in); ErrorCode(err) != tc.code {
				t.Errorf("MoveFolder(%+v) = %v; want %s", tc.in, err, tc.code)
			}
			if snapshot(t, f.s) != before {
				t.Errorf("refused MoveFolder(%+v) changed the database", tc.in)
			}
		}
	})
}

func TestRenameFolder(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		out, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme/web", Body: "# Deep", Path: "a/b/c"})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := f.s.RenameFolder(t.Context(), f.agent, RenameFolderInput{Project: "acme/web", Path: "a/b", NewName: "bee"})
		if err != nil {
			t.Fatal(err)
		}
		if ch.Path != "a/bee" || len(ch.Notes) != 1 || ch.Notes[0].Path != "a/bee/c" {
			t.Errorf("RenameFolder = %+v", ch)
		}
		if n := f.get(t, out.ID); n.Path != "a/bee/c" || n.VersionToken != ch.Notes[0].VersionToken {
			t.Errorf("note after rename_folder = %+v", n)
		}
		if _, err := f.s.RenameFolder(t.Context(), f.agent, RenameFolderInput{Project: "acme/web", Path: "a", NewName: "x/y"}); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("newName with '/': %v; want invalidArgument", err)
		}
		if _, err := f.s.RenameFolder(t.Context(), f.agent, RenameFolderInput{Project: "acme/web", Path: "", NewName: "x"}); err == nil || !strings.Contains(err.Error(), "rename_project") {
			t.Errorf("renaming the root: %v; want a pointer to rename_project", err)
		}
	})
}

func TestRenameProjectOldHandleResolves(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		scoped := f.token(t, TokenSpec{Name: "scoped", Write: true, Projects: []string{"acme/web"}})
		note := f.create(t, "acme/web", "# Kept")
		out, err := f.s.RenameProject(t.Context(), f.agent, RenameProjectInput{Project: "acme/web", NewHandle: "acme/site", NewName: "Acme site"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Handle != "acme/site" || !out.HandleChanged || !out.NameChanged || !slices.Equal(out.FormerHandles, []string{"acme/web"}) {
			t.Errorf("RenameProject = %+v", out)
		}
		ps, _ := f.s.GetMyProjects(t.Context(), f.agent, GetMyProjectsInput{})
		if len(ps.Projects) != 1 || ps.Projects[0].Handle != "acme/site" || ps.Projects[0].Name != "Acme site" {
			t.Errorf("get_my_projects = %+v; want acme/site", ps.Projects)
		}
		// The old handle keeps working everywhere, including for a token scoped to it.
		for _, c := range []Caller{f.agent, scoped} {
			list, err := f.s.ListNotes(t.Context(), c, ListNotesInput{Project: "acme/web"})
			if err != nil || list.Project != "acme/site" || len(list.Notes) == 0 || list.Notes[0].ID != note.ID {
				t.Errorf("list_notes with the old handle = %+v, %v", list, err)
			}
			if _, err := f.s.CreateNote(t.Context(), c, CreateNoteInput{Project: "acme/web", Body: "# Via old handle " + c.Session + string(rune('a'+c.TokenID))}); err != nil {
				t.Errorf("create_note with the old handle: %v", err)
			}
		}
		if n := f.get(t, note.ID); n.Project != "acme/site" {
			t.Errorf("note's project = %q; want the new handle", n.Project)
		}
		// Repeating the rename (through the old handle) changes nothing.
		again, err := f.s.RenameProject(t.Context(), f.agent, RenameProjectInput{Project: "acme/web", NewHandle: "acme/site"})
		if err != nil || again.HandleChanged || again.NameChanged {
			t.Errorf("repeated RenameProject = %+v, %v; want no change", again, err)
		}
		if _, err := f.s.CreateProject(t.Context(), f.person, "acme/web", ""); ErrorCode(err) != CodeConflict {
			t.Errorf("creating a project on a former handle: %v; want conflict", err)
		}
	})
}

func TestDeleteNote(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		a := f.create(t, "acme/web", "# Doomed\n\nunique-word-zebra")
		if _, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: a.ID, VersionToken: "v9.bad"}); ErrorCode(err) != CodeVersionConflict {
			t.Errorf("delete with a stale token: %v; want versionConflict", err)
		}
		out, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: a.ID})
		if err != nil || !out.Trashed || out.AlreadyTrashed {
			t.Fatalf("DeleteNote = %+v, %v", out, err)
		}
		again, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: a.ID})
		if err != nil || !again.AlreadyTrashed {
			t.Errorf("deleting again = %+v, %v; want alreadyTrashed", again, err)
		}
		_, err = f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: a.ID})
		if ErrorCode(err) != CodeNotFound || !strings.Contains(err.Error(), "trash") {
			t.Errorf("get_note of a trashed note: %v; want notFound mentioning the trash", err)
		}
		res, _ := f.s.Search(t.Context(), f.agent, SearchInput{Query: "zebra"})
		if len(res.Results) != 0 {
			t.Errorf("search finds a trashed note: %+v", res.Results)
		}
		if _, err := f.s.EditNote(t.Context(), f.agent, EditNoteInput{ID: a.ID, VersionToken: a.VersionToken, Mode: "append", Content: "x"}); ErrorCode(err) != CodeNotFound {
			t.Errorf("editing a trashed note: %v; want notFound", err)
		}
	})
}

func TestTrashRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		a := f.create(t, "acme/web", "# Keep me\n\n[[Other]]")
		o := f.create(t, "acme/web", "# Other")
		if _, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: a.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.TrashList(t.Context(), f.agent); ErrorCode(err) != CodeForbidden {
			t.Errorf("agent TrashList: %v; want forbidden", err)
		}
		if _, err := f.s.TrashRestore(t.Context(), f.agent, a.ID); ErrorCode(err) != CodeForbidden {
			t.Errorf("agent TrashRestore: %v; want forbidden", err)
		}
		if _, err := f.s.TrashEmpty(t.Context(), f.agent, ""); ErrorCode(err) != CodeForbidden {
			t.Errorf("agent TrashEmpty: %v; want forbidden", err)
		}
		list, err := f.s.TrashList(t.Context(), f.person)
		if err != nil || len(list) != 1 || list[0].ID != a.ID || list[0].DeletedBy.By != KindAgent || list[0].Project != "acme/web" {
			t.Fatalf("TrashList = %+v, %v", list, err)
		}
		if in, err := f.s.TrashListProject(t.Context(), f.person, "acme/web"); err != nil || len(in) != 1 {
			t.Errorf("TrashListProject(acme/web) = %+v, %v; want the note", in, err)
		}
		if _, err := f.s.TrashListProject(t.Context(), f.person, "no/such"); ErrorCode(err) != CodeNotFound {
			t.Errorf("TrashListProject(no/such): %v; want notFound", err)
		}
		// Its title is free while it is in the trash; restoring then conflicts.
		blocker := f.create(t, "acme/web", "# Keep me")
		if _, err := f.s.TrashRestore(t.Context(), f.person, a.ID); ErrorCode(err) != CodeConflict {
			t.Errorf("restore onto a taken title: %v; want conflict", err)
		}
		if _, err := f.s.DeleteNote(t.Context(), f.agent, DeleteNoteInput{ID: blocker.ID}); err != nil {
			t.Fatal(err)
		}
		restored, err := f.s.TrashRestore(t.Context(), f.person, a.ID)
		if err != nil || restored.ID != a.ID {
			t.Fatalf("TrashRestore = %+v, %v", restored, err)
		}
		n := f.get(t, a.ID)
		if n.Title != "Keep me" || len(n.Links) != 1 || n.Links[0].NoteID != o.ID || n.Updated.By != KindPerson {
			t.Errorf("restored note = %+v; want it back with its link, updated by a person", n)
		}
		purged, err := f.s.TrashEmpty(t.Context(), f.person, "acme/web")
		if err != nil || purged != 1 {
			t.Fatalf("TrashEmpty = %d, %v; want 1 (the blocker)", purged, err)
		}
		if _, err := f.s.TrashRestore(t.Context(), f.person, blocker.ID); ErrorCode(err) != CodeNotFound {
			t.Errorf("restoring a purged note: %v; want notFound", err)
		}
		var revs int
		id, _ := parseNoteRef(blocker.ID)
		f.s.db.QueryRow("SELECT count(*) FROM revisions WHERE note_id = ?", id).Scan(&revs)
		if revs != 0 {
			t.Errorf("purged note still has %d revisions", revs)
		}
	})
}
