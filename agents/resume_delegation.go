package agents

import (
	"encoding/json"
	"strings"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
)

// RecoveredReason is the reason of a note recovered on resume.
const RecoveredReason = "the process ended while this delegation ran; this is the last thing the sub-agent wrote (recovered on resume)"

// RecoveryKey is the key a recovered note carries, so a recovery cut short
// after its write finds the note instead of writing a second one.
func RecoveryKey(sessionID, callID string) string { return "recovered:" + sessionID + "/" + callID }

// CancelledReason is the reason of the note of a background delegation
// the lead (or yagent board cancel) stopped.
const CancelledReason = "cancelled while it ran (cancel_delegation or yagent board cancel); this is the last thing the sub-agent wrote"

// RecoverDelegation writes the one note of a delegation that ended
// without landing its own — the process died in it (reason
// RecoveredReason), or it was cancelled in the background
// (CancelledReason): status degraded, body the best deliverable found in
// the sub-agent's messages (its last assistant text). It lands under
// d.Stem when the delegation's ref was named at its start. A note with
// the same key, or already at that ref (it landed before the process
// could record it), is returned instead (never twice); the caller records
// the recovery in the rollout. The note names the sub-agent session sub
// (when known), so a follow-up can continue it from its kept rollout.
func RecoverDelegation(board *blackboard.Store, boardID, key, reason string, d Delegation, sub string, subMessages []llm.Message, observed []string) (blackboard.NoteMeta, error) {
	if m, ok, err := board.FindByKey(boardID, d.Agent, key); err != nil || ok {
		return m, err
	}
	if d.Stem != "" {
		ref := blackboard.Ref{Agent: blackboard.NormalizeAgent(d.Agent), Stem: d.Stem}.String()
		// Any other answer writes: the write never replaces a note.
		if m, _, err := board.ReadHandoff(boardID, ref); err == nil {
			return m, nil
		}
	}
	body := ""
	for i := len(subMessages) - 1; i >= 0; i-- {
		m := subMessages[i]
		if m.Role == llm.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			body = m.Content
			break
		}
	}
	concl := "Interrupted before the sub-agent wrote anything."
	if body != "" {
		concl = "Interrupted; recovered from the sub-agent's last message: " + firstSentence(body)
	}
	return board.WriteNote(boardID, blackboard.NewNote{
		Handoff: blackboard.Handoff{Status: blackboard.StatusDegraded, Agent: d.Agent, Task: d.Task,
			Conclusion: concl, Reason: reason, Key: key, Session: sub},
		Body:              body,
		Stem:              d.Stem,
		ObservedArtifacts: observed,
	})
}

// ArtifactsOf returns the files the write tools of these messages
// produced, as far as the record shows: the paths of successful
// write_file and edit_file calls.
func ArtifactsOf(msgs []llm.Message) []string {
	ok := map[string]bool{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool && !strings.HasPrefix(m.Content, "error:") {
			ok[m.ToolCallID] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if (c.Name != "write_file" && c.Name != "edit_file") || !ok[c.ID] {
				continue
			}
			var a struct {
				Path string `json:"path"`
			}
			if json.Unmarshal([]byte(c.Arguments), &a) == nil && a.Path != "" && !seen[a.Path] {
				seen[a.Path] = true
				out = append(out, a.Path)
			}
		}
	}
	return out
}
