package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestLoopFitRetriesOverflowOnce: Fit sees every request's history before
// it is sent (where the turn starts, the prefix estimate); a refusal as too
// long for the window runs Fit again with the refusal and retries the same
// step once with the history Fit left; a second refusal ends the turn with
// it; without a Fit nothing is retried; a Fit error sends nothing.
func TestLoopFitRetriesOverflowOnce(t *testing.T) {
	history := []llm.Message{userMsg("an earlier question"), {Role: llm.RoleAssistant, Content: "an earlier answer"}}
	type seen struct {
		msgs, turn int
		prefix     bool
		overflow   bool
	}
	type result struct {
		out   *Outcome
		err   error
		calls []seen
		reqs  []llmtest.Recorded
	}
	run := func(t *testing.T, name string, withFit bool) result {
		srv, client := scenario(t, name)
		w := demoWorkspace(t)
		var calls []seen
		loop := &Loop{Client: client}
		if withFit {
			loop.Fit = func(_ context.Context, f *Fitting) error {
				calls = append(calls, seen{len(f.Msgs), f.Turn, f.Prefix > 0, f.Overflow != nil})
				if f.Overflow != nil { // compact: a summary, then the newest round
					f.Msgs = append([]llm.Message{userMsg("[summary of the earlier rounds]")}, f.Msgs[len(f.Msgs)-2:]...)
					f.Turn = 1
				}
				return nil
			}
		}
		out, err := loop.Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), history, userMsg("list the files"))
		return result{out, err, calls, srv.Requests()}
	}
	t.Run("once", func(t *testing.T) {
		r := run(t, "loop-overflow", true)
		if r.err != nil || r.out.Final != "done" {
			t.Fatalf("turn = %q, %v; want it recovered", r.out.Final, r.err)
		}
		want := []seen{{3, 2, true, false}, {5, 2, true, false}, {5, 2, true, true}}
		if !slices.Equal(r.calls, want) {
			t.Errorf("Fit saw %+v; want %+v", r.calls, want)
		}
		if len(r.reqs) != 3 || r.reqs[2].Messages[1].Content != "[summary of the earlier rounds]" || len(r.reqs[2].Messages) != 4 {
			t.Errorf("%d requests; want 3, the retry carrying what Fit left", len(r.reqs))
		}
	})
	t.Run("twice", func(t *testing.T) {
		r := run(t, "loop-overflow-twice", true)
		if !llm.IsContextOverflow(r.err) || !strings.Contains(r.err.Error(), "compacted once") || !strings.Contains(r.err.Error(), "models.<name>.context_window") {
			t.Fatalf("err = %v; want the second refusal, saying the history was compacted once", r.err)
		}
		if len(r.calls) != 3 || len(r.reqs) != 3 {
			t.Errorf("%d fits, %d requests; want 3 and 3 (no third attempt)", len(r.calls), len(r.reqs))
		}
	})
	t.Run("without fit", func(t *testing.T) {
		r := run(t, "loop-overflow", false)
		if !llm.IsContextOverflow(r.err) || len(r.reqs) != 2 {
			t.Errorf("err = %v after %d requests; want the refusal, not retried", r.err, len(r.reqs))
		}
	})
	t.Run("fit error", func(t *testing.T) {
		srv, client := scenario(t, "loop-overflow")
		loop := &Loop{Client: client, Fit: func(context.Context, *Fitting) error { return errors.New("cannot fit") }}
		_, err := loop.Run(t.Context(), leadAgent(nil), nil, userMsg("list the files"))
		if err == nil || !strings.Contains(err.Error(), "lead: model call 1: cannot fit") || len(srv.Requests()) != 0 {
			t.Errorf("err = %v, %d requests; want the Fit error and nothing sent", err, len(srv.Requests()))
		}
	})
}

// TestLoopFitBuildsTheTail: Fitting.Tail builds the call's transient tail
// for Fit to measure, and the request carries that very tail, not one
// built again; when Fit does not build it, the call does, once. A tail
// that cannot be built reaches Fit as an error.
func TestLoopFitBuildsTheTail(t *testing.T) {
	for _, fitBuilds := range []bool{true, false} {
		t.Run(fmt.Sprintf("fit builds %v", fitBuilds), func(t *testing.T) {
			srv, client := scenario(t, "loop-multistep")
			builds := 0
			var measured []string
			loop := &Loop{Client: client, TailRole: llm.RoleUser,
				Tail: func(context.Context) (string, error) {
					builds++
					return ComposeTail(fmt.Sprintf("[state] build %d", builds)), nil
				},
				Fit: func(_ context.Context, f *Fitting) error {
					if fitBuilds {
						tail, err := f.Tail()
						measured = append(measured, tail)
						return err
					}
					return nil
				}}
			if _, err := loop.Run(t.Context(), leadAgent(FSTools(demoWorkspace(t), ShellPolicy{})), nil, userMsg("what is this module?")); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if builds != len(reqs) || len(reqs) != 3 {
				t.Fatalf("%d tails built for %d requests; want one each", builds, len(reqs))
			}
			for i, r := range reqs {
				tail := r.Messages[len(r.Messages)-1].Content
				if want := ComposeTail(fmt.Sprintf("[state] build %d", i+1)); tail != want {
					t.Errorf("request %d carries the tail %q; want %q", r.N, tail, want)
				}
				if fitBuilds && measured[i] != tail {
					t.Errorf("request %d carries %q; Fit measured %q", r.N, tail, measured[i])
				}
			}
		})
	}
	t.Run("tail error", func(t *testing.T) {
		srv, client := scenario(t, "loop-multistep")
		boom := errors.New("board unreadable")
		loop := &Loop{Client: client, TailRole: llm.RoleUser,
			Tail: func(context.Context) (string, error) { return "", boom },
			Fit: func(_ context.Context, f *Fitting) error {
				_, err := f.Tail()
				return err
			}}
		_, err := loop.Run(t.Context(), leadAgent(nil), nil, userMsg("hi"))
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "lead: model call 1: build transient tail: board unreadable") || len(srv.Requests()) != 0 {
			t.Errorf("err = %v, %d requests; want the tail's error from Fit and nothing sent", err, len(srv.Requests()))
		}
	})
}
