package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/memory"
)

// BatchOptions are the inputs of `yagent batch`.
type BatchOptions struct {
	IO         *IOStreams
	PlanFile   string
	Parallel   int
	Board      string
	JSON       bool
	Resume     bool
	Replay     string
	AllowShell bool
	Sandbox    string
	Dir        string
	f          *Factory
}

// NewCmdBatch builds `yagent batch`.
func NewCmdBatch(f *Factory, runF func(*BatchOptions) error) *cobra.Command {
	opts := &BatchOptions{IO: f.IO, f: f}
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

The board is the plan's board, else --board, else a new one. --replay FILE
serves a scripted scenario instead of the model (offline; labelled as a
replay). Shell commands need --allow-shell without a terminal to ask.

Exit codes: 0 every delegation ok or partial, 1 any other outcome, 2 an
invalid plan or usage error, 130 cancelled.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.PlanFile = args[0]
			if runF != nil {
				return runF(opts)
			}
			return batchRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Parallel, "parallel", 0, "sub-agents at once (overrides the plan's parallel; default agents.max_parallel_delegations)")
	fl.StringVar(&opts.Board, "board", "", "board for the handoffs when the plan names none")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON event per line")
	fl.BoolVar(&opts.Resume, "resume", false, "skip delegations whose notes are already on the board")
	fl.StringVar(&opts.Replay, "replay", "", "serve the model from a scripted scenario file (offline)")
	fl.BoolVar(&opts.AllowShell, "allow-shell", false, "let sub-agents use the shell tool without a terminal to ask")
	fl.StringVar(&opts.Sandbox, "sandbox", "", "shell commands' OS sandbox: workspace-write, read-only or off (default agents.sandbox)")
	fl.StringVar(&opts.Dir, "cd", "", "workspace directory (default: the current directory)")
	return cmd
}

func batchRun(ctx context.Context, opts *BatchOptions) error {
	data, err := os.ReadFile(opts.PlanFile)
	if err != nil {
		return usagef("read plan: %w", err)
	}
	plan, err := director.ParsePlan(data, opts.PlanFile)
	if err != nil {
		return &usageError{err}
	}
	if opts.Parallel < 0 {
		return usagef("--parallel must be 1 or more")
	}
	cfg, err := opts.f.Config()
	if err != nil {
		return err
	}
	if !blackboard.Enabled() {
		return usagef("the blackboard is off (YAGENT_BLACKBOARD=0) and a batch plan's handoffs go there: unset it to run plans")
	}
	// The run is a session of kind batch; its board is the plan's, else
	// --board, else the session's own.
	sessionID := memory.NewID(opts.f.Now())
	board := plan.Board
	switch {
	case board != "" && opts.Board != "" && opts.Board != board:
		return usagef("the plan names board %q and --board names %q: drop one", board, opts.Board)
	case board == "" && opts.Board != "":
		if err := checkBoard(opts.Board); err != nil {
			return err
		}
		board = opts.Board
	case board == "":
		if board, err = agents.SetBoardScope(sessionID, ""); err != nil {
			return err
		}
	}
	store, err := opts.f.Board()
	if err != nil {
		return err
	}
	fl := &agentFlags{JSON: opts.JSON, Replay: opts.Replay, AllowShell: opts.AllowShell, Dir: opts.Dir, Sandbox: opts.Sandbox}
	dir, err := workspaceDir(opts.f, fl)
	if err != nil {
		return err
	}
	// Check the plan before anything else happens: an invalid plan starts
	// nothing and writes nothing, whatever else is missing.
	catalog, err := agents.LoadCatalog(dir, cfg.Home, nil)
	if err != nil {
		return err
	}
	models := make([]string, 0, len(cfg.Models))
	for name := range cfg.Models {
		models = append(models, name)
	}
	slices.Sort(models)
	if err := plan.Validate(director.PlanEnv{Catalog: catalog, Board: store, BoardID: board, Models: models}); err != nil {
		return &usageError{err}
	}

	var sink agents.Sink
	var human *batchPrinter
	if opts.JSON {
		sink = newJSONPrinter(opts.IO.Out)
	} else {
		human = newBatchPrinter(opts.IO.ErrOut, opts.IO.ErrTTY)
		sink = human
	}
	// The director's own events (sub-agents' tool calls, text) stay out of
	// the batch output; its notices (the replay label, recoveries) go in.
	notices := agents.SinkFunc(func(e agents.Event) {
		if e.Type == agents.EventNotice {
			sink.Emit(e)
		}
	})
	s, err := openSession(ctx, opts.f, fl, sessionRequest{Kind: memory.KindBatch, ID: sessionID, Board: board, Sink: notices, Title: "batch " + opts.PlanFile})
	if err != nil {
		return err
	}
	defer s.close()
	d := s.d
	parallel := opts.Parallel
	if parallel == 0 && plan.Parallel == 0 {
		parallel = cfg.Agents.MaxParallelDelegations
	}
	rep, err := director.RunPlan(ctx, plan, director.BatchOptions{
		Runner: d.SubRunner(), Board: board, Parallel: parallel, Resume: opts.Resume, Events: sink, Now: opts.f.Now,
	})
	if _, ok := errors.AsType[*director.PlanError](err); ok {
		return &usageError{err}
	}
	if rep == nil {
		return err
	}
	if human != nil {
		if werr := writeBatchTable(opts.IO.Out, rep); werr != nil && err == nil {
			err = werr
		}
		human.finish(rep)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("batch cancelled (%s): running delegations were abandoned and wrote nothing; --resume continues: %w", countsText(rep), err)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("%s did not succeed (%s): see the table, then yagent board show REF --board %s", failedCount(rep), countsText(rep), board)
	}
	return nil
}

func failedCount(rep *director.BatchReport) string {
	n := 0
	for i := range rep.Delegations {
		if !rep.Delegations[i].Succeeded() {
			n++
		}
	}
	return fmt.Sprintf("%d of %d delegations", n, len(rep.Delegations))
}

// countsText renders the counts by status in a fixed order:
// "2 ok, 1 error, 1 skipped".
func countsText(rep *director.BatchReport) string {
	counts := rep.Counts()
	var parts []string
	for _, s := range []string{"ok", "partial", "error", director.StatusSkipped, director.StatusAbandoned, director.StatusNotStarted} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
			delete(counts, s)
		}
	}
	rest := make([]string, 0, len(counts))
	for s, n := range counts {
		rest = append(rest, fmt.Sprintf("%d %s", n, s))
	}
	slices.Sort(rest)
	return strings.Join(append(parts, rest...), ", ")
}
