package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river/rivertype"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
)

// TestRiverConfigs pins what the worker and the coordinator ask of River:
// the worker's concurrency, a fetch cooldown of 5 ms unless set, a poll
// for missed notifications within 200 ms and the host's name (cut to 60
// bytes) in River's leader table; the coordinator's notifications spaced
// by at most 5 ms.
func TestRiverConfigs(t *testing.T) {
	now := time.Unix(0, 42)
	for _, tt := range []struct {
		opts         WorkerOptions
		id           string
		wantCooldown time.Duration
	}{
		{WorkerOptions{Concurrency: 3, Name: "host:7"}, "host:7-42", 5 * time.Millisecond},
		{WorkerOptions{Concurrency: 1, FetchCooldown: 7 * time.Millisecond}, "worker-42", 7 * time.Millisecond},
		{WorkerOptions{Concurrency: 2, FetchCooldown: -1, Name: strings.Repeat("h", 70)}, strings.Repeat("h", 60) + "-42", 5 * time.Millisecond},
	} {
		cfg := workerConfig(tt.opts, nil, now)
		if cfg.ID != tt.id || cfg.FetchCooldown != tt.wantCooldown || cfg.Queues[QueueName].MaxWorkers != tt.opts.Concurrency ||
			cfg.FetchPollInterval <= 0 || cfg.FetchPollInterval > 200*time.Millisecond {
			t.Errorf("workerConfig(%+v) = id %q, cooldown %s, queues %v, poll %s; want id %q, cooldown %s",
				tt.opts, cfg.ID, cfg.FetchCooldown, cfg.Queues, cfg.FetchPollInterval, tt.id, tt.wantCooldown)
		}
	}
	if c := coordinatorConfig().FetchCooldown; c <= 0 || c > 5*time.Millisecond {
		t.Errorf("the coordinator's fetch cooldown is %s; want at most 5 ms", c)
	}
}

// TestRetryPolicy: a failed job is retried after as many seconds as its
// attempt (at least one).
func TestRetryPolicy(t *testing.T) {
	for _, tt := range []struct {
		attempt int
		want    time.Duration
	}{{0, time.Second}, {1, time.Second}, {3, 3 * time.Second}} {
		before := time.Now()
		got := retryPolicy{}.NextRetry(&rivertype.JobRow{Attempt: tt.attempt})
		if d := got.Sub(before); d < tt.want || d > tt.want+time.Second {
			t.Errorf("attempt %d: next retry in %s; want %s", tt.attempt, d, tt.want)
		}
	}
}

// TestDegradedNote: the one note of a delegation whose every attempt
// failed lists each attempt, then the worker's last output (its body, else
// its error); the reason is the last attempt's error, else how the job
// ended; the conclusion's first line is cut at 300 runes.
func TestDegradedNote(t *testing.T) {
	d := agents.Delegation{CallID: "item-001", Agent: "worker", Task: "hand it over"}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	long := strings.Repeat("é", 301)
	for _, tt := range []struct {
		name     string
		row      rivertype.JobRow
		out      JobOutput
		body     string
		reason   string
		conclude string
	}{
		{
			name: "two attempts, the last output's body",
			row: rivertype.JobRow{State: rivertype.JobStateDiscarded, Attempt: 2, MaxAttempts: 2, Errors: []rivertype.AttemptError{
				{Attempt: 1, At: at, Error: "worker w1: no model endpoint"}, {Attempt: 2, At: at, Error: "worker w2: no tool x\nmore"}}},
			out:      JobOutput{Worker: "w2", Body: "half a result", Error: "ignored"},
			body:     "# item-001 failed on every attempt (2 of 2)\n\n- attempt 1 (2026-01-02T03:04:05Z): worker w1: no model endpoint\n- attempt 2 (2026-01-02T03:04:05Z): worker w2: no tool x\nmore\n\n## Last output (worker w2)\n\nhalf a result\n",
			reason:   "worker w2: no tool x\nmore",
			conclude: "The delegation failed on all 2 attempts: worker w2: no tool x",
		},
		{
			name:     "the last output's error",
			row:      rivertype.JobRow{State: rivertype.JobStateDiscarded, Attempt: 1, MaxAttempts: 1, Errors: []rivertype.AttemptError{{Attempt: 1, At: at, Error: long}}},
			out:      JobOutput{Error: "it broke"},
			body:     "# item-001 failed on every attempt (1 of 1)\n\n- attempt 1 (2026-01-02T03:04:05Z): " + long + "\n\n## Last output (worker )\n\nit broke\n",
			reason:   long,
			conclude: "The delegation failed on all 1 attempts: " + strings.Repeat("é", 299) + "…",
		},
		{
			name:     "no error, no output",
			row:      rivertype.JobRow{State: rivertype.JobStateCompleted, Attempt: 1, MaxAttempts: 3},
			body:     "# item-001 failed on every attempt (1 of 3)\n\n",
			reason:   "its job ended completed",
			conclude: "The delegation failed on all 1 attempts: its job ended completed",
		},
		{
			name:     "a worker named, nothing else",
			row:      rivertype.JobRow{State: rivertype.JobStateDiscarded, Attempt: 1, MaxAttempts: 1},
			out:      JobOutput{Worker: "w3"},
			body:     "# item-001 failed on every attempt (1 of 1)\n\n\n## Last output (worker w3)\n\n",
			reason:   "its job ended discarded",
			conclude: "The delegation failed on all 1 attempts: its job ended discarded",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := degradedNote(d, &tt.row, tt.out)
			want := blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusDegraded, Agent: "worker", Task: "hand it over",
				Reason: tt.reason, Conclusion: tt.conclude}, Body: tt.body}
			if diff := cmp.Diff(want, n); diff != "" {
				t.Errorf("degradedNote (-want +got):\n%s", diff)
			}
		})
	}
	if got := firstLine(strings.Repeat("a", 300)); got != strings.Repeat("a", 300) {
		t.Errorf("firstLine of 300 runes cut to %d", len(got))
	}
}

// TestDecodeOutput pins the job output's wire format across versions: a
// worker writes version 2, whose responses carry the --json stream's
// names, and the coordinator still reads version 1 (Go field names, as a
// worker of an older yagent wrote it) without losing a response's tokens.
func TestDecodeOutput(t *testing.T) {
	responses := []llm.Usage{{PromptTokens: 120, CachedTokens: 80, CompletionTokens: 9, ReasoningTokens: 4}, {PromptTokens: 200, CompletionTokens: 3}}
	usage := agents.UsageEvent{Requests: 2, Usage: llm.Usage{PromptTokens: 320, CachedTokens: 80, CompletionTokens: 12, ReasoningTokens: 4}}
	written, err := json.Marshal(JobOutput{Version: outputVersion, Worker: "w1", Body: "done", Usage: usage, Responses: responses, ElapsedMS: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"responses":[{"prompt_tokens":120,"cached_tokens":80,"completion_tokens":9,"reasoning_tokens":4},`; !strings.Contains(string(written), want) {
		t.Errorf("a worker writes %s; want it to hold %s", written, want)
	}
	for _, tt := range []struct {
		name, data string
	}{
		{"version 2, as this worker writes it", string(written)},
		{"version 1, as an older worker wrote it", `{"version":1,"worker":"w1","body":"done",` +
			`"usage":{"requests":2,"prompt_tokens":320,"cached_tokens":80,"completion_tokens":12,"reasoning_tokens":4,"elapsed_ms":0},` +
			`"responses":[{"PromptTokens":120,"CachedPromptTokens":80,"CompletionTokens":9,"ReasoningTokens":4},{"PromptTokens":200,"CachedPromptTokens":0,"CompletionTokens":3,"ReasoningTokens":0}],` +
			`"elapsed_ms":1500}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := decodeOutput([]byte(tt.data))
			if err != nil {
				t.Fatalf("decodeOutput: %v", err)
			}
			if diff := cmp.Diff(responses, out.Responses); diff != "" {
				t.Errorf("responses (-want +got):\n%s", diff)
			}
			if out.Usage != usage || out.Body != "done" || out.Worker != "w1" || out.ElapsedMS != 1500 {
				t.Errorf("decodeOutput = %+v; want the usage %+v, body, worker and elapsed kept", out, usage)
			}
		})
	}
	if _, err := decodeOutput([]byte(`{"version":1,"responses":{}}`)); err == nil || !strings.Contains(err.Error(), "job's output") {
		t.Errorf("decodeOutput of a damaged output: err = %v; want one naming the job's output", err)
	}
}

// TestClassifyModelFailures: which errors a delegation ended on are the
// model's (retried on another worker) and which are the task's (its error
// note lands): a refused request (400) would be refused on every worker.
func TestClassifyModelFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want failure
	}{
		{"none", nil, notModel},
		{"500", &llm.APIError{StatusCode: 500}, transient},
		{"429", &llm.APIError{StatusCode: 429}, transient},
		{"401", &llm.APIError{StatusCode: 401}, refused},
		{"403", &llm.APIError{StatusCode: 403}, refused},
		{"404 model", &llm.APIError{StatusCode: 404, Code: "model_not_found"}, refused},
		{"quota", &llm.APIError{StatusCode: 429, Code: "insufficient_quota"}, refused},
		{"400", &llm.APIError{StatusCode: 400}, notModel},
		{"no endpoint", fmt.Errorf("sub-agent w: %w", llm.ErrNoEndpoint), refused},
		{"a tool's failure", errors.New("write the handoff note of w: disk full"), notModel},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("%s: classify(%v) = %v; want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
