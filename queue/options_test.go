package queue

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
)

// TestOptionsResolved: the zeros of Options take the documented defaults
// (a worker timeout of 30 s, or half of rescue_after when that is
// shorter; a 30 s lease), and the constants agree with config's
// defaults.yaml, so a library caller and a configured process mean the
// same by "unset". Out-of-range options are refused naming the option.
func TestOptionsResolved(t *testing.T) {
	tests := []struct {
		name string
		in   Options
		want Options
		err  string
	}{
		{"defaults", Options{MaxAttempts: 2, RescueAfter: time.Hour},
			Options{Source: "queue.dsn", MaxAttempts: 2, RescueAfter: time.Hour, PollInterval: 100 * time.Millisecond, Lease: 30 * time.Second, WorkerTimeout: 30 * time.Second}, ""},
		{"worker timeout under a short rescue_after", Options{Source: "--queue", MaxAttempts: 1, RescueAfter: 20 * time.Second},
			Options{Source: "--queue", MaxAttempts: 1, RescueAfter: 20 * time.Second, PollInterval: 100 * time.Millisecond, Lease: 30 * time.Second, WorkerTimeout: 10 * time.Second}, ""},
		{"given values kept", Options{MaxAttempts: 3, RescueAfter: time.Minute, PollInterval: time.Second, Lease: time.Minute, WorkerTimeout: 5 * time.Second},
			Options{Source: "queue.dsn", MaxAttempts: 3, RescueAfter: time.Minute, PollInterval: time.Second, Lease: time.Minute, WorkerTimeout: 5 * time.Second}, ""},
		{"no attempts", Options{RescueAfter: time.Hour}, Options{}, "queue.dsn: max_attempts 0: want 1 or more"},
		{"no rescue_after", Options{MaxAttempts: 1}, Options{}, "rescue_after 0s: want a positive duration"},
		{"worker timeout not below rescue_after", Options{MaxAttempts: 1, RescueAfter: time.Minute, WorkerTimeout: time.Minute},
			Options{}, "worker_timeout 1m0s is not below rescue_after 1m0s"},
	}
	for _, tt := range tests {
		got, err := tt.in.resolved()
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v; want %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case got != tt.want:
			t.Errorf("%s: resolved = %+v; want %+v", tt.name, got, tt.want)
		}
	}

	home := t.TempDir()
	cfg, err := config.Load(config.Options{Getenv: func(k string) string {
		if k == "YAGENT_HOME" {
			return home
		}
		return ""
	}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.Queue.WorkerTimeout.D(); d != DefaultWorkerTimeout {
		t.Errorf("defaults.yaml queue.worker_timeout %s; DefaultWorkerTimeout %s", d, DefaultWorkerTimeout)
	}
	if d := cfg.Queue.Lease.D(); d != DefaultLease {
		t.Errorf("defaults.yaml queue.lease %s; DefaultLease %s", d, DefaultLease)
	}
}

// TestLeaseExpiredSays: a lease that ran out says whether the database
// did not answer (naming it, its password masked, and the last error) or
// the renewals were merely late; both are ErrLeaseLost.
func TestLeaseExpiredSays(t *testing.T) {
	q := &Queue{addr: "postgres://u:xxxxx@db:5432/q", opts: Options{DSN: "postgres://u:secret@db:5432/q"}}
	down := q.leaseExpired(30*time.Second, errors.New("dial tcp db:5432: connection refused (password secret)"))
	late := q.leaseExpired(30*time.Second, nil)
	for _, err := range []error{down, late} {
		if !errors.Is(err, ErrLeaseLost) {
			t.Errorf("%v: want ErrLeaseLost", err)
		}
	}
	if msg := down.Error(); !strings.Contains(msg, "the queue database postgres://u:xxxxx@db:5432/q did not answer for longer than the lease (30s): dial tcp") || strings.Contains(msg, "secret") {
		t.Errorf("database down: %q; want the database named, masked, and its error", msg)
	}
	if msg := late.Error(); !strings.Contains(msg, "not renewed for longer than the lease (30s)") {
		t.Errorf("renewals late: %q", msg)
	}
}

// TestWorkerOptionsResolved: a worker holds off 30 s after its model
// failed unless told otherwise, and needs a runner and a concurrency of 1
// or more.
func TestWorkerOptionsResolved(t *testing.T) {
	r := &agents.SubRunner{}
	tests := []struct {
		name    string
		in      WorkerOptions
		holdOff time.Duration
		err     bool
	}{
		{"default hold-off", WorkerOptions{Runner: r, Concurrency: 1}, 30 * time.Second, false},
		{"negative hold-off", WorkerOptions{Runner: r, Concurrency: 2, HoldOff: -time.Second}, 30 * time.Second, false},
		{"given hold-off kept", WorkerOptions{Runner: r, Concurrency: 2, HoldOff: time.Millisecond}, time.Millisecond, false},
		{"no runner", WorkerOptions{Concurrency: 1}, 0, true},
		{"no concurrency", WorkerOptions{Runner: r}, 0, true},
	}
	for _, tt := range tests {
		got, err := tt.in.resolved()
		switch {
		case tt.err:
			if err == nil {
				t.Errorf("%s: resolved with hold-off %s; want an error", tt.name, got.HoldOff)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case got.HoldOff != tt.holdOff || got.Concurrency != tt.in.Concurrency || got.Runner != r:
			t.Errorf("%s: resolved hold-off %s, concurrency %d; want %s, %d", tt.name, got.HoldOff, got.Concurrency, tt.holdOff, tt.in.Concurrency)
		}
	}
}

// TestModelLabel: messages about a job's model (its failures, the
// worker's hold-off) name the model the job runs — the delegation's own
// before its agent's — as the job's settings spell it, else as this
// host's do, else by its name; no name is the default model.
func TestModelLabel(t *testing.T) {
	big := config.ModelSettings{Name: "big", ID: "big-2", Host: "gpu.example"}
	hosts := func(name string) (config.ModelSettings, bool) { return big, name == "big" }
	for _, tc := range []struct {
		name   string
		args   JobArgs
		models ModelsFunc
		want   string
	}{
		{"the job's settings", JobArgs{Model: "big", Settings: &config.ModelSettings{Name: "big", ID: "big-1"}}, hosts, "big (big-1)"},
		{"this host's settings", JobArgs{Model: "big"}, hosts, "big (big-2 at gpu.example)"},
		{"the delegation's model before its agent's", JobArgs{Model: "big", Agent: JobAgent{Model: "small"}}, nil, "big"},
		{"the agent's model", JobArgs{Agent: JobAgent{Model: "small"}}, hosts, "small"},
		{"no name", JobArgs{}, nil, "default"},
	} {
		w := &delegationWorker{opts: WorkerOptions{Models: tc.models}}
		if got := w.modelLabel(tc.args.Settings, tc.args.modelName()); got != tc.want {
			t.Errorf("%s: label %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestOptionsFromConfig: the queue a process opens is --queue's when given
// (Source says so in every message), else queue.dsn's, with the
// configuration's limits, polling every 50 ms.
func TestOptionsFromConfig(t *testing.T) {
	c := config.Queue{DSN: "postgres://db/yagent", RescueAfter: config.Duration(time.Hour), MaxAttempts: 3, Concurrency: 2,
		Lease: config.Duration(time.Minute), WorkerTimeout: config.Duration(20 * time.Second)}
	for _, tc := range []struct {
		flag, dsn, source string
	}{
		{"", "postgres://db/yagent", "queue.dsn"},
		{"postgres://other/q", "postgres://other/q", "--queue"},
	} {
		want := Options{DSN: tc.dsn, Source: tc.source, RescueAfter: time.Hour, MaxAttempts: 3, PollInterval: 50 * time.Millisecond,
			Lease: time.Minute, WorkerTimeout: 20 * time.Second, Concurrency: 2}
		if got := OptionsFromConfig(c, tc.flag, nil); got != want {
			t.Errorf("flag %q: %+v; want %+v", tc.flag, got, want)
		}
	}
}

// TestOpenConfigured: no queue configured is no queue (nil, and no error)
// unless one is required (ErrNoQueue, exit 2 in the CLI); a configured
// one is opened, its failure said as Open says it.
func TestOpenConfigured(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dsn      string
		required bool
		want     error
	}{
		{"none", "", false, nil},
		{"none, required", "", true, ErrNoQueue},
		{"configured, unreachable", "postgres://yagent@127.0.0.1:9/db", false, ErrUnreachable},
	} {
		q, err := OpenConfigured(t.Context(), config.Queue{DSN: tc.dsn, RescueAfter: config.Duration(time.Hour), MaxAttempts: 1}, "", nil, tc.required)
		if q != nil {
			q.Close()
			t.Errorf("%s: a queue opened", tc.name)
		}
		if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("%s: error %v; want %v", tc.name, err, tc.want)
		}
	}
}

// TestConcurrency: --concurrency when given, else queue.concurrency.
func TestConcurrency(t *testing.T) {
	q := &Queue{opts: Options{Concurrency: 4}}
	for flag, want := range map[int]int{0: 4, 1: 1, 8: 8} {
		if got := q.Concurrency(flag); got != want {
			t.Errorf("Concurrency(%d) = %d; want %d", flag, got, want)
		}
	}
}
