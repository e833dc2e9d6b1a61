package mcp

import (
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/kb"
)

// TestBoardTools pins the read-only board tools over MCP: boards are
// listed, a board's notes are listed with the agents' own line format
// (agents.FormatNoteLine, never the body), a note reads with its handoff
// and paged body, and a bad, escaping or unknown board is an error the
// model can fix. Read tokens get them too.
func TestBoardTools(t *testing.T) {
	f := newFixture(t)
	created := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	_, err := f.board.WriteNote("sess-1", blackboard.NewNote{
		Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Task: "map the packages",
			Conclusion: "three packages", Facts: []string{"kb is pure Go"}, Created: created},
		Body: "SECRET-BODY " + strings.Repeat("x", 300),
	})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := f.board.ListNotes("sess-1", blackboard.ListOptions{})
	if err != nil || len(listed.Notes) != 1 {
		t.Fatalf("ListNotes = %v, %v", listed, err)
	}
	meta := listed.Notes[0] // as a listing reads it back
	cs := f.session(t, f.read)

	boards := text(call(t, cs, "board_list_boards", `{}`))
	if !strings.Contains(boards, "sess-1") || !strings.Contains(boards, "1 note") {
		t.Errorf("board_list_boards = %q", boards)
	}
	list := call(t, cs, "board_list_notes", `{"board":"sess-1"}`)
	if list.IsError || !strings.Contains(text(list), agents.FormatNoteLine(meta)) {
		t.Errorf("board_list_notes = %q; want the line %q", text(list), agents.FormatNoteLine(meta))
	}
	if strings.Contains(text(list), "SECRET-BODY") {
		t.Error("board_list_notes shows the body")
	}
	read := call(t, cs, "board_read_note", `{"board":"sess-1","ref":"`+meta.Ref+`","limit":200}`)
	for _, want := range []string{"ref: " + meta.Ref, "three packages", "kb is pure Go", "SECRET-BODY", "[more: read_note with offset=200]"} {
		if !strings.Contains(text(read), want) {
			t.Errorf("board_read_note lacks %q:\n%s", want, text(read))
		}
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"board_list_notes", `{}`, "board is required"},
		{"board_list_notes", `{"board":"../etc"}`, "invalidArgument"},
		{"board_list_notes", `{"board":"nope"}`, `no board "nope"`},
		{"board_read_note", `{"board":"sess-1","ref":"explorer/missing"}`, "invalidArgument"},
		{"board_read_note", `{"board":"sess-1"}`, "ref"},
		{"board_list_notes", `{"board":"sess-1","limit":"ten"}`, "invalidArgument"},
	} {
		res := call(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s(%s) = %q (error %v); want an error containing %q", tc.tool, tc.args, text(res), res.IsError, tc.want)
		}
	}
}

// TestBoardToolsAbsentWithoutBoard pins that a gateway without a board
// store lists the intent tools only.
func TestBoardToolsAbsentWithoutBoard(t *testing.T) {
	f := newFixture(t)
	f.gw.Board = nil
	for _, n := range toolNamesOf(t, t.Context(), f.session(t, f.write)) {
		if strings.HasPrefix(n, "board_") {
			t.Errorf("board tool %s listed without a board store", n)
		}
	}
}

// TestBoardToolsProjectScope pins the board tools' scope: a board belongs
// to the project recorded with it (kb.project of the writing session); a
// token limited to projects lists and reads only their boards (a renamed
// project's boards included) and gets notFound for the others, those
// without a project included; a token of the owner that reaches every
// project sees every board; another principal's token sees none, even in
// a project it is a member of.
func TestBoardToolsProjectScope(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	if _, err := f.store.CreateProject(ctx, f.person, "acme/ops", ""); err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{}
	for board, project := range map[string]string{"web-1": "acme/web", "ops-1": "acme/ops", "none-1": "", "gone-1": "old/gone"} {
		m, err := f.board.WithProject(project).WriteNote(board, blackboard.NewNote{
			Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Task: "t", Conclusion: "on " + board},
			Body:    "BODY of " + board,
		})
		if err != nil {
			t.Fatal(err)
		}
		refs[board] = m.Ref
	}
	token := func(person kb.Caller, name string, projects ...string) string {
		t.Helper()
		tok, _, err := f.store.CreateToken(ctx, person, kb.TokenSpec{Name: name, Projects: projects})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	bob, err := f.store.CreatePrincipal(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.AddMember(ctx, f.person, "acme/web", bob.ID); err != nil {
		t.Fatal(err)
	}
	all := []string{"web-1", "ops-1", "none-1", "gone-1"}
	cases := []struct {
		name, token string
		sees        []string
	}{
		{"web token", token(f.person, "web", "acme/web"), []string{"web-1"}},
		{"ops token", token(f.person, "ops", "acme/ops"), []string{"ops-1"}},
		{"both projects", token(f.person, "both", "acme/web", "acme/ops"), []string{"web-1", "ops-1"}},
		{"owner, every project", f.read, all},
		{"another principal", token(kb.PersonCaller(bob.ID, "test"), "bob"), nil},
		{"another principal in the project", token(kb.PersonCaller(bob.ID, "test"), "bob-web", "acme/web"), nil},
	}
	check := func(t *testing.T, name, tok string, sees []string) {
		cs := f.session(t, tok)
		listed := text(call(t, cs, "board_list_boards", `{}`))
		for _, b := range all {
			want := slices.Contains(sees, b)
			if got := strings.Contains(listed, b); got != want {
				t.Errorf("%s: board_list_boards shows %s: %v, want %v\n%s", name, b, got, want, listed)
			}
			list := call(t, cs, "board_list_notes", `{"board":"`+b+`"}`)
			read := call(t, cs, "board_read_note", `{"board":"`+b+`","ref":"`+refs[b]+`"}`)
			if want {
				if list.IsError || read.IsError || !strings.Contains(text(read), "BODY of "+b) {
					t.Errorf("%s: board %s refused: %s / %s", name, b, text(list), text(read))
				}
				continue
			}
			for _, res := range []*sdk.CallToolResult{list, read} {
				if !res.IsError || !strings.HasPrefix(text(res), "notFound: no board") || strings.Contains(text(res), "BODY") {
					t.Errorf("%s: board %s of another project answered %q; want notFound", name, b, text(res))
				}
			}
		}
	}
	for _, tc := range cases {
		check(t, tc.name, tc.token, tc.sees)
	}
	// A renamed project keeps its boards: the recorded handle is a former one.
	if _, err := f.store.RenameProject(ctx, f.person, kb.RenameProjectInput{Project: "acme/web", NewHandle: "acme/site"}); err != nil {
		t.Fatal(err)
	}
	check(t, "web token after the rename", cases[0].token, []string{"web-1"})
	// Without an owner no token reads any board.
	f.gw.Owner = 0
	check(t, "no owner", f.read, nil)
}
