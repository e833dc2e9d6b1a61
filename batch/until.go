package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
)

// A plan's until (issue 30 item 5): like `yagent run --until`, an entry
// whose delegation succeeded runs its check (the entry's until, else the
// plan's) in the run's sandbox, in the workspace; while it fails, the
// same sub-agent is followed up (the follow-up machinery: its kept
// history, a new note that supersedes the last) with what still fails —
// on workers (Options.Executor) a new delegation with the entry's task,
// what still fails and the last note in its context, superseding it —
// up to max_rounds delegations in all (the entry's, else the plan's, else
// app.DefaultMaxRounds). When the rounds or the entry's budget are spent
// with the check still failing, the entry fails naming the check.

// CheckFunc runs a goal's check once (app.Run.CheckGoal: in the run's
// sandbox, in its workspace).
type CheckFunc func(ctx context.Context, g app.Goal, round int) (app.CheckResult, error)

// goal is the check delegation d runs under (Check "" when none).
func (p *Plan) goal(d PlanDelegation) app.Goal {
	g := app.Goal{Check: p.Until, MaxRounds: p.MaxRounds}
	if strings.TrimSpace(d.Until) != "" {
		g.Check = d.Until
	}
	if d.MaxRounds != 0 {
		g.MaxRounds = d.MaxRounds
	}
	return g
}

// checkUntil refuses max_rounds that are not positive or bound no check.
func (p *Plan) checkUntil(add addProblem) {
	if p.MaxRounds < 0 {
		add(p.line("max_rounds"), "max_rounds", "%d: want 1 or more rounds (default %d)", p.MaxRounds, app.DefaultMaxRounds)
	}
	if p.hasNode("until") && strings.TrimSpace(p.Until) == "" {
		add(p.line("until"), "until", "empty check: give the command that must exit 0, e.g. until: go test ./...")
	}
	for i, d := range p.Delegations {
		at := fmt.Sprintf("delegations[%d]", i)
		if d.MaxRounds < 0 {
			add(p.line("delegations", i, "max_rounds"), at+".max_rounds", "%d: want 1 or more rounds (or leave it out: the plan's, else %d)", d.MaxRounds, app.DefaultMaxRounds)
		}
		if p.hasNode("delegations", i, "until") && strings.TrimSpace(d.Until) == "" {
			add(p.line("delegations", i, "until"), at+".until", "empty check: give the command that must exit 0, or leave until out")
		}
		if d.MaxRounds > 0 && strings.TrimSpace(p.goal(d).Check) == "" {
			add(p.line("delegations", i, "max_rounds"), at+".max_rounds", "max_rounds bounds until: give the check to run (until: CMD, here or for the whole plan)")
		}
	}
	if p.MaxRounds > 0 && strings.TrimSpace(p.Until) == "" && !p.everyEntryHasUntil() {
		add(p.line("max_rounds"), "max_rounds", "max_rounds bounds until: give the check to run (until: CMD)")
	}
}

func (p *Plan) everyEntryHasUntil() bool {
	for _, d := range p.Delegations {
		if strings.TrimSpace(d.Until) == "" {
			return false
		}
	}
	return len(p.Delegations) > 0
}

// until runs d's check after its delegation del ended with res and, while
// it fails, follows the same sub-agent up through exec; it returns how the
// entry ended: the last note's result, or a failure naming the check.
func (b *batchRun) until(ctx context.Context, exec Executor, d PlanDelegation, del agents.Delegation, res agents.DelegationResult) agents.DelegationResult {
	g := b.plan.goal(d)
	rounds := g.MaxRounds
	if rounds <= 0 {
		rounds = app.DefaultMaxRounds
	}
	g.MaxRounds = rounds
	fail := func(res agents.DelegationResult, why string) agents.DelegationResult {
		res.Status = blackboard.StatusError
		res.Reason = fmt.Sprintf("the check `%s` %s", g.Check, why)
		res.Conclusion = "Until failed: the check `" + g.Check + "` " + why
		return res
	}
	for round := 1; ; round++ {
		if res.Abandoned {
			res.Reason = fmt.Sprintf("%s (round %d of until `%s`)", res.Reason, round, g.Check)
			return res
		}
		if !res.Status.Succeeded() {
			return res // its own error note says why
		}
		if b.opts.Check == nil {
			return fail(res, "was not run: this batch runs no checks")
		}
		cr, err := b.opts.Check(ctx, g, round)
		if err != nil {
			return fail(res, "could not run: "+err.Error())
		}
		b.notice(fmt.Sprintf("%s: %s", d.ID, g.Notice(cr)))
		if cr.Passed() {
			return res
		}
		if round >= rounds {
			return fail(res, fmt.Sprintf("still fails after %d rounds (exit %d): raise max_rounds in the plan, or follow %s up", round, cr.Code, res.Ref))
		}
		fu := del
		fu.CallID = fmt.Sprintf("%s#%d", d.ID, round+1)
		if b.opts.Executor != nil {
			// On workers the sub-agent's history stays on the host that
			// ran it: the next round is a new delegation with the entry's
			// task, what still fails and the last round's note in its
			// context; its note supersedes that one.
			fu.Task, fu.ContextRefs = del.Task+"\n\n"+g.Prompt(cr), []string{res.Ref}
			fu.FollowUp = &agents.FollowUp{Ref: res.Ref}
		} else {
			_, h, err := b.opts.Runner.Board.ReadHandoff(b.board, res.Ref)
			if err == nil && h.Session == "" {
				err = errors.New("its note names no sub-agent session to follow up")
			}
			if err != nil {
				return fail(res, fmt.Sprintf("still fails (exit %d) and round %d cannot follow %s up: %v", cr.Code, round+1, res.Ref, err))
			}
			fu.Task, fu.ContextRefs = g.Prompt(cr), nil
			fu.FollowUp = &agents.FollowUp{Ref: res.Ref, Session: h.Session}
		}
		next, err := exec.Run(ctx, fu)
		if err != nil {
			return fail(res, fmt.Sprintf("still fails (exit %d) and round %d could not run: %v", cr.Code, round+1, err))
		}
		next.Usage.Add(res.Usage)
		next.Elapsed += res.Elapsed
		res = next
	}
}
