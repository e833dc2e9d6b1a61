package kb

import (
	"strings"
	"testing"
)

func TestRecall(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		big := strings.Repeat("Filler paragraph about nothing in particular.\n\n", 200) // ~2400 tokens
		hub := f.create(t, "acme/web", "# Release process\n\nHow we release: see [[Checklist]] and [[Big appendix]].")
		check := f.create(t, "acme/web", "# Checklist\n\n- tag\n- build\n- publish")
		appendix := f.create(t, "acme/web", "# Big appendix\n\n"+big)
		inbound := f.create(t, "acme/web", "# Retro\n\nNotes from the retro.")
		if _, err := f.s.Link(t.Context(), f.agent, LinkInput{From: inbound.ID, To: hub.ID, Type: "follows-up"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.RememberAboutProject(t.Context(), f.agent, RememberAboutProjectInput{Project: "acme/web", Category: "pitfalls", Observation: "Release on Fridays fails."}); err != nil {
			t.Fatal(err)
		}

		out, err := f.s.Recall(t.Context(), f.reader, RecallInput{Topic: "how do we release?", Project: "acme/web"})
		if err != nil {
			t.Fatal(err)
		}
		if out.BudgetTokens != defaultRecallBudget || out.UsedTokens > out.BudgetTokens || out.Mode != "fts" {
			t.Errorf("budget %d used %d mode %s; want default budget respected", out.BudgetTokens, out.UsedTokens, out.Mode)
		}
		reasons := map[string]string{}
		for _, n := range out.Notes {
			reasons[n.ID] = n.Reason
			if n.Updated.Principal != "alice" {
				t.Errorf("%s has no provenance: %+v", n.ID, n.Updated)
			}
		}
		if reasons[hub.ID] != "match" || !strings.Contains(reasons[check.ID], "linked from "+hub.ID) ||
			reasons[inbound.ID] != "links to "+hub.ID+" (follows-up)" {
			t.Errorf("reasons = %v; want the hub as a match, the checklist and the retro as its neighbours", reasons)
		}
		var memory bool
		for _, n := range out.Notes {
			memory = memory || n.Class == ClassAgentMemory
		}
		if !memory {
			t.Error("recall did not include the agent's memory about the project")
		}

		// A small budget cuts the big neighbour and says so.
		small, err := f.s.Recall(t.Context(), f.reader, RecallInput{Topic: "release", Project: "acme/web", BudgetTokens: 400})
		if err != nil {
			t.Fatal(err)
		}
		if small.UsedTokens > 400 {
			t.Errorf("used %d tokens of 400", small.UsedTokens)
		}
		var cut bool
		for _, c := range small.Cut {
			cut = cut || (c.ID == appendix.ID && c.Tokens > 2000)
		}
		if !cut {
			t.Errorf("cut = %+v; want the big appendix reported", small.Cut)
		}

		// A matching note bigger than the budget is shortened, not dropped.
		trunc, err := f.s.Recall(t.Context(), f.reader, RecallInput{Topic: "filler paragraph", BudgetTokens: 500})
		if err != nil {
			t.Fatal(err)
		}
		if len(trunc.Notes) == 0 || trunc.Notes[0].ID != appendix.ID || !trunc.Notes[0].Truncated || trunc.UsedTokens > 500 {
			t.Errorf("recall of a big match = %+v; want it truncated within 500 tokens", trunc)
		}

		capped, _ := f.s.Recall(t.Context(), f.reader, RecallInput{Topic: "release", BudgetTokens: 100000})
		if capped.BudgetTokens != maxRecallBudget {
			t.Errorf("budget %d; want capped at %d", capped.BudgetTokens, maxRecallBudget)
		}
		if _, err := f.s.Recall(t.Context(), f.reader, RecallInput{Topic: "release", BudgetTokens: -1}); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("negative budget: %v; want invalidArgument", err)
		}
	})
}
