package mcp

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/toolspec"
)

//go:embed tooldesc/*.md
var toolDescFS embed.FS

func toolDescription(name string) string {
	b, err := toolDescFS.ReadFile("tooldesc/" + name + ".md")
	if err != nil {
		panic("mcp: no description for tool " + name) // TestBoardTools keeps them in step
	}
	return strings.TrimSpace(string(b))
}

// boardTools maps the MCP names of the board tools to the agents' own
// read-back tools they run (whose formatting they share).
var boardTools = []struct{ name, agentTool string }{
	{"board_list_notes", "list_notes"},
	{"board_read_note", "read_note"},
}

const maxListedBoards = 50

// addBoardTools adds the read-only board tools: board_list_boards, and
// board_list_notes and board_read_note, which run the agents' list_notes
// and read_note on the board named by the board argument. Every call sees
// only the boards the request's caller may read (boardAccess).
func (g *Gateway) addBoardTools(s *sdk.Server, caller callerFunc) {
	store := g.Board
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	s.AddTool(&sdk.Tool{
		Name: "board_list_boards", Description: toolDescription("board_list_boards"),
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), Annotations: readOnly,
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		acc, res, err := g.boardAccess(ctx, req, caller)
		if acc == nil {
			return res, err
		}
		return listBoards(ctx, store, acc)
	})
	byName := map[string]*agents.Tool{}
	for _, t := range agents.BoardTools(store, 0, nil) {
		byName[t.Name] = t
	}
	for _, bt := range boardTools {
		run := byName[bt.agentTool]
		s.AddTool(&sdk.Tool{
			Name: bt.name, Description: toolDescription(bt.name),
			InputSchema: withBoardArg(toolspec.MustLookup(bt.agentTool).Parameters), Annotations: readOnly,
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			acc, res, err := g.boardAccess(ctx, req, caller)
			if acc == nil {
				return res, err
			}
			return runBoardTool(ctx, store, acc, run, req.Params.Arguments)
		})
	}
}

// boardFilter reports whether the caller of one request may read a board.
type boardFilter func(ctx context.Context, board string) (bool, error)

// boardAccess authenticates one board tool call and returns what its
// caller may read; without a filter it returns the result or error to
// answer with instead.
//
// Boards are the local person's (Gateway.Owner): another principal's token
// reads none. A board belongs to the project recorded with it
// (blackboard's WithProject, from kb.project): a token limited to projects
// reads a board only when it reaches that project, so a board without a
// project, or of another project, is refused. A token of the person that
// reaches every project reads every board.
func (g *Gateway) boardAccess(ctx context.Context, req *sdk.CallToolRequest, caller callerFunc) (boardFilter, *sdk.CallToolResult, error) {
	gr, err := caller(ctx, req)
	if errors.Is(err, kb.ErrUnauthenticated) {
		return nil, errorResult(kb.CodeForbidden, fmt.Sprintf("%v: the token was revoked or is unknown; ask the person for a new one (yagent kb token create)", err)), nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("board tools: %w", err)
	}
	c := gr.caller
	reached := map[string]bool{} // by project handle, for this call
	return func(ctx context.Context, board string) (bool, error) {
		if g.Owner == 0 || c.PrincipalID != g.Owner {
			return false, nil
		}
		if len(c.ProjectIDs) == 0 {
			return true, nil
		}
		h, err := g.Board.BoardProject(board)
		if err != nil || h == "" {
			return false, err
		}
		ok, seen := reached[h]
		if !seen {
			if ok, err = g.Store.ReachesProject(ctx, c, h); err != nil {
				return false, err
			}
			reached[h] = ok
		}
		return ok, nil
	}, nil, nil
}

// withBoardArg adds the required board argument to a board tool's schema.
func withBoardArg(schema json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic("mcp: board tool schema: " + err.Error())
	}
	props, _ := m["properties"].(map[string]any)
	props["board"] = map[string]any{"type": "string", "description": "board id, verbatim from board_list_boards"}
	req, _ := m["required"].([]any)
	m["required"] = append([]any{"board"}, req...)
	b, err := json.Marshal(m)
	if err != nil {
		panic("mcp: board tool schema: " + err.Error())
	}
	return b
}

func runBoardTool(ctx context.Context, store *blackboard.Store, visible boardFilter, t *agents.Tool, raw json.RawMessage) (*sdk.CallToolResult, error) {
	var args map[string]json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return errorResult(kb.CodeInvalidArgument, fmt.Sprintf("arguments must be a JSON object (%v)", err)), nil
		}
	}
	var board string
	if b, ok := args["board"]; !ok || json.Unmarshal(b, &board) != nil || board == "" {
		return errorResult(kb.CodeInvalidArgument, "board is required: pass a board id from board_list_boards"), nil
	}
	delete(args, "board")
	if err := blackboard.CheckBoardID(board); err != nil {
		return errorResult(kb.CodeInvalidArgument, err.Error()), nil
	}
	ok := store.BoardExists(board)
	if ok {
		var err error
		if ok, err = visible(ctx, board); err != nil {
			return nil, fmt.Errorf("%s on board %s: %w", t.Name, board, err)
		}
	}
	if !ok { // unknown and not yours get the same answer
		return errorResult(kb.CodeNotFound, fmt.Sprintf("no board %q among those this token may read; board_list_boards lists them", board)), nil
	}
	rest, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	if _, err := toolspec.MustLookup(t.Name).Validate(rest); err != nil {
		return errorResult(kb.CodeInvalidArgument, err.Error()), nil
	}
	res, err := t.Run(blackboard.WithBoardID(ctx, board), &agents.Call{Name: t.Name, Args: rest})
	if err != nil {
		return nil, fmt.Errorf("%s on board %s: %w", t.Name, board, err)
	}
	if res.IsError {
		return errorResult(kb.CodeInvalidArgument, strings.TrimPrefix(res.Content, "error: ")), nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Content}}}, nil
}

func listBoards(ctx context.Context, store *blackboard.Store, visible boardFilter) (*sdk.CallToolResult, error) {
	all, err := store.Boards()
	if errors.Is(err, blackboard.ErrDisabled) {
		return errorResult(kb.CodeForbidden, "the blackboard is disabled on this machine (YAGENT_BLACKBOARD=0)"), nil
	}
	if err != nil {
		return nil, fmt.Errorf("list boards: %w", err)
	}
	var boards []blackboard.BoardInfo
	for _, bi := range all {
		ok, err := visible(ctx, bi.ID)
		if err != nil {
			return nil, fmt.Errorf("list boards: %w", err)
		}
		if ok {
			boards = append(boards, bi)
		}
	}
	var b strings.Builder
	if len(boards) == 0 {
		b.WriteString("(no boards)\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for i, bi := range boards {
		if i == maxListedBoards {
			fmt.Fprintf(tw, "… %d older boards not listed\n", len(boards)-i)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\n", bi.ID, agents.Count(bi.Notes, "note", "notes")+", newest "+bi.Newest.UTC().Format(time.DateTime))
	}
	tw.Flush()
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, nil
}
