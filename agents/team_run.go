package agents

import (
	"context"
	"fmt"
	"strings"
	"time"

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
// by a gate leaves its task claimed for the caller to release). With
// d.Rounds each round runs there instead (remoteRound).
func (r *SubRunner) runTeam(ctx context.Context, loop *Loop, agent *Agent, m *member, d Delegation, prep *Prepared, lead string, history []llm.Message,
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
		if d.Rounds != nil {
			round, res, err := r.remoteRound(ctx, m, d, prep, claim, input, land)
			usage.Add(res.Usage)
			if round != nil {
				rounds = append(rounds, *round)
			}
			if err != nil {
				return last, rounds, err
			}
			continue
		}
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

// remoteRound hands the task claim won to d.Rounds as a delegation of
// its own (a River worker's job): the member's definition, its unread
// messages first and the index, the stem the claim named. The other side
// lands the task's note there; the messages shown are then read. It
// returns the round handed over (nil: none) and the error that stops the
// member: the context's end (the claim stays held for the caller to
// release), a round refused before it ran (its task's note, an error,
// lands here), one abandoned there (the claim is released) or degraded
// (failed on every attempt: the workers cannot run it).
func (r *SubRunner) remoteRound(ctx context.Context, m *member, d Delegation, prep *Prepared, claim blackboard.ClaimResult, input string,
	land func(string, blackboard.NewNote) (blackboard.NoteMeta, error)) (*teamRound, DelegationResult, error) {
	ref, err := blackboard.ParseNoteRef(claim.Holder.Ref)
	if err != nil {
		return nil, DelegationResult{}, fmt.Errorf("the claim of %s: %w", claim.Task.Ref, err)
	}
	key := "task:" + strings.TrimPrefix(claim.Task.Ref, blackboard.TaskRefPrefix)
	rd := Delegation{CallID: d.CallID + "/" + ref.Stem, Agent: prep.Definition.Name, Task: input, BoardID: d.BoardID, Depth: d.Depth,
		Key: key, Model: d.Model, MaxSteps: d.MaxSteps, Isolation: d.Isolation, Stem: ref.Stem,
		Prepared: &Prepared{Definition: prep.Definition, Prompt: prep.Prompt, Index: m.withMail(prep.Index)}}
	res, runErr := d.Rounds(ctx, rd)
	switch {
	case runErr == nil && !res.Abandoned:
		// Landed there (even when ctx ended meanwhile).
	case ctx.Err() != nil:
		return nil, res, context.Cause(ctx)
	case runErr != nil:
		// Nothing ran, nothing landed: the task's one note says why, as
		// a round whose loop failed here.
		note := handoffFromOutcome(prep.Definition.Name, claim.Task.Title, &Outcome{}, runErr, 0)
		note.Handoff.Key, note.Handoff.Session, note.Stem = key, m.session, ref.Stem
		meta, err := land(d.BoardID, note)
		if err != nil {
			return nil, res, fmt.Errorf("write the handoff note of %s: %w (its round: %w)", claim.Task.Ref, err, runErr)
		}
		m.handedOver()
		return &teamRound{task: claim.Task.Ref, title: claim.Task.Title, ref: meta.Ref, status: meta.Status, conclusion: meta.Conclusion},
			res, fmt.Errorf("the round of %s: %w", claim.Task.Ref, runErr)
	default: // abandoned there: its token budget, its job cancelled in the queue
		if err := m.store.ReleaseClaim(d.BoardID, *claim.Holder); err != nil {
			return nil, res, fmt.Errorf("the round of %s was abandoned (%s); %w", claim.Task.Ref, res.Reason, err)
		}
		m.handedOver()
		return nil, res, fmt.Errorf("the round of %s was abandoned: %s", claim.Task.Ref, res.Reason)
	}
	if err := m.answered(); err != nil && r.Events != nil {
		r.Events.Emit(Event{Type: EventNotice, Agent: prep.Definition.Name, Depth: d.Depth, Time: time.Now(), Text: "warning: could not record which messages were read: " + err.Error()})
	}
	m.handedOver()
	round := &teamRound{task: claim.Task.Ref, title: claim.Task.Title, ref: res.Ref, status: res.Status, conclusion: res.Conclusion}
	if res.Status == blackboard.StatusDegraded {
		return round, res, fmt.Errorf("the round of %s failed on every attempt: %s", claim.Task.Ref, res.Conclusion)
	}
	return round, res, nil
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
