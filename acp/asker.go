package acp

import (
	"context"
	"fmt"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/ttyask"
)

// The options of an approval question, as the editor offers them.
const (
	optionAllow  sdk.PermissionOptionId = "allow"
	optionAlways sdk.PermissionOptionId = "always"
	optionDeny   sdk.PermissionOptionId = "deny"
)

// asker asks the person in the editor (session/request_permission) the
// question the TUI's modal and the plain prompt ask: the same action,
// the protected path it would change, the write's diff or the MCP tool's
// arguments, and "always" only when the question offers it.
type asker struct {
	s *session
}

var _ agents.Asker = asker{}

func (a asker) Ask(ctx context.Context, q agents.Question) (agents.Answer, error) {
	id := a.s.id()
	conn := a.s.srv.conn.Load()
	if id == "" || conn == nil {
		return agents.Deny, nil
	}
	// The question is about the running call (the editor shows it on that
	// tool call); one with none gets a tool call of its own.
	call := agents.RunningCall(ctx)
	if call == "" {
		call = "approval-" + strconv.FormatInt(a.s.srv.asked.Add(1), 10)
	}
	req := permissionRequest(id, call, q)
	resp, err := conn.RequestPermission(ctx, req)
	if err != nil {
		return agents.Deny, fmt.Errorf("ask the editor to approve %s: %w", q.Action, err)
	}
	return answer(resp, q.Prefix != ""), nil
}

// permissionRequest is q as a session/request_permission of session sid,
// shown as the tool call callID.
func permissionRequest(sid, callID string, q agents.Question) sdk.RequestPermissionRequest {
	k := sdk.ToolKindExecute
	switch {
	case q.Path != "":
		k = sdk.ToolKindEdit
	case q.Args != "":
		k = sdk.ToolKindOther
	}
	var content []sdk.ToolCallContent
	if q.Why != "" {
		content = append(content, text("protected path: "+q.Why)...)
	}
	switch {
	case q.Path != "" && q.Created:
		content = append(content, sdk.ToolDiffContent(q.Path, q.New))
	case q.Path != "":
		content = append(content, sdk.ToolDiffContent(q.Path, q.New, q.Old))
	default:
		content = append(content, text(ttyask.Preview(q))...)
	}
	options := []sdk.PermissionOption{{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: optionAllow}}
	if q.Prefix != "" {
		options = append(options, sdk.PermissionOption{Kind: sdk.PermissionOptionKindAllowAlways,
			Name: fmt.Sprintf("Always allow `%s …` this session", q.Prefix), OptionId: optionAlways})
	}
	options = append(options, sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Deny", OptionId: optionDeny})
	var locations []sdk.ToolCallLocation
	if q.Path != "" {
		locations = []sdk.ToolCallLocation{{Path: q.Path}}
	}
	return sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(sid),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(callID),
			Title:      sdk.Ptr(q.Action),
			Kind:       sdk.Ptr(k),
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			Content:    content,
			Locations:  locations,
		},
		Options: options,
	}
}

// answer is the editor's answer: an option picked, or no (cancelled, an
// option it was not offered: "always" only when always was).
func answer(resp sdk.RequestPermissionResponse, always bool) agents.Answer {
	sel := resp.Outcome.Selected
	if sel == nil {
		return agents.Deny
	}
	switch sel.OptionId {
	case optionAllow:
		return agents.Allow
	case optionAlways:
		if always {
			return agents.AllowPrefix
		}
	}
	return agents.Deny
}
