package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

func writePlan(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBatchExitCodes pins yagent batch's exit codes: 0 when every
// delegation is ok or partial, 1 otherwise, 2 for an invalid plan or a
// missing endpoint, 130 when cancelled.
func TestBatchExitCodes(t *testing.T) {
	scenarios := filepath.Join("..", "..", "testdata", "scenarios")
	example := filepath.Join("..", "..", "testdata", "batch", "release-audit.yaml")
	failing := writePlan(t, "board: b\ndelegations:\n  - {id: build, agent: worker, task: Build the project.}\n  - {id: docs, agent: explorer, task: Read the docs.}\n")
	invalid := writePlan(t, "delegations:\n  - {id: a, agent: ghost, task: t}\n")
	slow := writePlan(t, "board: b\ndelegations:\n  - {id: w, agent: worker, task: Work.}\n")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		args []string
		want int
	}{
		{"all ok or partial", t.Context(), []string{"batch", "--replay", filepath.Join(scenarios, "batch-release-audit.yaml"), "--cd", "../..", example}, 0},
		{"a delegation failed", t.Context(), []string{"batch", "--replay", filepath.Join(scenarios, "batch-failures.yaml"), failing}, 1},
		{"invalid plan", t.Context(), []string{"batch", "--replay", filepath.Join(scenarios, "batch-failures.yaml"), invalid}, 2},
		{"no endpoint", t.Context(), []string{"batch", failing}, 2},
		{"bad flag", t.Context(), []string{"batch", "--parallel", "x", failing}, 2},
		{"cancelled", cancelled, []string{"batch", "--replay", filepath.Join(scenarios, "batch-slow.yaml"), slow}, 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.ctx, nil, tt.args...)
			if code != tt.want {
				t.Errorf("yagent %v exited %d; want %d (stderr %q)", tt.args, code, tt.want, stderr)
			}
		})
	}
}

// TestBatchInterrupt drives Ctrl-C through the command: the running
// delegations are abandoned and write nothing, what finished keeps its
// note, the table reports every row, exit 130.
func TestBatchInterrupt(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "batch-slow.yaml"))
	home := t.TempDir()
	plan := writePlan(t, "board: b\nparallel: 3\ndelegations:\n  - {id: quick, agent: explorer, task: Look.}\n"+
		"  - {id: slow1, agent: worker, task: Work.}\n  - {id: slow2, agent: worker, task: Work too.}\n  - {id: after, agent: explorer, task: Then., depends_on: [slow1]}\n")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			workers, quick := 0, false
			for _, r := range srv.Requests() {
				if r.Agent == "worker" {
					workers++
				}
				quick = quick || r.Agent == "explorer"
			}
			if workers == 2 && quick {
				time.Sleep(50 * time.Millisecond) // let quick write its note
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	code, stdout, stderr := runCLI(t, ctx, map[string]string{"OPENAI_BASE_URL": srv.URL(), "YAGENT_MODEL": "scripted", "YAGENT_HOME": home}, "batch", plan)
	if code != 130 {
		t.Fatalf("exit %d; want 130 (stderr %q)", code, stderr)
	}
	for _, want := range []string{`quick +explorer +ok +explorer/\S+ +Quick answer`, `slow1 +worker +abandoned +- +Abandoned \(cancelled\); nothing was written\.`,
		`slow2 +worker +abandoned +- `, `after +explorer +not_started +- +the run was cancelled before it started`} {
		if !regexp.MustCompile(`(?m)^` + want).MatchString(stdout) {
			t.Errorf("table lacks a row matching %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "yagent: batch cancelled (1 ok, 2 abandoned, 1 not_started): running delegations were abandoned and wrote nothing") {
		t.Errorf("stderr does not say the run was cancelled:\n%s", stderr)
	}
	list, err := blackboard.Open(filepath.Join(home, "notes")).ListNotes("b", blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Notes) != 1 || list.Notes[0].Agent != "explorer" {
		t.Errorf("board holds %+v; want quick's note only", list.Notes)
	}
}
