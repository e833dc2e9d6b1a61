package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
)

// teamRound is one task a team member handed over.
type teamRound struct {
	task, title, ref string
	status           blackboard.Status
	conclusion       string
}

// runTeam is a team member's run (Delegation.Team): it claims the
// team's next open task, works it as one round of its loop — the same
// conversation, so what it learnt stays — and lands that round's
// handoff as the task's note (at the stem its claim named), then claims
// the next, until none is left. It returns the last round's outcome, the
// rounds handed over, and the error that stopped it (a round abandoned
// by a gate leaves its task claimed for the caller to release).
func (r *SubRunner) runTeam(ctx context.Context, loop *Loop, agent *Agent, m *member, d Delegation, lead string, history []llm.Message,
	steps int, land func(string, blackboard.NewNote) (blackboard.NoteMeta, error), usage *UsageEvent) (*Outcome, []teamRound, error) {
	last := &Outcome{}
	var rounds []teamRound
	total := 0
	for n := 1; ; n++ {
		claim, ok, err := m.nextTask(ctx)
		if err != nil {
			return last, rounds, fmt.Errorf("claim the next task of team %s: %w", d.Team, err)
		}
		if !ok {
			last.Steps = total
			return last, rounds, nil
		}
		input := teamTaskInput(lead, claim, d.Team, n)
		lead = "" // the standing task and the context pack come once
		out, runErr := loop.Run(ctx, agent, history, llm.Message{Role: llm.RoleUser, Content: input})
		usage.Add(out.Usage)
		total += out.Steps
		out.Steps = total
		last = out
		if runErr != nil && ctx.Err() != nil {
			return last, rounds, runErr
		}
		note := handoffFromOutcome(agent.Name, claim.Task.Title, out, runErr, steps)
		stem := strings.TrimPrefix(claim.Task.Ref, blackboard.TaskRefPrefix)
		ref, _ := blackboard.ParseNoteRef(claim.Holder.Ref)
		note.Handoff.Key = "task:" + stem
		note.Handoff.Session = m.session
		note.Stem = ref.Stem
		meta, err := land(d.BoardID, note)
		if err != nil {
			return last, rounds, fmt.Errorf("write the handoff note of %s: %w", claim.Task.Ref, err)
		}
		m.handedOver()
		rounds = append(rounds, teamRound{task: claim.Task.Ref, title: claim.Task.Title, ref: meta.Ref, status: meta.Status, conclusion: meta.Conclusion})
		if runErr != nil {
			return last, rounds, runErr
		}
		history = append(history, out.Messages...)
	}
}

// teamNote is a team member's own note, when no open task is left (or a
// round failed it): which tasks it handed over, how each went. Each
// task's deliverable is in the task's note.
func teamNote(agent string, d Delegation, rounds []teamRound, runErr error) blackboard.NewNote {
	h := blackboard.Handoff{Agent: agent, Task: d.Task, Status: blackboard.StatusOK, Facts: []string{}}
	var b strings.Builder
	failed := 0
	fmt.Fprintf(&b, "Tasks of team %s handed over by %s:\n", d.Team, agent)
	for _, r := range rounds {
		if !r.status.Succeeded() {
			failed++
		}
		fmt.Fprintf(&b, "- %s (%s): %s, note %s — %s\n", r.task, r.title, r.status, r.ref, r.conclusion)
		h.Facts = append(h.Facts, fmt.Sprintf("%s → %s (%s)", r.task, r.ref, r.status))
	}
	if len(rounds) == 0 {
		b.WriteString("- none: no open task of the team was left to claim\n")
	}
	h.Conclusion = fmt.Sprintf("Team %s: handed over %d task(s), %d of them failed; no open task of the team was left to claim.", d.Team, len(rounds), failed)
	if failed > 0 {
		h.Status = blackboard.StatusPartial
	}
	if runErr != nil {
		h.Status = blackboard.StatusError
		h.Reason = runErr.Error()
		h.Conclusion = fmt.Sprintf("Team %s: stopped after %d task(s): %s", d.Team, len(rounds), firstSentence(runErr.Error()))
	}
	return blackboard.NewNote{Handoff: h, Body: b.String()}
}
