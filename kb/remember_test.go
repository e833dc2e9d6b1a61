package kb

import (
	"strings"
	"testing"
)

func TestRememberAboutUser(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	first, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "Preferences", Observation: "Prefers Go over Python."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "background", Observation: "Works  in\nBerlin."}); err != nil {
		t.Fatal(err)
	}
	second, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "preferences", Observation: "Likes short answers."})
	if err != nil || second.Category != "Preferences" || second.NoteID != first.NoteID || second.Duplicate {
		t.Fatalf("second observation = %+v, %v; want the existing category and note", second, err)
	}
	before := snapshot(t, f.s)
	dup, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "PREFERENCES", Observation: "prefers go over python."})
	if err != nil || !dup.Duplicate || dup.VersionToken != second.VersionToken {
		t.Errorf("duplicate = %+v, %v; want duplicate and no new version", dup, err)
	}
	if snapshot(t, f.s) != before {
		t.Error("a duplicate observation changed the database")
	}
	n := f.get(t, first.NoteID)
	want := "## Preferences\n\n- Prefers Go over Python.\n- Likes short answers.\n\n## background\n\n- Works in Berlin.\n"
	if n.Body != want || n.Class != ClassUserProfile || n.Project != "" {
		t.Errorf("profile = %q (class %s); want %q", n.Body, n.Class, want)
	}
	for _, in := range []RememberAboutUserInput{{Category: "", Observation: "x"}, {Category: "c", Observation: " "}, {Category: "a#b", Observation: "x"}} {
		if _, err := f.s.RememberAboutUser(ctx, f.agent, in); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("RememberAboutUser(%+v) = %v; want invalidArgument", in, err)
		}
	}
	// Another principal has their own, empty profile.
	bob, _ := f.s.CreatePrincipal(ctx, "bob")
	s, err := f.s.StartSession(ctx, PersonCaller(bob.ID, "cli"), StartSessionInput{})
	if err != nil || s.Profile.Body != "" {
		t.Errorf("bob's profile = %+v, %v; want empty", s.Profile, err)
	}
	if _, err := f.s.GetNote(ctx, PersonCaller(bob.ID, "cli"), GetNoteInput{Ref: first.NoteID}); ErrorCode(err) != CodeNotFound {
		t.Errorf("bob reading alice's profile: %v; want notFound", err)
	}
}

func TestRememberAboutProject(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	out, err := f.s.RememberAboutProject(ctx, f.agent, RememberAboutProjectInput{Project: "acme/web", Category: "conventions", Observation: "Branches are named feature/*."})
	if err != nil {
		t.Fatal(err)
	}
	n := f.get(t, out.NoteID)
	if n.Class != ClassAgentMemory || n.AboutProject != "acme/web" || n.Project != "" || !strings.Contains(n.Body, "- Branches are named feature/*.") {
		t.Errorf("memory note = %+v", n)
	}
	// Memory is not shared knowledge: list_notes does not show it.
	list, _ := f.s.ListNotes(ctx, f.agent, ListNotesInput{Project: "acme/web"})
	if len(list.Notes) != 0 {
		t.Errorf("list_notes shows memory: %+v", list.Notes)
	}
	if _, err := f.s.RememberAboutProject(ctx, f.agent, RememberAboutProjectInput{Project: "nope", Category: "c", Observation: "o"}); ErrorCode(err) != CodeNotFound {
		t.Errorf("unknown project: %v; want notFound", err)
	}
	again, err := f.s.RememberAboutProject(ctx, f.agent, RememberAboutProjectInput{Project: "acme/web", Category: "Conventions", Observation: "Commits are signed."})
	if err != nil || again.NoteID != out.NoteID {
		t.Errorf("second memory = %+v, %v; want the same note", again, err)
	}
}
