package notebook

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func scripted(t *testing.T, name string) (*llmtest.Server, llm.Client) {
	t.Helper()
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", name+".yaml"))
	c, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "m", Timeout: time.Minute}) // never the first to give up on a loaded machine
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// oversized fills a notebook past the compact thresholds (13 notes, one
// pinned).
func oversized(t *testing.T, b *Book) {
	t.Helper()
	for i := 1; i <= 12; i++ {
		save(t, b, fmt.Sprintf("step-%02d", i), fmt.Sprintf("step %d", i), fmt.Sprintf("Step %d: %s", i, strings.Repeat("detail ", 10)))
	}
	save(t, b, "goal", "the task's goal", "Make the parser handle nested lists.")
	if _, err := b.Pin(t.Context(), "goal", true); err != nil {
		t.Fatal(err)
	}
	save(t, b, "cmd", "the build command", "go build ./... && go test ./...")
}

// TestRebuildRestoresDroppedPin: the model dropped a pinned note; it comes
// back verbatim, survivors get their old body as prev_body, merged notes
// none, and the old notebook is archived.
func TestRebuildRestoresDroppedPin(t *testing.T) {
	srv, client := scripted(t, "notebook-rebuild")
	b, _, _ := newBook(t)
	oversized(t, b)
	before, _ := b.List(t.Context())
	var logs []string
	res, err := b.Rebuild(t.Context(), RebuildOptions{Client: client, Summary: "The person wants nested lists.", Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	if !res.Rebuilt || res.Attempts != 1 || len(res.Restored) != 1 || res.Restored[0] != "goal" || res.AfterNotes != 3 {
		t.Errorf("result = %+v", res)
	}
	notes, _ := b.List(t.Context())
	byName := map[string]Note{}
	for _, n := range notes {
		byName[n.Name] = n
	}
	goal := byName["goal"]
	if !goal.Pinned || goal.Body != "Make the parser handle nested lists." || goal.Description != "the task's goal" {
		t.Errorf("restored pin = %+v; want it verbatim", goal)
	}
	if c := byName["cmd"]; c.Body != "go build ./..." || c.PrevBody != "go build ./... && go test ./..." {
		t.Errorf("survivor = %+v; want prev_body = the body before the rebuild", c)
	}
	if s := byName["steps"]; s.PrevBody != "" || !s.New {
		t.Errorf("merged note = %+v; want no prev_body, marked new", s)
	}
	if !strings.Contains(strings.Join(logs, "\n"), "pinned note goal was dropped; restored verbatim") {
		t.Errorf("logs = %q", logs)
	}
	// The request framed the summary read-only and gave the targets.
	req := srv.Requests()[0]
	if !strings.Contains(req.Messages[0].Content, "at most 600 characters") || !strings.Contains(req.Messages[1].Content, "conversation summary (read-only; do not copy from it)") ||
		!strings.Contains(req.Messages[1].Content, "## goal | the task's goal (pinned)") {
		t.Errorf("rebuild request = %+v", req.Messages)
	}
	// The archive holds the old notebook: restore brings it back whole.
	restored, err := b.Restore(t.Context())
	if err != nil || len(restored) != len(before) {
		t.Fatalf("restore = %d notes, %v; want %d", len(restored), err, len(before))
	}
}

// TestRebuildThatGrowsIsRejected: a rebuild that is not smaller is
// rejected, the old notebook kept, one retry made with a ceiling twice as
// strict, then it stops.
func TestRebuildThatGrowsIsRejected(t *testing.T) {
	srv, client := scripted(t, "notebook-rebuild-grows")
	b, _, _ := newBook(t)
	oversized(t, b)
	before, _ := b.List(t.Context())
	var booked []llm.Usage
	res, err := b.Rebuild(t.Context(), RebuildOptions{Client: client, Spend: func(u llm.Usage) { booked = append(booked, u) }})
	if !errors.Is(err, ErrRebuildRejected) || res.Attempts != 2 || res.Rebuilt {
		t.Fatalf("Rebuild = %+v, %v; want rejected after 2 attempts", res, err)
	}
	reqs := srv.Requests()
	// Each attempt is booked as it returns: two requests, each its own
	// tokens, together the result's usage (seed 000 §0.32).
	if len(booked) != 2 || len(reqs) != 2 || booked[0].PromptTokens != reqs[0].PromptTokens || booked[1].PromptTokens != reqs[1].PromptTokens ||
		booked[0].PromptTokens+booked[1].PromptTokens != res.Usage.PromptTokens || booked[0].CompletionTokens+booked[1].CompletionTokens != res.Usage.CompletionTokens {
		t.Errorf("booked %+v for requests of %d and %d prompt tokens; result usage %+v", booked, reqs[0].PromptTokens, reqs[len(reqs)-1].PromptTokens, res.Usage)
	}
	if len(reqs) != 2 || !strings.Contains(reqs[0].Messages[0].Content, "at most 600 characters") || !strings.Contains(reqs[1].Messages[0].Content, "at most 300 characters") ||
		!strings.Contains(reqs[1].Messages[0].Content, "at most 3 notes") {
		t.Errorf("the retry was not twice as strict")
	}
	after, _ := b.List(t.Context())
	if len(after) != len(before) {
		t.Errorf("the notebook changed: %d notes, was %d", len(after), len(before))
	}
	if _, err := b.Restore(t.Context()); !IsRefusal(err) {
		t.Error("a rejected rebuild left an archive")
	}
}

// TestRebuildBacksOff: a rebuild that keeps failing is not retried after
// every turn: after a failure (two calls: the attempt and its stricter
// retry) the next try waits 2, then 4, 8… turns; the wait is in the state
// database, so another process (a one-shot resume) waits too; a success
// (here: a restore, any swap) starts afresh.
func TestRebuildBacksOff(t *testing.T) {
	srv, client := scripted(t, "notebook-rebuild-fails")
	b, _, id := newBook(t)
	oversized(t, b)
	calls := func() int { return len(srv.Requests()) }
	var perTurn []int
	for turn := 1; turn <= 8; turn++ {
		book := b
		if turn == 5 {
			book = Open(b.db, id, testConfig()) // another process
			book.now = b.now
		}
		before := calls()
		res, err := book.Rebuild(t.Context(), RebuildOptions{Client: client, Turn: turn})
		perTurn = append(perTurn, calls()-before)
		switch {
		case res.Deferred:
			if err != nil || res.RetryTurn <= turn {
				t.Errorf("turn %d: deferred with %v, retry at %d", turn, err, res.RetryTurn)
			}
		case !errors.Is(err, ErrRebuildRejected):
			t.Errorf("turn %d: %+v, %v; want rejected", turn, res, err)
		}
	}
	// Turn 1 fails (retry at 3), turn 3 fails (retry at 7), turn 7 fails.
	if want := []int{2, 0, 2, 0, 0, 0, 2, 0}; !slices.Equal(perTurn, want) {
		t.Errorf("model calls per turn = %v; want %v", perTurn, want)
	}
	if _, err := b.Restore(t.Context()); !IsRefusal(err) { // nothing archived: no swap happened
		t.Fatalf("restore = %v", err)
	}
	notes, _ := b.List(t.Context())
	if err := b.replace(t.Context(), notes, notes); err != nil {
		t.Fatal(err)
	}
	before := calls()
	if res, _ := b.Rebuild(t.Context(), RebuildOptions{Client: client, Turn: 9}); res.Deferred || calls()-before != 2 {
		t.Errorf("after a swap the rebuild is still deferred: %+v", res)
	}
}

func TestParseNotebook(t *testing.T) {
	got := parseNotebook("preamble\n## a | first\nbody a\n\n## b|second (pinned)\nline 1\nline 2\n## broken header\nx\n")
	if len(got) != 2 || got[0].Name != "a" || got[0].Body != "body a" || got[1].Description != "second" || !strings.Contains(got[1].Body, "line 2\n## broken header") {
		t.Errorf("parseNotebook = %+v", got)
	}
}

func FuzzParseNotebook(f *testing.F) {
	f.Add("## a | b\nc\n")
	f.Add("##|\n## | |\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range parseNotebook(s) {
			if strings.Contains(n.Name, "\n") || strings.Contains(n.Description, "\n") {
				t.Fatalf("a field spans lines: %+v", n)
			}
		}
	})
}
