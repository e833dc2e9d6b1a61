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

// TestGetNotePages: a long body comes in pages of characters (default
// 12000, at most 40000), bodyChars and nextOffset saying where the page
// stands, the pages together the whole body (multi-byte characters are
// never split); a short body has none of the page fields; an offset past
// the end or negative, and a negative limit, are refused naming them.
// ReadNote (yagent kb show) returns the whole body. Issue 31 item 7: a
// 160 KB note in one result was refused by Claude Code.
func TestGetNotePages(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		ctx := t.Context()
		body := strings.Repeat("é line of the long note\n", 7000) // 168000 characters
		long := f.create(t, "acme/web", "# Long\n\n"+body)
		short := f.create(t, "acme/web", "# Short\n\nA few words.")

		whole, err := f.s.ReadNote(ctx, f.reader, GetNoteInput{Ref: long.ID})
		if err != nil {
			t.Fatal(err)
		}
		total := len([]rune(whole.Body))
		if total < 160000 || whole.BodyChars != 0 || whole.NextOffset != 0 {
			t.Fatalf("ReadNote: %d characters, bodyChars %d, nextOffset %d; want the whole body, no page fields", total, whole.BodyChars, whole.NextOffset)
		}
		var got strings.Builder
		offset, pages := 0, 0
		for {
			p, err := f.s.GetNote(ctx, f.reader, GetNoteInput{Ref: long.ID, Offset: offset, Limit: 50000})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if n := len([]rune(p.Body)); n > 40000 || p.BodyChars != total || p.BodyOffset != offset || p.VersionToken != long.VersionToken {
				t.Fatalf("page at %d: %d characters, bodyChars %d, bodyOffset %d; want at most 40000 of %d", offset, n, p.BodyChars, p.BodyOffset, total)
			}
			got.WriteString(p.Body)
			if p.NextOffset == 0 {
				break
			}
			offset = p.NextOffset
		}
		if got.String() != whole.Body || pages != 5 {
			t.Errorf("%d pages joined to %d characters; want 5 pages, the whole body", pages, len([]rune(got.String())))
		}
		first, err := f.s.GetNote(ctx, f.reader, GetNoteInput{Ref: long.ID})
		if err != nil {
			t.Fatal(err)
		}
		if n := len([]rune(first.Body)); n != 12000 || first.NextOffset != 12000 {
			t.Errorf("default page: %d characters, nextOffset %d; want 12000, 12000", n, first.NextOffset)
		}
		s, err := f.s.GetNote(ctx, f.reader, GetNoteInput{Ref: short.ID})
		if err != nil {
			t.Fatal(err)
		}
		if s.Body != "A few words." || s.BodyChars != 0 || s.NextOffset != 0 {
			t.Errorf("short note: %+v; want the whole body, no page fields", s)
		}
		for _, tc := range []struct {
			in  GetNoteInput
			msg string
		}{
			{GetNoteInput{Ref: short.ID, Offset: 13}, "offset 13 is past the end of " + short.ID + "'s body (12 characters)"},
			{GetNoteInput{Ref: short.ID, Offset: -1}, "offset -1 is negative"},
			{GetNoteInput{Ref: short.ID, Limit: -5}, "limit -5 is negative"},
		} {
			if _, err := f.s.GetNote(ctx, f.reader, tc.in); ErrorCode(err) != CodeInvalidArgument || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("GetNote(%+v) = %v; want invalid argument %q", tc.in, err, tc.msg)
			}
		}
	})
}
