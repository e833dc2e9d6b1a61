package kb

import (
	"strings"
	"testing"
)

func TestGetNote(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		ctx := t.Context()
		if _, err := f.s.CreateProject(ctx, f.person, "acme/ops", ""); err != nil {
			t.Fatal(err)
		}
		web := f.create(t, "acme/web", "# Runbook\n\n## Start\n\nGo.\n\n## Stop\n\nHalt. See [[Pager]].")
		ops := f.create(t, "acme/ops", "# Runbook\n\nOps version.")
		only := f.create(t, "acme/ops", "# Pager duty")
		mem, err := f.s.RememberAboutUser(ctx, f.agent, RememberAboutUserInput{Category: "tools", Observation: "Uses vim."})
		if err != nil {
			t.Fatal(err)
		}

		plain, err := f.s.GetNote(ctx, f.reader, GetNoteInput{Ref: web.ID})
		if err != nil {
			t.Fatal(err)
		}
		if plain.Title != "Runbook" || plain.Project != "acme/web" || plain.VersionToken != web.VersionToken ||
			plain.Outline != nil || plain.Links != nil || plain.Created.Tool != "create_note" {
			t.Errorf("get_note (plain) = %+v; want the note without outline and links", plain)
		}
		detailed, err := f.s.GetNote(ctx, f.reader, GetNoteInput{Ref: web.ID, Detailed: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(detailed.Outline) != 2 || detailed.Outline[1].Text != "Stop" || len(detailed.Links) != 1 || !detailed.Links[0].Pending {
			t.Errorf("get_note (detailed) outline %+v links %+v", detailed.Outline, detailed.Links)
		}

		for _, tc := range []struct {
			in   GetNoteInput
			want string
			code string
			msg  string
		}{
			{in: GetNoteInput{Ref: "[[Runbook]]", Project: "acme/ops"}, want: ops.ID},
			{in: GetNoteInput{Ref: "runbook", Project: "acme/web"}, want: web.ID},
			{in: GetNoteInput{Ref: "[[Pager duty|the pager]]"}, want: only.ID},
			{in: GetNoteInput{Ref: "User profile"}, want: mem.NoteID},
			{in: GetNoteInput{Ref: "[[Runbook]]"}, code: CodeInvalidArgument, msg: "acme/ops: Runbook (" + ops.ID + "), acme/web: Runbook (" + web.ID + ")"},
			{in: GetNoteInput{Ref: "[[Nothing]]", Project: "acme/web"}, code: CodeNotFound, msg: "Nothing"},
			{in: GetNoteInput{Ref: "n999"}, code: CodeNotFound, msg: "n999"},
			{in: GetNoteInput{Ref: " "}, code: CodeInvalidArgument, msg: "ref is required"},
			{in: GetNoteInput{Ref: "x", Project: "nope"}, code: CodeNotFound, msg: "nope"},
		} {
			got, err := f.s.GetNote(ctx, f.reader, tc.in)
			if tc.code != "" {
				if ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("GetNote(%+v) = %v; want %s mentioning %q", tc.in, err, tc.code, tc.msg)
				}
				continue
			}
			if err != nil || got.ID != tc.want {
				t.Errorf("GetNote(%+v) = %s, %v; want %s", tc.in, got.ID, err, tc.want)
			}
		}
	})
}
