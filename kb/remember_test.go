package kb

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRememberAboutUser(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
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
	})
}

func TestRememberAboutProject(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
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
	})
}

// TestUserMemoryIsolatedByProject pins kb.user_memory: what
// remember_about_user records through a token limited to one project is
// not readable through a token of another project — not by start_session,
// search, recall nor get_note — unless user memory is shared; the general
// profile (written by a token reaching every project) is read by all; a
// token limited to several projects has no single home and is refused
// while memory is isolated.
func TestUserMemoryIsolatedByProject(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		for _, shared := range []bool{false, true} {
			t.Run(map[bool]string{false: "isolated", true: "shared"}[shared], func(t *testing.T) {
				// Vectors too: "partner" finds the secret by embedding alone.
				emb := conceptEmbedder{concepts: [][]string{{"zebracorp", "partner"}}}
				f := newFixture(t, be, Options{SharedUserMemory: shared, Embedder: emb})
				ctx := t.Context()
				if _, err := f.s.CreateProject(ctx, f.person, "acme/ops", ""); err != nil {
					t.Fatal(err)
				}
				web := f.token(t, TokenSpec{Name: "web", Write: true, Projects: []string{"acme/web"}})
				ops := f.token(t, TokenSpec{Name: "ops", Projects: []string{"acme/ops"}})
				both := f.token(t, TokenSpec{Name: "both", Write: true, Projects: []string{"acme/web", "acme/ops"}})
				secret, err := f.s.RememberAboutUser(ctx, web, RememberAboutUserInput{Category: "clients", Observation: "Negotiates with zebracorp in secret."})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "preferences", Observation: "Prefers Go over Python."}); err != nil {
					t.Fatal(err)
				}
				// reads is everything a caller can read about the user, as JSON.
				reads := func(c Caller) string {
					t.Helper()
					var all []any
					ss, err := f.s.StartSession(ctx, c, StartSessionInput{})
					all = append(all, ss, err)
					for _, q := range []string{"zebracorp", "partner"} {
						se, err := f.s.Search(ctx, c, SearchInput{Query: q})
						all = append(all, se, err)
					}
					re, err := f.s.Recall(ctx, c, RecallInput{Topic: "zebracorp"})
					all = append(all, re, err)
					gn, err := f.s.GetNote(ctx, c, GetNoteInput{Ref: secret.NoteID})
					all = append(all, gn, err)
					b, _ := json.Marshal(all)
					return string(b)
				}
				if got := reads(web); !strings.Contains(got, "zebracorp") || !strings.Contains(got, "Prefers Go") {
					t.Errorf("the writing project's token does not read its own and the general profile: %s", got)
				}
				if got := reads(f.agent); !strings.Contains(got, "zebracorp") {
					t.Errorf("a token reaching every project does not read the project's profile: %s", got)
				}
				got := reads(ops)
				if !strings.Contains(got, "Prefers Go") {
					t.Errorf("another project's token does not read the general profile: %s", got)
				}
				if leaked := strings.Contains(got, "zebracorp in secret"); leaked != shared {
					t.Errorf("shared=%v: another project's token reads the fact: %v\n%s", shared, leaked, got)
				}
				ss, err := f.s.StartSession(ctx, web, StartSessionInput{})
				if err != nil {
					t.Fatal(err)
				}
				inProject := ss.ProjectProfile != nil && strings.Contains(ss.ProjectProfile.Body, "zebracorp")
				inGeneral := strings.Contains(ss.Profile.Body, "zebracorp")
				if inProject == shared || inGeneral != shared {
					t.Errorf("shared=%v: start_session of the web token: profile %q, project profile %+v", shared, ss.Profile.Body, ss.ProjectProfile)
				}
				_, err = f.s.RememberAboutUser(ctx, both, RememberAboutUserInput{Category: "c", Observation: "From two projects."})
				if shared && err != nil {
					t.Errorf("shared: a token of two projects cannot remember: %v", err)
				}
				if !shared && ErrorCode(err) != CodeForbidden {
					t.Errorf("isolated: a token of two projects remembered: %v; want forbidden", err)
				}
			})
		}
	})
}
