package queue

import (
	"context"
	"sync"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestWorkerKeepsRunnersRecorder: a worker whose runner has a Recorder
// of its own (a program embedding the queue; yagent worker's runner has
// none) still tells it every model response, and still books each
// response in the job's output, which the coordinator charges to the
// budgets: the worker's hooks wrap the runner's, neither replaces the
// other.
func TestWorkerKeepsRunnersRecorder(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	var mu sync.Mutex
	told := 0
	runner := *e.runner
	runner.Recorder = func(context.Context, agents.Delegation) (agents.DelegationHooks, error) {
		return agents.DelegationHooks{OnResponse: func(llm.Response) { mu.Lock(); told++; mu.Unlock() }}, nil
	}
	e.serve(t, &runner, "w")
	e.runFirst(t)
	var raw []byte
	if err := e.q.pool.QueryRow(t.Context(), `SELECT metadata->'output' FROM river_job`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	out, err := decodeOutput(raw)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if told != 1 || len(out.Responses) != 1 {
		t.Errorf("the runner's recorder was told of %d responses and the job's output books %d; want 1 and 1 (one model call)", told, len(out.Responses))
	}
}
