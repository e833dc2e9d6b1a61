package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGoalLoop pins the loop of `run --until`: another turn only while
// the check fails, the failure's tail in the next prompt, at most
// MaxRounds turns, a turn's error ends it.
func TestGoalLoop(t *testing.T) {
	turnErr := errors.New("model refused")
	for _, tc := range []struct {
		name      string
		max       int
		passAt    int // the round whose check passes (0: never)
		failTurn  int // the turn that errors (0: none)
		wantTurns int
		wantErr   string
	}{
		{name: "passes at once", max: 3, passAt: 1, wantTurns: 1},
		{name: "passes on round 3", max: 5, passAt: 3, wantTurns: 3},
		{name: "passes on the last round", max: 3, passAt: 3, wantTurns: 3},
		{name: "never passes", max: 3, wantTurns: 3, wantErr: "the check `make test` still fails after 3 rounds (exit 1)"},
		{name: "default rounds", wantTurns: DefaultMaxRounds, wantErr: fmt.Sprintf("after %d rounds", DefaultMaxRounds)},
		{name: "a turn fails", max: 5, failTurn: 2, wantTurns: 2, wantErr: "model refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Goal{Check: "make test", MaxRounds: tc.max}
			var prompts []string
			var notices []string
			err := g.Loop(t.Context(), "fix it", func(_ context.Context, p string) error {
				prompts = append(prompts, p)
				if len(prompts) == tc.failTurn {
					return turnErr
				}
				return nil
			}, func(_ context.Context, round int) (CheckResult, error) {
				if round == tc.passAt {
					return CheckResult{Round: round}, nil
				}
				return CheckResult{Round: round, Code: 1, Tail: fmt.Sprintf("FAIL round %d", round)}, nil
			}, func(r CheckResult) { notices = append(notices, g.Notice(r)) })
			if len(prompts) != tc.wantTurns {
				t.Fatalf("%d turns, want %d: %q", len(prompts), tc.wantTurns, prompts)
			}
			if prompts[0] != "fix it" {
				t.Errorf("first prompt %q", prompts[0])
			}
			for i, p := range prompts[1:] {
				if want := fmt.Sprintf("exited 1 (round %d of", i+1); !strings.Contains(p, want) || !strings.Contains(p, fmt.Sprintf("FAIL round %d", i+1)) || !strings.Contains(p, "`make test`") {
					t.Errorf("prompt of round %d = %q; want the check, %q and its output", i+2, p, want)
				}
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v; want %q", err, tc.wantErr)
			}
			var unmet *GoalUnmetError
			if errors.As(err, &unmet) != (tc.passAt == 0 && tc.failTurn == 0) {
				t.Errorf("err = %#v; a GoalUnmetError only when the rounds are spent", err)
			}
			if tc.failTurn == 0 && len(notices) != tc.wantTurns {
				t.Errorf("notices %q; want one per check", notices)
			}
		})
	}
}

// TestGoalCheck runs real checks: the exit code, the last lines of a long
// output, a timeout that stops it, its round in the environment.
func TestGoalCheck(t *testing.T) {
	dir := t.TempDir()
	g := Goal{Check: `echo "round $YAGENT_CHECK_ROUND in $(pwd)"; seq 1 500; exit 3`}
	r, err := g.RunCheck(t.Context(), nil, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(r.Tail, "\n")
	if r.Code != 3 || r.Passed() || len(lines) != goalTailLines || lines[0] != "461" || lines[len(lines)-1] != "500" {
		t.Fatalf("check = code %d, %d lines %q…%q; want exit 3 and the last %d lines", r.Code, len(lines), lines[0], lines[len(lines)-1], goalTailLines)
	}
	if r, err = (Goal{Check: `echo "round $YAGENT_CHECK_ROUND in $(pwd)"`}).RunCheck(t.Context(), nil, dir, 2); err != nil || !r.Passed() || r.Tail != "round 2 in "+dir {
		t.Fatalf("check = %+v, %v; want a pass naming round 2 and the workspace", r, err)
	}
	start := time.Now()
	r, err = (Goal{Check: "sleep 30", Timeout: 200 * time.Millisecond}).RunCheck(t.Context(), nil, dir, 1)
	if err != nil || r.Passed() || !strings.Contains(r.Tail, "stopped after 200ms") || time.Since(start) > 10*time.Second {
		t.Fatalf("a check past its timeout = %+v, %v after %s; want a failure saying so", r, err, time.Since(start))
	}
}

// TestGoalValidate: --max-rounds alone, a blank check and a negative
// bound are refused; no --until is no goal.
func TestGoalValidate(t *testing.T) {
	for _, tc := range []struct {
		g    Goal
		want string
	}{
		{Goal{}, ""},
		{Goal{Check: "true"}, ""},
		{Goal{Check: "true", MaxRounds: 2}, ""},
		{Goal{MaxRounds: 2}, "--max-rounds bounds --until"},
		{Goal{Check: "  ", MaxRounds: 0}, "--max-rounds bounds --until"},
		{Goal{Check: "true", MaxRounds: -1}, "--max-rounds -1"},
	} {
		err := tc.g.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v.Validate() = %v; want %q", tc.g, err, tc.want)
		}
	}
}
