package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
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
