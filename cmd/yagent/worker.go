package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/printer"
	"github.com/yagent/yagent/queue"
)

// workerOptions are the inputs of `yagent worker`.
type workerOptions struct {
	Queue       string
	Concurrency flagvalue.Count
	Drain       bool
	Agent       agentFlags // --json, --replay, --allow-shell, --sandbox, --cd
}

// NewCmdWorker builds `yagent worker`.
func NewCmdWorker(f *Factory) *cobra.Command {
	opts := &workerOptions{}
	cmd := &cobra.Command{
		Use:   "worker --queue postgres://… [flags]",
		Short: "Run batch delegations from a River queue on PostgreSQL (yagent batch --queue)",
		Long: `Run the delegations that yagent batch --queue puts on a River queue in
PostgreSQL, on this host: with this workspace checkout (--cd), this host's
models (configuration and OPENAI_* variables) and tools. Each job carries
the agent's definition, the task, the board index and the text of its
context notes, so the worker needs no access to the board; it returns the
handoff (front matter, body, usage) as the job's output and the
coordinator lands it. Start as many workers on as many hosts as you like
(README.md, "Scaling out").

A job this worker cannot run fails that attempt, and River retries it on
another worker up to queue.max_attempts (the last failure lands as one
degraded note listing every attempt and its worker): its model failing
(5xx, timeout, refused connection, rate limit after the client's retries),
refusing this host (401/403) or missing here (not configured, or under
another model id: a job never runs on another model), or a tool this host
lacks. After a model failure the worker says so once and takes no job for
30 seconds. A task that fails otherwise (its tools) lands its error note.
A worker killed mid-job has its jobs handed over after queue.worker_timeout;
Ctrl-C hands the running jobs back without spending an attempt, then exits.

--drain exits (0) once the queue has no job left to run, for one-off hosts
and CI. Progress (a line per job) goes to stderr, or JSON events to stdout
with --json.

Exit codes: 0 drained (--drain), 1 a failure, 2 usage error or an
unreachable queue database, 130 stopped (Ctrl-C).`,
		Example: `  # Run delegations from the queue, four at a time
  yagent worker --queue postgres://yagent@db:5432/yagent --concurrency 4

  # Work until the queue is empty, then exit
  yagent worker --queue postgres://yagent@db:5432/yagent --drain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return workerRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	opts.Agent.registerIO(fl)
	fl.Lookup("allow-shell").Usage = "let sub-agents use the shell tool (a worker has no terminal to ask)"
	fl.StringVar(&opts.Queue, "queue", "", "the PostgreSQL database of the queue, postgres://user@host:5432/db (default queue.dsn)")
	fl.Var(&opts.Concurrency, "concurrency", "delegations run at once (default queue.concurrency)")
	fl.BoolVar(&opts.Drain, "drain", false, "exit once the queue has no job left to run")
	return cmd
}

func workerRun(ctx context.Context, f *Factory, opts *workerOptions) error {
	var sink agents.Sink = printer.NoticeLog(f.IO.ErrOut)
	if opts.Agent.JSON {
		sink = printer.NewJSON(f.IO.Out, f.IO.ErrOut)
	}
	notices := printer.OnlyNotices(sink)
	q, err := openQueue(ctx, f, opts.Queue)
	if err != nil {
		return err
	}
	defer q.Close()
	name := queue.WorkerName()
	// The worker's runtime is assembled without a session (nothing is
	// persisted by a worker that finds no job) and without a model
	// endpoint checked up front: a job names its model, and one this host
	// cannot reach fails that job, not the worker.
	s, err := openRun(ctx, f, &opts.Agent, sessionRequest{Kind: memory.KindBatch, Sink: notices, Inspect: true})
	if err != nil {
		return err
	}
	defer s.close()
	runner := s.run.JobRunner()
	concurrency := q.Concurrency(int(opts.Concurrency))
	sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "worker",
		Text: fmt.Sprintf("worker %s on %s: %d at once, workspace %s", name, q.Addr(), concurrency, runner.Workspace.Dir())})
	return q.Serve(ctx, queue.WorkerOptions{Runner: runner, Concurrency: concurrency, Name: name, Events: notices, Drain: opts.Drain,
		Models: s.run.Clients.Settings})
}

// openQueue opens the queue flag names, else queue.dsn (exit 2 without one).
func openQueue(ctx context.Context, f *Factory, flag string) (*queue.Queue, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return queue.OpenConfigured(ctx, cfg.Queue, flag, f.IO.ErrOut, true)
}

// NewCmdWorkers builds `yagent workers`.
func NewCmdWorkers(f *Factory) *cobra.Command {
	var flag string
	cmd := &cobra.Command{
		Use:   "workers [--queue postgres://…]",
		Short: "List a River queue's workers, their heartbeats and running jobs",
		Long: `List the workers with a heartbeat on the queue (--queue, else queue.dsn), their last
beat and running jobs; one silent past queue.worker_timeout is marked so.
Exit codes: 0 listed, 1 a failure, 2 usage error or an unreachable queue database.`,
		Example: "  # The workers of queue.dsn, each with its jobs\n  yagent workers",
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := openQueue(cmd.Context(), f, flag)
			if err != nil {
				return err
			}
			defer q.Close()
			return q.PrintWorkers(cmd.Context(), f.IO.Out, f.Now())
		},
	}
	cmd.Flags().StringVar(&flag, "queue", "", "the PostgreSQL database of the queue (default queue.dsn)")
	return cmd
}
