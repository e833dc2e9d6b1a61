package kb

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

const editBody = "Intro line.\n\n## Setup\n\nInstall go.\n\n### Details\n\nUse 1.26.\n\n## Deploy\n\nRun make deploy.\nRun make deploy.\n"

func TestApplyEdit(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   EditNoteInput
		want string
		err  string
	}{
		{"append", EditNoteInput{Mode: "append", Content: "Outro."}, strings.TrimRight(editBody, "\n") + "\n\nOutro.\n", ""},
		{"prepend", EditNoteInput{Mode: "prepend", Content: "Summary.\n"}, "Summary.\n\n" + editBody, ""},
		{"replace", EditNoteInput{Mode: "replace", Content: "New body."}, "New body.", ""},
		{"replace drops own title", EditNoteInput{Mode: "replace", Content: "# Guide\n\nNew body."}, "New body.", ""},
		{"replace refuses other title", EditNoteInput{Mode: "replace", Content: "# Other\n\nx"}, "", "rename_note"},
		{"replaceSection by words", EditNoteInput{Mode: "replaceSection", Section: "setup", Content: "Install go and make."},
			"Intro line.\n\n## Setup\n\nInstall go and make.\n\n## Deploy\n\nRun make deploy.\nRun make deploy.\n", ""},
		{"replaceSection nested level", EditNoteInput{Mode: "replaceSection", Section: "### Details", Content: "Use 1.27."},
			"Intro line.\n\n## Setup\n\nInstall go.\n\n### Details\n\nUse 1.27.\n\n## Deploy\n\nRun make deploy.\nRun make deploy.\n", ""},
		{"replaceSection last", EditNoteInput{Mode: "replaceSection", Section: "Deploy", Content: "## Deploy\n\nRun it once."},
			"Intro line.\n\n## Setup\n\nInstall go.\n\n### Details\n\nUse 1.26.\n\n## Deploy\n\nRun it once.\n", ""},
		{"replaceSection unknown", EditNoteInput{Mode: "replaceSection", Section: "Teardown", Content: "x"}, "", `"## Setup", "### Details", "## Deploy"`},
		{"findReplace", EditNoteInput{Mode: "findReplace", Find: "Install go.", Content: "Install Go 1.26."},
			strings.Replace(editBody, "Install go.", "Install Go 1.26.", 1), ""},
		{"findReplace delete", EditNoteInput{Mode: "findReplace", Find: "Intro line.\n\n", Content: ""},
			strings.TrimPrefix(editBody, "Intro line.\n\n"), ""},
		{"findReplace not unique", EditNoteInput{Mode: "findReplace", Find: "Run make deploy.", Content: "x"}, "", "occurs 2 times"},
		{"findReplace missing", EditNoteInput{Mode: "findReplace", Find: "nowhere", Content: "x"}, "", "does not occur"},
		{"append empty", EditNoteInput{Mode: "append", Content: " \n"}, "", "empty"},
		{"unknown mode", EditNoteInput{Mode: "insertAt", Content: "x"}, "", "unknown mode"},
		{"section without replaceSection", EditNoteInput{Mode: "append", Content: "x", Section: "Setup"}, "", "replaceSection only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyEdit("Guide", editBody, tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || ErrorCode(err) != CodeInvalidArgument {
					t.Fatalf("applyEdit = %q, %v; want an invalidArgument error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("applyEdit(%s) =\n%q\nwant\n%q", tc.in.Mode, got, tc.want)
			}
		})
	}
}

func editCases() []EditNoteInput {
	return []EditNoteInput{
		{Mode: ModeAppend, Content: "more"},
		{Mode: ModePrepend, Content: "first"},
		{Mode: ModeReplace, Content: "all new"},
		{Mode: ModeReplaceSection, Section: "Setup", Content: "new setup"},
		{Mode: ModeFindReplace, Find: "Install go.", Content: "Install Go."},
		{Mode: ModeFindReplace, Find: "Intro line.", Content: ""},
	}
}

func TestEditNote(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		for _, in := range editCases() {
			t.Run(in.Mode, func(t *testing.T) {
				note := f.create(t, "acme/web", "# Guide "+in.Mode+in.Content+"\n\n"+editBody)
				in.ID, in.VersionToken = note.ID, note.VersionToken
				out, err := f.s.EditNote(t.Context(), f.agent, in)
				if err != nil {
					t.Fatal(err)
				}
				n := f.get(t, note.ID)
				want, _ := applyEdit(n.Title, editBody, in)
				if !out.Changed || out.VersionToken == note.VersionToken || out.VersionToken != n.VersionToken || n.Body != want {
					t.Errorf("EditNote = %+v; note = %q (token %s); want body %q with the returned token", out, n.Body, n.VersionToken, want)
				}
				if n.Updated.Tool != "edit_note" {
					t.Errorf("updated by tool %q; want edit_note", n.Updated.Tool)
				}
			})
		}
	})
}

func TestEditNoteStaleTokenEveryMode(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		for _, in := range editCases() {
			t.Run(in.Mode+"/"+in.Find, func(t *testing.T) {
				note := f.create(t, "acme/web", "# Stale "+in.Mode+in.Find+"\n\n"+editBody)
				// Someone else edits first.
				other, err := f.s.EditNote(t.Context(), f.agent, EditNoteInput{ID: note.ID, VersionToken: note.VersionToken,
					Mode: ModeReplaceSection, Section: "Deploy", Content: "Run make deploy.\nRun make deploy.\nThen verify."})
				if err != nil {
					t.Fatal(err)
				}
				before := snapshot(t, f.s)
				in.ID, in.VersionToken = note.ID, note.VersionToken
				_, err = f.s.EditNote(t.Context(), f.agent, in)
				var ce *ConflictError
				if !errors.As(err, &ce) || ce.CurrentToken != other.VersionToken || ErrorCode(err) != CodeVersionConflict {
					t.Fatalf("EditNote(stale) = %v; want *ConflictError with current token %s", err, other.VersionToken)
				}
				if !strings.Contains(err.Error(), "get_note") {
					t.Errorf("conflict message %q does not say to re-read with get_note", err)
				}
				if snapshot(t, f.s) != before {
					t.Error("a conflicting edit changed the database")
				}
			})
		}
	})
}

func TestEditNoteErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		note := f.create(t, "acme/web", "# Guide\n\n"+editBody)
		for _, tc := range []struct {
			name string
			in   EditNoteInput
			code string
		}{
			{"unknown note", EditNoteInput{ID: "n999", VersionToken: "v1.x", Mode: "append", Content: "x"}, CodeNotFound},
			{"not an id", EditNoteInput{ID: "Guide", VersionToken: "v1.x", Mode: "append", Content: "x"}, CodeInvalidArgument},
			{"no token", EditNoteInput{ID: note.ID, Mode: "append", Content: "x"}, CodeInvalidArgument},
			{"non-unique snippet", EditNoteInput{ID: note.ID, VersionToken: note.VersionToken, Mode: "findReplace", Find: "deploy", Content: "x"}, CodeInvalidArgument},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := snapshot(t, f.s)
				_, err := f.s.EditNote(t.Context(), f.agent, tc.in)
				wantCode(t, err, tc.code)
				if snapshot(t, f.s) != before {
					t.Error("a failed edit changed the database (edits never create notes)")
				}
			})
		}
		// A no-op edit keeps the version.
		out, err := f.s.EditNote(t.Context(), f.agent, EditNoteInput{ID: note.ID, VersionToken: note.VersionToken,
			Mode: "findReplace", Find: "Install go.", Content: "Install go."})
		if err != nil || out.Changed || out.VersionToken != note.VersionToken {
			t.Errorf("no-op edit = %+v, %v; want unchanged with the same token", out, err)
		}
	})
}

func TestEditNoteConcurrentSameToken(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		note := f.create(t, "acme/web", "# Race\n\nstart")
		// Half the writers go through another store on the same database
		// (another process, another gateway replica): the database decides.
		stores := []*Store{f.s, be.reopen(t, f.target, Options{})}
		const n = 20
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				_, errs[i] = stores[i%2].EditNote(t.Context(), f.agent, EditNoteInput{ID: note.ID, VersionToken: note.VersionToken,
					Mode: ModeAppend, Content: "writer " + string(rune('a'+i))})
			})
		}
		wg.Wait()
		wins, conflicts := 0, 0
		for _, err := range errs {
			var ce *ConflictError
			switch {
			case err == nil:
				wins++
			case errors.As(err, &ce):
				conflicts++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		if wins != 1 || conflicts != n-1 {
			t.Fatalf("%d wins, %d conflicts; want exactly 1 win and %d conflicts", wins, conflicts, n-1)
		}
		got := f.get(t, note.ID)
		if strings.Count(got.Body, "writer") != 1 || !strings.HasPrefix(got.VersionToken, "v2.") {
			t.Errorf("after the race body = %q, token %s; want one append at version 2", got.Body, got.VersionToken)
		}
	})
}
