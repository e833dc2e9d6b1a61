package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/llm"
)

// ExitArgs are agent_exit's arguments (schemas.json has their
// descriptions).
type ExitArgs struct {
	Status     string   `json:"status"`
	Reason     string   `json:"reason,omitempty"`
	Conclusion string   `json:"conclusion"`
	Facts      []string `json:"facts,omitempty"`
	Artifacts  []string `json:"artifacts,omitempty"`
}

// deliverableText is the full deliverable of a finished sub-agent run: on
// agent_exit, the last assistant message with text at or before the exit
// call (not the exit's reason); otherwise the final answer.
func deliverableText(out *Outcome) string {
	if out.Stop == nil {
		return out.Final
	}
	at := len(out.Messages) - 1
	for i := len(out.Messages) - 1; i >= 0; i-- {
		if hasCall(out.Messages[i], out.Stop.ID) {
			at = i
			break
		}
	}
	for i := at; i >= 0; i-- {
		m := out.Messages[i]
		if m.Role == llm.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			return m.Content
		}
	}
	return ""
}

func hasCall(m llm.Message, id string) bool {
	for _, c := range m.ToolCalls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// handoffFromOutcome builds the note of a finished delegation. It is called
// only for delegations that finished or failed — never for abandoned ones.
func handoffFromOutcome(agent, task string, out *Outcome, runErr error, maxSteps int) blackboard.NewNote {
	n := blackboard.NewNote{
		Handoff:           blackboard.Handoff{Agent: agent, Task: task},
		Body:              deliverableText(out),
		ObservedArtifacts: out.Artifacts,
	}
	h := &n.Handoff
	if u := out.Usage; u.Requests > 0 {
		// What its own model calls used and cost, for board show and the
		// web view (its sub-delegations have notes of their own).
		h.Usage = &blackboard.NoteUsage{Requests: u.Requests, PromptTokens: u.PromptTokens, CachedTokens: u.CachedTokens,
			CompletionTokens: u.CompletionTokens, CostUSD: u.CostUSD}
	}
	switch {
	case errors.Is(runErr, budget.ErrExceeded):
		// Not the task's failure: the run's money or tokens ran out
		// before this delegation could start or finish a model call.
		h.Status = blackboard.StatusDegraded
		h.Reason = runErr.Error()
		h.Conclusion = "Not finished: " + firstSentence(budgetReason(runErr))
		if n.Body == "" {
			n.Body = out.Final
		}
	case runErr != nil:
		h.Status = blackboard.StatusError
		h.Reason = runErr.Error()
		h.Conclusion = "The delegation failed: " + firstSentence(runErr.Error())
		if n.Body == "" {
			n.Body = out.Final
		}
	case out.Reason == ReasonExit:
		var a ExitArgs
		_ = json.Unmarshal(out.Stop.Args, &a) // validated against the schema already
		h.Status = blackboard.Status(a.Status)
		h.Reason, h.Conclusion, h.Facts, h.Artifacts = a.Reason, a.Conclusion, a.Facts, a.Artifacts
	case out.Reason == ReasonLength:
		h.Status = blackboard.StatusPartial
		h.Reason = "the answer was cut at the model's output limit; this is what it wrote before the cut"
		h.Conclusion = firstSentence(out.Final)
	case out.Reason == ReasonMaxSteps:
		h.Status = blackboard.StatusPartial
		h.Reason = fmt.Sprintf("the step budget of %d model calls was reached; this is what was done by then", maxSteps)
		h.Conclusion = firstSentence(out.Final)
	default:
		h.Status = blackboard.StatusOK
		h.Conclusion = firstSentence(out.Final)
	}
	if !h.Status.Valid() {
		h.Status = blackboard.StatusPartial
	}
	return n
}

// budgetReason is the budget's own message within runErr (the loop
// prefixes the agent and the call).
func budgetReason(runErr error) string {
	var ex *budget.Exceeded
	if errors.As(runErr, &ex) {
		return ex.Error()
	}
	return runErr.Error()
}

// firstSentence returns the first line of s, cut to 300 runes.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#*- "))
		if line != "" {
			s = line
			break
		}
	}
	if utf8.RuneCountInString(s) > 300 {
		s = string([]rune(s)[:299]) + "…"
	}
	return s
}
