package kb

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWhoami(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{Embedder: HashEmbedder{}})
		for _, tc := range []struct {
			c      Caller
			access string
		}{{f.agent, "write"}, {f.reader, "read"}} {
			w, err := f.s.Whoami(t.Context(), tc.c, WhoamiInput{})
			if err != nil {
				t.Fatal(err)
			}
			want := WhoamiOutput{Principal: principalRef(f.alice.ID), Name: "alice", Kind: KindAgent, Access: tc.access,
				Projects:     []ProjectRef{{Handle: "acme/web", Name: "Acme web", Space: "acme", Access: tc.access}},
				Capabilities: Capabilities{Vector: true, Trash: true, Revisions: true}}
			if diff := cmp.Diff(want, w); diff != "" {
				t.Errorf("Whoami (-want +got):\n%s", diff)
			}
		}
		plain := newFixture(t, be, Options{})
		if w, _ := plain.s.Whoami(t.Context(), plain.agent, WhoamiInput{}); w.Capabilities.Vector {
			t.Error("whoami reports vector search without an embedder")
		}
	})
}

func TestGetMyProjects(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		if _, err := f.s.CreateProject(t.Context(), f.person, "acme", "Acme root"); err != nil {
			t.Fatal(err)
		}
		bob, _ := f.s.CreatePrincipal(t.Context(), "bob")
		if _, err := f.s.CreateProject(t.Context(), PersonCaller(bob.ID, "cli"), "bobs/things", ""); err != nil {
			t.Fatal(err)
		}
		out, err := f.s.GetMyProjects(t.Context(), f.reader, GetMyProjectsInput{})
		if err != nil {
			t.Fatal(err)
		}
		want := []ProjectRef{
			{Handle: "acme", Name: "Acme root", Space: "acme", Access: "read"},
			{Handle: "acme/web", Name: "Acme web", Space: "acme", Access: "read"},
		}
		if diff := cmp.Diff(want, out.Projects); diff != "" {
			t.Errorf("GetMyProjects (-want +got):\n%s", diff)
		}
		// The root project's handle is accepted verbatim.
		if _, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme", Body: "# Root doc"}); err != nil {
			t.Errorf("create_note in the root project: %v", err)
		}
	})
}

func TestStartSession(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		ctx := t.Context()
		// First visit: profile always present (empty), no delta yet.
		first, err := f.s.StartSession(ctx, f.agent, StartSessionInput{Project: "acme/web"})
		if err != nil {
			t.Fatal(err)
		}
		if !first.Delta.FirstVisit || len(first.Delta.Changes) != 0 || first.Profile.NoteID != "" || first.Index.Notes != 0 {
			t.Errorf("first start_session = %+v", first)
		}
		again, _ := f.s.StartSession(ctx, f.agent, StartSessionInput{Project: "acme/web"})
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("start_session is not idempotent within a visit (-first +again):\n%s", diff)
		}

		// Others write; the user profile and memory fill up.
		if _, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "Preferences", Observation: "Prefers short answers."}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.RememberAboutProject(ctx, f.agent, RememberAboutProjectInput{Project: "acme/web", Category: "Pitfalls", Observation: "CI is flaky on Mondays."}); err != nil {
			t.Fatal(err)
		}
		for _, d := range []CreateNoteInput{
			{Project: "acme/web", Body: "# Deploy", Path: "guides/ops", Type: "howto", Tags: []string{"ops"}},
			{Project: "acme/web", Body: "# Rollback", Path: "guides", Type: "howto", Tags: []string{"ops", "risk"}},
			{Project: "acme/web", Body: "# ADR 1", Path: "decisions", Type: "decision"},
			{Project: "acme/web", Body: "# Sibling", Path: "guides-old"},
			{Project: "acme/web", Body: "# Readme"},
		} {
			if _, err := f.s.CreateNote(ctx, f.person, d); err != nil {
				t.Fatal(err)
			}
		}

		// Still the same visit: the delta still starts at the (absent) mark.
		same, _ := f.s.StartSession(ctx, f.agent, StartSessionInput{Project: "acme/web"})
		if !same.Delta.FirstVisit {
			t.Errorf("same visit lost its mark: %+v", same.Delta)
		}
		// A new session later sees what happened since.
		f.clock.Advance(time.Hour)
		next := f.agent
		next.Session = "s2"
		out, err := f.s.StartSession(ctx, next, StartSessionInput{Project: "acme/web"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Delta.FirstVisit || out.Delta.Since == nil || len(out.Delta.Changes) != 5 {
			t.Fatalf("delta = %+v; want the 5 notes created since the last visit", out.Delta)
		}
		if c := out.Delta.Changes[0]; c.Title != "Readme" || c.Action != "create" || c.By.By != KindPerson || c.Project != "acme/web" {
			t.Errorf("newest change = %+v", c)
		}
		wantIndex := &ProjectIndex{Project: "acme/web", Name: "Acme web", Notes: 5, RootNotes: 1, MemoryNotes: 1,
			Folders: []FolderCount{{Path: "decisions", Notes: 1}, {Path: "guides", Notes: 2}, {Path: "guides-old", Notes: 1}}}
		if diff := cmp.Diff(wantIndex, out.Index); diff != "" {
			t.Errorf("index (-want +got):\n%s", diff)
		}
		if !slices.Equal(out.Profile.Categories, []string{"Preferences"}) || out.Profile.NoteID == "" {
			t.Errorf("profile = %+v", out.Profile)
		}
		wantKV := KnownValues{
			Categories: []string{"Preferences", "Pitfalls"},
			Types:      []ValueCount{{"howto", 2}, {"decision", 1}},
			Tags:       []ValueCount{{"ops", 2}, {"risk", 1}},
		}
		if diff := cmp.Diff(wantKV, out.KnownValues); diff != "" {
			t.Errorf("knownValues (-want +got):\n%s", diff)
		}
		// Without a project: no index, delta across projects and memory.
		all, err := f.s.StartSession(ctx, f.reader, StartSessionInput{})
		if err != nil || all.Index != nil || len(all.Projects) != 1 {
			t.Errorf("start_session without project = %+v, %v", all, err)
		}
		if _, err := f.s.StartSession(ctx, f.agent, StartSessionInput{Project: "nope"}); ErrorCode(err) != CodeNotFound {
			t.Errorf("unknown project: %v; want notFound", err)
		}
	})
}

// TestStartSessionSameDeltaWithinVisit pins constraint 15 against writes
// in the middle of a visit: every call of one visit returns the same
// delta, the window from the previous visit's start to this one's; what
// others write meanwhile shows in the next visit, once.
func TestStartSessionSameDeltaWithinVisit(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		ctx := t.Context()
		create := func(title string) {
			t.Helper()
			f.clock.Advance(time.Second)
			if _, err := f.s.CreateNote(ctx, f.person, CreateNoteInput{Project: "acme/web", Body: "# " + title}); err != nil {
				t.Fatal(err)
			}
		}
		titles := func(d Delta) []string {
			var out []string
			for _, c := range d.Changes {
				out = append(out, c.Title)
			}
			return out
		}
		visitor := f.agent
		start := func(session string) StartSessionOutput {
			t.Helper()
			f.clock.Advance(time.Second)
			visitor.Session = session
			out, err := f.s.StartSession(ctx, visitor, StartSessionInput{Project: "acme/web"})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		start("s1")
		create("Before")
		second := start("s2")
		if got := titles(second.Delta); !slices.Equal(got, []string{"Before"}) {
			t.Fatalf("second visit sees %v; want [Before]", got)
		}
		create("During")
		if again := start("s2"); !cmp.Equal(again.Delta, second.Delta) {
			t.Errorf("the same visit after a change = %v; want its first call's delta %v", titles(again.Delta), titles(second.Delta))
		}
		if got := titles(start("s3").Delta); !slices.Equal(got, []string{"During"}) {
			t.Errorf("the next visit sees %v; want [During] only", got)
		}
	})
}
