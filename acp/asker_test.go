package acp

import (
	"encoding/json"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/agents"
)

// TestPermissionRequest: an approval question is the permission request
// the TUI's modal and the plain prompt ask: the action as its title, the
// protected path and the write's diff or the tool's arguments as its
// content, "always" offered only when the question offers it.
func TestPermissionRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    agents.Question
		want string
	}{
		{"a command, always offered", agents.Question{Action: "run `go test ./...` in /ws", Prefix: "go test"},
			`{"sessionId":"s","toolCall":{"toolCallId":"c","title":"run ` + "`go test ./...`" + ` in /ws","kind":"execute","status":"pending"},
			"options":[{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"allow_always","name":"Always allow ` + "`go test …`" + ` this session","optionId":"always"},{"kind":"reject_once","name":"Deny","optionId":"deny"}]}`},
		{"a write to a protected path shows why and the diff", agents.Question{Action: "write_file .envrc", Why: "direnv runs it", Path: ".envrc", Old: "a\n", New: "b\n"},
			`{"sessionId":"s","toolCall":{"toolCallId":"c","title":"write_file .envrc","kind":"edit","status":"pending",
			"content":[{"type":"content","content":{"type":"text","text":"protected path: direnv runs it"}},{"type":"diff","path":".envrc","oldText":"a\n","newText":"b\n"}],
			"locations":[{"path":".envrc"}]},
			"options":[{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"reject_once","name":"Deny","optionId":"deny"}]}`},
		{"a new file has no old text", agents.Question{Action: "write_file new.txt", Path: "new.txt", New: "hi\n", Created: true},
			`{"sessionId":"s","toolCall":{"toolCallId":"c","title":"write_file new.txt","kind":"edit","status":"pending",
			"content":[{"type":"diff","path":"new.txt","newText":"hi\n"}],"locations":[{"path":"new.txt"}]},
			"options":[{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"reject_once","name":"Deny","optionId":"deny"}]}`},
		{"an MCP tool shows its arguments", agents.Question{Action: "call mcp_fs__write", Args: `{"path": "x"}`, Prefix: "mcp_fs__write"},
			`{"sessionId":"s","toolCall":{"toolCallId":"c","title":"call mcp_fs__write","kind":"other","status":"pending",
			"content":[{"type":"content","content":{"type":"text","text":"{\"path\": \"x\"}"}}]},
			"options":[{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"allow_always","name":"Always allow ` + "`mcp_fs__write …`" + ` this session","optionId":"always"},{"kind":"reject_once","name":"Deny","optionId":"deny"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wire(t, permissionRequest("s", "c", tc.q))
			if diff := cmp.Diff(wire(t, json.RawMessage(tc.want)), got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPermissionAnswer: the editor's answer as the person's: "always"
// only where it was offered; cancelled or anything else is no.
func TestPermissionAnswer(t *testing.T) {
	selected := func(id sdk.PermissionOptionId) sdk.RequestPermissionResponse {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(id)}
	}
	for _, tc := range []struct {
		resp   sdk.RequestPermissionResponse
		always bool
		want   agents.Answer
	}{
		{selected(optionAllow), false, agents.Allow},
		{selected(optionAlways), true, agents.AllowPrefix},
		{selected(optionAlways), false, agents.Deny},
		{selected(optionDeny), true, agents.Deny},
		{selected("something-else"), true, agents.Deny},
		{sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, true, agents.Deny},
	} {
		if got := answer(tc.resp, tc.always); got != tc.want {
			t.Errorf("answer(%+v, always offered %v) = %v; want %v", tc.resp.Outcome, tc.always, got, tc.want)
		}
	}
}
