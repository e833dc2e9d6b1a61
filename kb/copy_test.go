package kb

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/internal/pgtest"
)

// TestCopyToPostgres copies a SQLite knowledge base holding a bit of
// everything into PostgreSQL, then checks the copy row for row and by use:
// tokens authenticate, version tokens still match, search and vector
// search find what they found, the trash is there, and new rows get new
// ids. A second copy into the now full database is refused.
func TestCopyToPostgres(t *testing.T) {
	ctx := t.Context()
	opts := Options{Embedder: HashEmbedder{Dims: 64}}
	f := newFixture(t, sqliteBackend, opts)
	if _, err := f.s.CreateProject(ctx, f.person, "acme/ops", "Ops"); err != nil {
		t.Fatal(err)
	}
	plain, _, err := f.s.CreateToken(ctx, f.person, TokenSpec{Name: "ops-only", Write: true, Projects: []string{"acme/ops"}})
	if err != nil {
		t.Fatal(err)
	}
	agentPlain, _, err := f.s.CreateToken(ctx, f.person, TokenSpec{Name: "migrating agent", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.agent, err = f.s.Authenticate(ctx, agentPlain); err != nil {
		t.Fatal(err)
	}
	guide, err := f.s.CreateNote(ctx, f.agent, CreateNoteInput{Project: "acme/web", Path: "ops", Tags: []string{"ops"},
		Body: "# Deploy guide\n\nRun make deploy. See [[Rollback]] and ![[diagram.png]]."})
	if err != nil {
		t.Fatal(err)
	}
	edited, err := f.s.EditNote(ctx, f.agent, EditNoteInput{ID: guide.ID, VersionToken: guide.VersionToken, Mode: ModeAppend, Content: "Ask ops first."})
	if err != nil {
		t.Fatal(err)
	}
	old := f.create(t, "acme/web", "# Old runbook\n\nObsolete.")
	if _, err := f.s.RenameNote(ctx, f.agent, RenameNoteInput{ID: old.ID, Title: "Ancient runbook", VersionToken: old.VersionToken}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.DeleteNote(ctx, f.agent, DeleteNoteInput{ID: old.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Link(ctx, f.agent, LinkInput{From: guide.ID, ToTitle: "Postmortem template"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "preferences", Observation: "Prefers short answers."}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.StartSession(ctx, f.agent, StartSessionInput{}); err != nil {
		t.Fatal(err)
	}
	before, err := f.s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}

	dst := postgresBackend.reopen(t, pgtest.New(t), opts)
	rep, err := f.s.CopyTo(ctx, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before.Rows, rep.Rows); diff != "" {
		t.Errorf("rows copied differ from the source (-source +copy):\n%s", diff)
	}
	for table, n := range before.Rows {
		if n == 0 && table != "project_aliases" {
			t.Errorf("the source has no %s rows: the test copies too little", table)
		}
	}

	c, err := dst.Authenticate(ctx, plain)
	if err != nil || !c.Write || len(c.ProjectIDs) != 1 {
		t.Fatalf("Authenticate(copied token) = %+v, %v; want a write token limited to one project", c, err)
	}
	agent, err := dst.Authenticate(ctx, agentPlain)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dst.GetNote(ctx, agent, GetNoteInput{Ref: guide.ID})
	if err != nil || got.VersionToken != edited.VersionToken {
		t.Fatalf("GetNote(copy) = %+v, %v; want version token %s", got, err, edited.VersionToken)
	}
	out, err := dst.Search(ctx, agent, SearchInput{Query: "deploy"})
	if err != nil || out.Mode != "hybrid" || len(out.Results) == 0 || out.Results[0].ID != guide.ID {
		t.Errorf("Search(copy) = %+v, %v; want the guide first, hybrid", out, err)
	}
	trash, err := dst.TrashList(ctx, PersonCaller(f.alice.ID, "test"))
	if err != nil || len(trash) != 1 {
		t.Errorf("TrashList(copy) = %+v, %v; want the trashed runbook", trash, err)
	}
	fresh, err := dst.CreateNote(ctx, agent, CreateNoteInput{Project: "acme/web", Body: "# Rollback\n\nRevert."})
	if err != nil {
		t.Fatalf("CreateNote after the copy: %v", err)
	}
	if id, _ := parseNoteRef(fresh.ID); id <= 2 {
		t.Errorf("a new note after the copy got id %s; want one past the copied ids", fresh.ID)
	}
	if _, err := f.s.CopyTo(ctx, dst, nil); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("second CopyTo = %v; want ErrNotEmpty", err)
	}
}
