package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/printer"
	"github.com/yagent/yagent/queue"
)

// batchOptions are the inputs of `yagent batch`.
type batchOptions struct {
	PlanFile string
	Parallel flagvalue.Count
	Board    string
	Resume   bool
	DryRun   bool
	Queue    string     // --queue: a PostgreSQL DSN (overrides queue.dsn)
	Agent    agentFlags // --json, --replay, --allow-shell, --sandbox, --cd
}

// NewCmdBatch builds `yagent batch`.
func NewCmdBatch(f *Factory) *cobra.Command {
	opts := &batchOptions{}
	cmd := &cobra.Command{
		Use:   "batch PLAN.yaml [flags]",
		Short: "Run a plan of delegations with dependencies; handoffs land on a board",
		Long: `Run a batch plan: a YAML file listing delegations (id, agent, task,
depends_on, context_refs, optional model and max_steps) that run without a
director deciding in between. A delegation starts once everything it
depends on succeeded (ok or partial), at most --parallel at once; one whose
dependency failed is skipped. context_refs names earlier delegations by id
(their notes are inlined in full) or notes already on the board as
{agent}/{stem}. The format is in README.md, "Batch plans".

The plan is checked before anything runs — unknown agents, dependency
cycles, duplicate or missing ids, unknown refs, bad YAML — and every
problem is listed at once (exit 2, nothing started, nothing written).

Progress goes to stderr (a line per start and finish, a progress bar on a
terminal), then a table on stdout: id, agent, status, ref, conclusion,
tokens, time. With --json, stdout carries one JSON event per line instead
(README.md, "Batch JSON"). Ctrl-C stops scheduling, abandons the running
delegations (they write nothing) and reports what ran. --resume skips the
delegations whose notes (key batch:<id>, status ok or partial) are already
on the board and reruns the rest.

With --queue postgres://… (or queue.dsn in the configuration) the plan is
checked the same way, then each delegation becomes a River job on that
PostgreSQL database as soon as its dependencies are done, and yagent worker
processes on any host run them; this process lands every handoff on the
board (README.md, "Scaling out"). There --parallel bounds the jobs in
flight (default: no bound — the workers' --concurrency is the bound),
Ctrl-C cancels the queued and running jobs, and --resume reattaches to the
unfinished run of the same plan and board and collects what finished
meanwhile. A job whose worker's model fails (a 5xx, a timeout, a bad key)
or lacks the delegation's model is retried on another worker, one killed
mid-job after queue.worker_timeout without heartbeats, up to max_attempts;
the last failure lands as one degraded note listing every attempt and its worker.

One yagent batch owns a plan run at a time: another of the same plan and
board (with or without --resume, queued or not) is refused (exit 2), naming
the holder, until the holder's lease (queue.lease, default 30s) expires; a
batch that cannot renew its lease stops at once and exits 1.

The board is the plan's board, else --board, else a new one. --replay FILE
serves a scripted scenario instead of the model (offline; labelled as a
replay). Shell commands need --allow-shell without a terminal to ask.

Exit codes: 0 every delegation ok or partial, 1 any other outcome (a lost
lease too), 2 an invalid plan, usage error, an unreachable queue database or
a plan run another batch holds, 130 cancelled.`,
		Example: `  # Run a plan; its handoffs land on the plan's board
  yagent batch release-audit.yaml --allow-shell

  # Four delegations at a time, continuing a run that was interrupted
  yagent batch plan.yaml --parallel 4 --resume

  # What it would cost, before it runs
  yagent batch plan.yaml --dry-run

  # Spread the delegations over workers (yagent worker) through PostgreSQL
  yagent batch plan.yaml --queue postgres://yagent@db:5432/yagent`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.PlanFile = args[0]
			return batchRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	opts.Agent.registerIO(fl)
	opts.Agent.Budget.Register(fl)
	fl.Lookup("allow-shell").Usage = "let sub-agents use the shell tool without a terminal to ask"
	fl.Var(&opts.Parallel, "parallel", "sub-agents at once (overrides the plan's parallel; default agents.max_parallel_delegations)")
	fl.StringVar(&opts.Board, "board", "", "board for the handoffs when the plan names none")
	fl.BoolVar(&opts.Resume, "resume", false, "skip delegations whose notes are already on the board")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check the plan and print an estimate of its tokens and cost (from past runs on the board, else the step budgets); run nothing")
	fl.StringVar(&opts.Queue, "queue", "", "run the delegations on yagent workers through River on this PostgreSQL database (default queue.dsn)")
	return cmd
}

func batchRun(ctx context.Context, f *Factory, opts *batchOptions) error {
	plan, err := batch.ReadPlan(opts.PlanFile)
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	store, err := f.Board()
	if err != nil {
		return err
	}
	if !store.Enabled() {
		return fmt.Errorf("%w and a batch plan's handoffs go there: unset it to run plans", blackboard.ErrDisabled)
	}
	// The run is a session of kind batch; its board is the plan's, else
	// --board, else the session's own.
	sessionID := memory.NewID(f.Now())
	board, err := plan.ChooseBoard(opts.Board, sessionID)
	if err != nil {
		return err
	}
	dir, err := workspaceDir(f, &opts.Agent)
	if err != nil {
		return err
	}
	// Check the plan before anything else happens: an invalid plan starts
	// nothing and writes nothing, whatever else is missing.
	catalog := agents.LoadCatalog(agents.Sources{Workspace: dir, Home: cfg.Home, UserHome: cfg.UserHome}, nil)
	models := slices.Sorted(maps.Keys(cfg.Models))
	if err := plan.Validate(batch.PlanEnv{Catalog: catalog, Board: store, BoardID: board, Models: models}); err != nil {
		return err
	}
	if opts.DryRun {
		return plan.Estimate(batch.EstimateEnv{Config: cfg, Catalog: catalog, Board: store, BoardID: board}).Write(f.IO.Out)
	}

	// A queue is opened before anything else runs: an unreachable one is
	// the person's to fix (exit 2). The coordinator runs no model, so it
	// needs no endpoint of its own.
	q, err := queue.OpenConfigured(ctx, cfg.Queue, opts.Queue, f.IO.ErrOut, false)
	if err != nil {
		return err
	}
	defer q.Close()

	sink, human := printer.BatchSink(opts.Agent.JSON, f.IO.Out, f.IO.ErrOut, f.IO.ErrTTY)
	// The director's own events (sub-agents' tool calls, text) stay out of
	// the batch output; its notices (the replay label, recoveries) go in.
	s, err := openSession(ctx, f, &opts.Agent, sessionRequest{Kind: memory.KindBatch, ID: sessionID, Board: board, Sink: printer.OnlyNotices(sink), Title: "batch " + opts.PlanFile, Inspect: q != nil})
	if err != nil {
		return err
	}
	defer s.close()
	parallel := int(opts.Parallel)
	bopts := batch.Options{Runner: s.d.SubRunner(), Board: board, Resume: opts.Resume, Events: s.dr.BatchHooks(ctx, sink), Now: f.Now, Check: s.run.CheckGoal}
	var coord *queue.Coordinator
	// The run's lease (lost, the batch stops) and the ledger its spend is
	// summed in across processes: queue's, else state.db's.
	var owner interface{ LeaseErr() error }
	var ledger budget.Ledger
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if q != nil {
		coord, err = q.Coordinate(ctx, queue.CoordinatorOptions{Runner: s.d.SubRunner(), Board: board, Plan: opts.PlanFile,
			Digest: plan.Digest(), Resume: opts.Resume, Events: sink, Models: s.run.Clients.Settings, OnLost: func(error) { stop() }})
		if err != nil {
			return err
		}
		bopts.Executor, owner, ledger = coord, coord, q.Ledger()
	} else {
		db := s.sess.Store().DB.DB // state.db, where the sessions are
		lease, err := batch.AcquireLease(ctx, db, batch.LeaseOptions{Board: board, Plan: opts.PlanFile, Digest: plan.Digest(),
			Duration: cfg.Queue.Lease.D(), OnLost: func(error) { stop() }})
		if err != nil {
			return err
		}
		defer lease.Release()
		owner, ledger = lease, budget.SQLite{DB: db}
		if parallel == 0 && plan.Parallel == 0 {
			parallel = cfg.Agents.MaxParallelDelegations
		}
	}
	bopts.Parallel = parallel
	ctx = app.WithBudget(ctx, ledger, "batch:"+s.sess.ID(), app.RunBudget(cfg.Budget, opts.Agent.Budget.Limits(), plan.Budget))
	spent := app.MeterSpend(ctx)
	rep, err := batch.Run(ctx, plan, bopts)
	if coord != nil {
		coord.Close(err == nil && rep != nil && !rep.Cancelled)
	}
	leaseErr := owner.LeaseErr() // exit 1, not the cancel it caused
	err = cmp.Or(leaseErr, err)
	if rep == nil {
		if jp, ok := sink.(*printer.JSON); ok {
			jp.Result(f.Now(), (&batch.Report{}).Result(s.sess.ID(), err), spent(ctx))
		}
		return err
	}
	if human != nil {
		if werr := printer.BatchTable(f.IO.Out, rep); werr != nil && err == nil {
			err = werr
		}
		human.Finish(rep)
	}
	if err = app.BudgetStop(ctx, rep.Err(board, coord != nil, err)); leaseErr != nil {
		err = fmt.Errorf("batch stopped (%s): %w", rep.CountsText(), leaseErr)
	}
	if jp, ok := sink.(*printer.JSON); ok {
		jp.Result(f.Now(), rep.Result(s.sess.ID(), err), spent(ctx))
	}
	return err
}
