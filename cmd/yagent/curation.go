package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/sleep"
)

// sessionFlags select a session for the curation commands.
type sessionFlags struct {
	Session string
	Last    bool
	JSON    bool
}

func (s *sessionFlags) register(cmd *cobra.Command, jsonHelp string) {
	cmd.Flags().StringVar(&s.Session, "session", "", "the session (id, id prefix or name); default: this directory's newest")
	cmd.Flags().BoolVar(&s.Last, "last", false, "this directory's newest session (the default)")
	if jsonHelp != "" {
		cmd.Flags().BoolVar(&s.JSON, "json", false, jsonHelp)
	}
}

// open opens the selected session for inspection (no model needed).
func (s *sessionFlags) open(ctx context.Context, f *Factory, inspect bool, fl *agentFlags) (*session, error) {
	ref := s.Session
	if ref == "" {
		st, err := f.Sessions(ctx)
		if err != nil {
			return nil, err
		}
		cwd, err := workspaceDir(f, &agentFlags{})
		if err != nil {
			return nil, err
		}
		in, err := st.Last(ctx, cwd)
		if err != nil {
			return nil, &usageError{err}
		}
		ref = in.ID
	}
	if fl == nil {
		fl = &agentFlags{}
	}
	return openSession(ctx, f, fl, sessionRequest{Resume: ref, Inspect: inspect, Sink: agents.Discard})
}

// openCuration opens the selected session for inspection with its
// curation tables; curation being off is a usage error.
func (s *sessionFlags) openCuration(ctx context.Context, f *Factory) (*session, *sleep.Store, error) {
	sess, err := s.open(ctx, f, true, nil)
	if err != nil {
		return nil, nil, err
	}
	st := sess.d.SleepStore()
	if st == nil {
		sess.close()
		return nil, nil, usagef("tool curation is off (chat_sleep.enabled: false)")
	}
	return sess, st, nil
}

// NewCmdSleep builds `yagent sleep`.
func NewCmdSleep(f *Factory) *cobra.Command {
	sf := &sessionFlags{}
	fl := &agentFlags{}
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "sleep [--session ID|--last] [--dry-run]",
		Short: "Curate a session's tool list now, from its usage (normally done on a schedule)",
		Long: `Curate a session's tool list now instead of waiting for its due time. The
thresholds stay: if the reachable tools fit chat_sleep.tools.budget_percent
of the model's window, or the statistics hold too few turns, it says why and
calls no model. With --dry-run the plan goes to the journal only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := sf.open(ctx, f, false, fl)
			if err != nil {
				return err
			}
			defer s.close()
			cur := s.d.Curator()
			if cur == nil {
				return usagef("tool curation is off (chat_sleep.enabled: false)")
			}
			run, err := cur.Run(ctx, s.sess.ID(), sleep.Options{DryRun: dryRun, Manual: true,
				Progress: func(p string) { fmt.Fprintln(f.IO.ErrOut, "· "+p) }})
			if errors.Is(err, sleep.ErrRunning) {
				return usagef("%v", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(f.IO.Out, sleep.Report(run))
			if run.Status == "failed" {
				return fmt.Errorf("curation failed: %s", run.Reason)
			}
			return nil
		},
	}
	sf.register(cmd, "")
	fl.register(cmd.Flags())
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "write the plan to the journal only")
	cmd.AddCommand(newCmdSleepRuns(f))
	return cmd
}

func newCmdSleepRuns(f *Factory) *cobra.Command {
	var asJSON bool
	var sessionRef string
	cmd := &cobra.Command{
		Use:   "runs [--session ID] [--json]",
		Short: "The curation journal, newest first, with +added/−removed per run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			sessions, err := f.Sessions(ctx)
			if err != nil {
				return err
			}
			chatID := ""
			if sessionRef != "" {
				in, err := sessions.Get(ctx, sessionRef)
				if err != nil {
					return &usageError{err}
				}
				chatID = in.ID
			}
			st := &sleep.Store{DB: sessions.DB, Now: f.Now}
			runs, err := st.Runs(ctx, chatID, 100)
			if err != nil {
				return err
			}
			if asJSON {
				if runs == nil {
					runs = []sleep.Run{}
				}
				return writeJSON(f.IO.Out, runs)
			}
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STARTED\tSESSION\tSTATUS\tCHANGE\tREASON")
			for _, r := range runs {
				status := r.Status
				if r.DryRun {
					status += " (dry run)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Started.Local().Format(time.DateTime), r.ChatID, status, r.Summary(), oneLine(r.Reason, 80))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&sessionRef, "session", "", "only this session's runs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: [{id, chat_id, started, finished, status, reason, dry_run, added, removed, plan}]")
	return cmd
}

// NewCmdTools builds `yagent tools`.
func NewCmdTools(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "Inspect and steer a session's tool list (curation)", Args: cobra.ArbitraryArgs, RunE: groupRunE}
	cmd.AddCommand(newCmdToolsProfile(f), newCmdToolsStats(f), newCmdToolsPin(f), newCmdToolsSet(f), newCmdToolsReset(f))
	return cmd
}

// profileView is `tools profile`'s answer.
type profileView struct {
	Session   string   `json:"session"`
	Visible   []string `json:"visible"`
	Effective []string `json:"effective"`
	Pinned    []string `json:"pinned"`
	Curated   bool     `json:"curated"`
	InContext *int     `json:"in_context"`
	Reachable *int     `json:"reachable"`
}

func newCmdToolsProfile(f *Factory) *cobra.Command {
	sf := &sessionFlags{}
	cmd := &cobra.Command{
		Use:   "profile [--session ID|--last] [--json]",
		Short: "What a session sees by default: visible (stored), effective (expanded), in_context and reachable counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, st, err := sf.openCuration(ctx, f)
			if err != nil {
				return err
			}
			defer s.close()
			p, err := st.Profile(ctx, s.sess.ID())
			if err != nil {
				return err
			}
			v := profileView{Session: s.sess.ID(), Visible: p.Visible, Pinned: p.Pinned, Curated: p.Curated, Effective: []string{}}
			cfg, _ := f.Config()
			eff := append(append(slices.Clone(p.Visible), cfg.ChatSleep.Tools.Core...), p.Pinned...)
			if p.Curated {
				v.Effective = sortedKeys(sleep.Expand(eff, s.d.Registry().Reachable(agents.Gates{Master: true, NotesIndexed: true}), cfg.Toolsets))
			}
			if env, ok, err := st.LoadEnv(ctx, s.sess.ID()); err == nil && ok {
				var reach []*agents.Tool
				seen := map[string]bool{}
				for _, g := range sleep.GatesFrom(env.Gates) {
					for _, t := range s.d.Registry().Reachable(g) {
						if !seen[t.Name] {
							seen[t.Name] = true
							reach = append(reach, t)
						}
					}
				}
				in, _ := sleep.Split(p, reach, cfg.ChatSleep.Tools.Core, cfg.Toolsets)
				r, i := len(reach), len(in)
				v.Reachable, v.InContext = &r, &i
			}
			if sf.JSON {
				return writeJSON(f.IO.Out, v)
			}
			w := f.IO.Out
			fmt.Fprintf(w, "session:    %s\ncurated:    %v\nvisible:    %s\npinned:     %s\n", v.Session, v.Curated, listOrDash(v.Visible), listOrDash(v.Pinned))
			if v.Reachable == nil {
				fmt.Fprintln(w, "in context: - (the session has not run a turn yet)\nreachable:  -")
			} else {
				fmt.Fprintf(w, "in context: %d\nreachable:  %d\n", *v.InContext, *v.Reachable)
			}
			return nil
		},
	}
	sf.register(cmd, "print JSON: {session, visible, effective, pinned, curated, in_context, reachable} (the counts are null before the session ran)")
	return cmd
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func listOrDash(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}

func newCmdToolsStats(f *Factory) *cobra.Command {
	sf := &sessionFlags{}
	var window int
	cmd := &cobra.Command{
		Use:   "stats [--session ID|--last] [--window N] [--json]",
		Short: "The usage statistics a curation model sees: coverage and calls per tool, per window",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, st, err := sf.openCuration(ctx, f)
			if err != nil {
				return err
			}
			defer s.close()
			cfg, _ := f.Config()
			windows := cfg.ChatSleep.Tools.Windows
			if window > 0 {
				windows = []int{window}
			}
			p, _ := st.Profile(ctx, s.sess.ID())
			tools := agents.Names(s.d.Registry().Reachable(agents.Gates{Master: true, NotesIndexed: true}))
			table, err := st.Stats(ctx, s.sess.ID(), tools, windows, cfg.ChatSleep.Tools.ThinTurns, p.LastCurated)
			if err != nil {
				return err
			}
			if sf.JSON {
				return writeJSON(f.IO.Out, table)
			}
			fmt.Fprint(f.IO.Out, table.Text())
			return nil
		},
	}
	sf.register(cmd, "print JSON: {windows: [{days, turns, messages, active_days, thin}], tools: [{name, coverage, calls, loads}], total_turns, span_days}")
	cmd.Flags().IntVar(&window, "window", 0, "one window of N days instead of chat_sleep.tools.windows")
	return cmd
}

func editProfile(f *Factory, sf *sessionFlags, edit func(p *sleep.Profile, names map[string]bool) error) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		s, st, err := sf.openCuration(ctx, f)
		if err != nil {
			return err
		}
		defer s.close()
		p, err := st.Profile(ctx, s.sess.ID())
		if err != nil {
			return err
		}
		names := map[string]bool{}
		for _, t := range s.d.Registry().Reachable(agents.Gates{Master: true, NotesIndexed: true}) {
			names[t.Name] = true
		}
		for _, a := range args {
			if !names[a] && !strings.HasPrefix(a, "set:") && !strings.HasPrefix(a, "family:") {
				return usagef("%q is not a tool of this session (yagent tools stats lists them)", a)
			}
		}
		if err := edit(&p, names); err != nil {
			return err
		}
		if err := st.SaveProfile(ctx, s.sess.ID(), p); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.Out, "profile of %s: curated %v, visible %s, pinned %s (from the next turn)\n", s.sess.ID(), p.Curated, listOrDash(p.Visible), listOrDash(p.Pinned))
		return nil
	}
}

func newCmdToolsPin(f *Factory) *cobra.Command {
	sf := &sessionFlags{}
	var off bool
	cmd := &cobra.Command{
		Use:   "pin TOOL… [--off] [--session ID|--last]",
		Short: "Pin tools so no curation hides them (a pin alone does not start curation)",
		Args:  cobra.MinimumNArgs(1),
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return editProfile(f, sf, func(p *sleep.Profile, _ map[string]bool) error {
			for _, a := range args {
				i := slices.Index(p.Pinned, a)
				switch {
				case off && i >= 0:
					p.Pinned = slices.Delete(p.Pinned, i, i+1)
				case !off && i < 0:
					p.Pinned = append(p.Pinned, a)
				}
			}
			return nil
		})(cmd, args)
	}
	sf.register(cmd, "")
	cmd.Flags().BoolVar(&off, "off", false, "unpin")
	return cmd
}

func newCmdToolsSet(f *Factory) *cobra.Command {
	sf := &sessionFlags{}
	cmd := &cobra.Command{
		Use:   "set TOOL|set:NAME|family:NAME… [--session ID|--last]",
		Short: "Set a session's visible tools by hand (core and pinned tools stay)",
		Args:  cobra.MinimumNArgs(1),
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return editProfile(f, sf, func(p *sleep.Profile, _ map[string]bool) error {
			p.Visible, p.Curated = slices.Clone(args), true
			return nil
		})(cmd, args)
	}
	sf.register(cmd, "")
	return cmd
}

func newCmdToolsReset(f *Factory) *cobra.Command {
	sf := &sessionFlags{}
	cmd := &cobra.Command{
		Use:   "reset [--session ID|--last]",
		Short: "Remove a session's curation: it sees every reachable tool again (pins stay)",
		Args:  cobra.NoArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return editProfile(f, sf, func(p *sleep.Profile, _ map[string]bool) error {
			p.Visible, p.Curated = []string{}, false
			return nil
		})(cmd, args)
	}
	sf.register(cmd, "")
	return cmd
}
