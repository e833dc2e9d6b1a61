package kb

import (
	"slices"
	"strings"
	"testing"
)

func TestCreateNote(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		out, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{
			Project: "acme/web", Body: "\n# Deploy guide\n\nSteps.", Path: "/guides//ops/ ", Type: "howto",
			Tags: []string{"#Ops", "deploy", "ops", "Release Notes"},
		})
		if ErrorCode(err) != CodeInvalidArgument {
			t.Fatalf("path with an empty segment: %v; want invalidArgument", err)
		}
		out, err = f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{
			Project: "acme/web", Body: "\n# Deploy guide\n\nSteps.", Path: "/guides/ops/", Type: "howto",
			Tags: []string{"#Ops", "deploy", "ops", "Release Notes"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if out.Title != "Deploy guide" || out.Path != "guides/ops" || out.Project != "acme/web" || out.VersionToken == "" {
			t.Errorf("CreateNote = %+v", out)
		}
		n := f.get(t, out.ID)
		if n.Body != "Steps." || n.Class != ClassUserDoc || n.Type != "howto" {
			t.Errorf("stored note = %+v", n)
		}
		if want := []string{"deploy", "ops", "release-notes"}; !slices.Equal(n.Tags, want) {
			t.Errorf("tags = %v; want %v", n.Tags, want)
		}
		if n.VersionToken != out.VersionToken {
			t.Errorf("get_note versionToken %q != create_note's %q", n.VersionToken, out.VersionToken)
		}

		for _, tc := range []struct {
			name string
			in   CreateNoteInput
			code string
			msg  string
		}{
			{"no title", CreateNoteInput{Project: "acme/web", Body: "just text"}, CodeInvalidArgument, "# Title"},
			{"duplicate title in the folder", CreateNoteInput{Project: "acme/web", Body: "# deploy  GUIDE", Path: "guides/ops"}, CodeConflict,
				`already exists in folder guides/ops (` + out.ID + `)`},
			{"unknown project", CreateNoteInput{Project: "acme/nope", Body: "# X"}, CodeNotFound, "acme/nope"},
			{"no project", CreateNoteInput{Body: "# X"}, CodeInvalidArgument, "get_my_projects"},
			{"bracket title", CreateNoteInput{Project: "acme/web", Body: "# A [b]"}, CodeInvalidArgument, "'['"},
			{"link both targets", CreateNoteInput{Project: "acme/web", Body: "# L", Links: []LinkSpec{{To: out.ID, ToTitle: "x"}}}, CodeInvalidArgument, "not both"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := snapshot(t, f.s)
				_, err := f.s.CreateNote(t.Context(), f.agent, tc.in)
				wantCode(t, err, tc.code)
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("error %q does not mention %q", err, tc.msg)
				}
				if snapshot(t, f.s) != before {
					t.Error("a failed create_note changed the database")
				}
			})
		}
	})
}

func TestCreateNoteWithLinks(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		target := f.create(t, "acme/web", "# Runbook")
		out, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme/web", Body: "# Deploy",
			Links: []LinkSpec{{Type: "Depends On", To: target.ID}, {ToTitle: "Rollback plan"}}})
		if err != nil {
			t.Fatal(err)
		}
		want := []LinkResult{
			{Type: "depends-on", To: target.ID, ToTitle: "Runbook", Created: true},
			{Type: "related", ToTitle: "Rollback plan", Pending: true, Created: true},
		}
		if !slices.Equal(out.Links, want) {
			t.Errorf("links = %+v; want %+v", out.Links, want)
		}
	})
}

func TestCreateNotes(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		f.create(t, "acme/web", "# Taken")
		out, err := f.s.CreateNotes(t.Context(), f.agent, CreateNotesInput{Project: "acme/web", Notes: []NoteDraft{
			{Body: "# First\n\nsee [[Third]]"},
			{Body: "no heading"},
			{Body: "# Taken"},
			{Body: "# Third", Links: []LinkSpec{{ToTitle: "First", Type: "follows"}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		var status []string
		for _, r := range out.Results {
			status = append(status, r.Status)
		}
		if got := strings.Join(status, " "); got != "ok error error ok" || out.Created != 2 || out.Failed != 2 {
			t.Fatalf("statuses = %s (created %d, failed %d); want ok error error ok", got, out.Created, out.Failed)
		}
		if !strings.Contains(out.Results[2].Error, "already exists") || out.Results[2].Index != 2 {
			t.Errorf("result 2 = %+v; want an 'already exists' error", out.Results[2])
		}
		first := f.get(t, out.Results[0].ID)
		if len(first.Links) != 2 || first.Links[0].NoteID != out.Results[3].ID || first.Links[1].Direction != "in" {
			t.Errorf("First's links = %+v; want out to Third (forward ref resolved in the batch) and in from Third", first.Links)
		}
		if _, err := f.s.CreateNotes(t.Context(), f.agent, CreateNotesInput{Project: "acme/web"}); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("empty batch: %v; want invalidArgument", err)
		}
	})
}
