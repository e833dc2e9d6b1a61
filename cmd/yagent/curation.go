package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/sleep"
)

// openCurator opens the selected session with its curator: to inspect it
// (fl nil) or, with fl, to work in it; curation being off is sleep.ErrOff.
func openCurator(ctx context.Context, f *Factory, t *sessionTarget, fl *agentFlags) (*session, *sleep.Curator, error) {
	s, err := t.open(ctx, f, fl)
	if err != nil {
		return nil, nil, err
	}
	cur := s.d.Curator()
	if cur == nil {
		s.close()
		return nil, nil, sleep.ErrOff
	}
	return s, cur, nil
}

// sleepOptions are the inputs of `yagent sleep`.
type sleepOptions struct {
	Target sessionTarget
	Agent  agentFlags
	DryRun bool
}

// NewCmdSleep builds `yagent sleep`.
func NewCmdSleep(f *Factory) *cobra.Command {
	opts := &sleepOptions{}
	cmd := &cobra.Command{
		Use:   "sleep [--session ID|--last] [--dry-run]",
		Short: "Curate a session's tool list now, from its usage (normally done on a schedule)",
		Long: `Curate a session's tool list now instead of waiting for its due time. The
thresholds stay: if the reachable tools fit chat_sleep.tools.budget_percent
of the model's window, or the statistics hold too few turns, it says why and
calls no model. With --dry-run the plan goes to the journal only.`,
		Example: `  # Curate this directory's newest session now
  yagent sleep

  # Show what would change in a session, without changing it
  yagent sleep --session 20261201T101500-3f2a1c --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return sleepRun(cmd.Context(), f, opts) },
	}
	opts.Target.register(cmd)
	opts.Agent.register(cmd.Flags())
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "write the plan to the journal only")
	cmd.AddCommand(NewCmdSleepRuns(f))
	return cmd
}

func sleepRun(ctx context.Context, f *Factory, opts *sleepOptions) error {
	s, cur, err := openCurator(ctx, f, &opts.Target, &opts.Agent)
	if err != nil {
		return err
	}
	defer s.close()
	run, err := cur.Run(ctx, s.sess.ID(), sleep.Options{DryRun: opts.DryRun, Manual: true,
		Progress: func(p string) { fmt.Fprintln(f.IO.ErrOut, "· "+p) }})
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, sleep.Report(run))
	return run.Err()
}

// sleepRunsOptions are the inputs of `yagent sleep runs`.
type sleepRunsOptions struct {
	Session string
	JSON    bool
}

// NewCmdSleepRuns builds `yagent sleep runs`.
func NewCmdSleepRuns(f *Factory) *cobra.Command {
	opts := &sleepRunsOptions{}
	cmd := &cobra.Command{
		Use:   "runs [--session ID] [--json]",
		Short: "The curation journal, newest first, with +added/−removed per run",
		Example: `  # The curation journal of every session
  yagent sleep runs

  yagent sleep runs --session 20261201T101500-3f2a1c --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return sleepRunsRun(cmd.Context(), f, opts) },
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "only this session's runs")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, chat_id, started, finished, status, reason, dry_run, added, removed, plan}]")
	return cmd
}

func sleepRunsRun(ctx context.Context, f *Factory, opts *sleepRunsOptions) error {
	sessions, err := f.Sessions(ctx)
	if err != nil {
		return err
	}
	id := func(ctx context.Context, ref string) (string, error) {
		in, err := sessions.Get(ctx, ref)
		return in.ID, err
	}
	runs, err := (&sleep.Store{DB: sessions.DB, Now: f.Now}).RunsOf(ctx, opts.Session, id, 100)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, nonNil(runs))
	}
	_, err = io.WriteString(f.IO.Out, sleep.RunsText(runs))
	return err
}

// NewCmdTools builds `yagent tools`.
func NewCmdTools(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Inspect and steer a session's tool list (curation)",
		Example: `  yagent tools profile
  yagent tools stats --window 7`,
	}
	cmd.AddCommand(NewCmdToolsProfile(f), NewCmdToolsStats(f), NewCmdToolsPin(f), NewCmdToolsSet(f), NewCmdToolsReset(f))
	return cmd
}

// toolsProfileOptions are the inputs of `yagent tools profile`.
type toolsProfileOptions struct {
	Target sessionTarget
	JSON   bool
}

// NewCmdToolsProfile builds `yagent tools profile`.
func NewCmdToolsProfile(f *Factory) *cobra.Command {
	opts := &toolsProfileOptions{}
	cmd := &cobra.Command{
		Use:   "profile [--session ID|--last] [--json]",
		Short: "What a session sees by default: visible (stored), effective (expanded), in_context and reachable counts",
		Example: `  # What this directory's newest session sees
  yagent tools profile

  yagent tools profile --session 20261201T101500-3f2a1c --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return toolsProfileRun(cmd.Context(), f, opts) },
	}
	opts.Target.register(cmd)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {session, visible, effective, pinned, curated, in_context, reachable} (the counts are null before the session ran; neither counts tool_find/tool_load)")
	return cmd
}

func toolsProfileRun(ctx context.Context, f *Factory, opts *toolsProfileOptions) error {
	s, cur, err := openCurator(ctx, f, &opts.Target, nil)
	if err != nil {
		return err
	}
	defer s.close()
	v, err := cur.Overview(ctx, s.sess.ID())
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, v)
	}
	_, err = io.WriteString(f.IO.Out, v.Text())
	return err
}

// toolsStatsOptions are the inputs of `yagent tools stats`.
type toolsStatsOptions struct {
	Target sessionTarget
	Window flagvalue.Count
	JSON   bool
}

// NewCmdToolsStats builds `yagent tools stats`.
func NewCmdToolsStats(f *Factory) *cobra.Command {
	opts := &toolsStatsOptions{}
	cmd := &cobra.Command{
		Use:   "stats [--session ID|--last] [--window N] [--json]",
		Short: "The usage statistics a curation model sees: coverage and calls per tool, per window",
		Example: `  # Calls per tool over the last 7 days of this session
  yagent tools stats --window 7

  yagent tools stats --session 20261201T101500-3f2a1c --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return toolsStatsRun(cmd.Context(), f, opts) },
	}
	opts.Target.register(cmd)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {windows: [{days, turns, messages, active_days, thin}], tools: [{name, coverage, calls, loads}], total_turns, span_days}")
	cmd.Flags().Var(&opts.Window, "window", "one window of N days instead of chat_sleep.tools.windows")
	return cmd
}

func toolsStatsRun(ctx context.Context, f *Factory, opts *toolsStatsOptions) error {
	s, cur, err := openCurator(ctx, f, &opts.Target, nil)
	if err != nil {
		return err
	}
	defer s.close()
	table, err := cur.Stats(ctx, s.sess.ID(), sleep.Windows(int(opts.Window)))
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, table)
	}
	fmt.Fprint(f.IO.Out, table.Text())
	return nil
}

// toolsEditOptions are the inputs of `yagent tools pin|set|reset`.
type toolsEditOptions struct {
	Edit   string // pin, set or reset
	Target sessionTarget
	Names  []string
	Off    bool
}

// NewCmdToolsPin builds `yagent tools pin`.
func NewCmdToolsPin(f *Factory) *cobra.Command {
	opts := &toolsEditOptions{Edit: "pin"}
	cmd := &cobra.Command{
		Use:   "pin TOOL… [--off] [--session ID|--last]",
		Short: "Pin tools so no curation hides them (a pin alone does not start curation)",
		Example: `  # Keep shell and grep visible whatever curation decides
  yagent tools pin shell grep

  # Unpin
  yagent tools pin shell --off`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			return toolsEditRun(cmd.Context(), f, opts)
		},
	}
	opts.Target.register(cmd)
	cmd.Flags().BoolVar(&opts.Off, "off", false, "unpin")
	return cmd
}

// NewCmdToolsSet builds `yagent tools set`.
func NewCmdToolsSet(f *Factory) *cobra.Command {
	opts := &toolsEditOptions{Edit: "set"}
	cmd := &cobra.Command{
		Use:   "set TOOL|set:NAME|family:NAME… [--session ID|--last]",
		Short: "Set a session's visible tools by hand (core and pinned tools stay)",
		Example: `  # Show only these tools (core and pinned tools stay)
  yagent tools set read_file grep glob

  # A configured toolset and a tool family
  yagent tools set set:review family:kb --session 20261201T101500-3f2a1c`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			return toolsEditRun(cmd.Context(), f, opts)
		},
	}
	opts.Target.register(cmd)
	return cmd
}

// NewCmdToolsReset builds `yagent tools reset`.
func NewCmdToolsReset(f *Factory) *cobra.Command {
	opts := &toolsEditOptions{Edit: "reset"}
	cmd := &cobra.Command{
		Use:   "reset [--session ID|--last]",
		Short: "Remove a session's curation: it sees every reachable tool again (pins stay)",
		Example: `  yagent tools reset

  yagent tools reset --session 20261201T101500-3f2a1c`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return toolsEditRun(cmd.Context(), f, opts) },
	}
	opts.Target.register(cmd)
	return cmd
}

// toolsEditRun applies one hand edit to the session's profile and prints
// the profile it leaves.
func toolsEditRun(ctx context.Context, f *Factory, opts *toolsEditOptions) error {
	s, cur, err := openCurator(ctx, f, &opts.Target, nil)
	if err != nil {
		return err
	}
	defer s.close()
	p, err := cur.Edit(ctx, s.sess.ID(), opts.Edit, opts.Names, !opts.Off)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f.IO.Out, p.EditText(s.sess.ID()))
	return err
}
