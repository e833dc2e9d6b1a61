package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/demo"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/memory"
)

// demoOptions are the inputs of `yagent demo`.
type demoOptions struct {
	JSON bool
	Dir  flagvalue.Dir
	Keep bool
}

// NewCmdDemo builds `yagent demo`.
func NewCmdDemo(f *Factory) *cobra.Command {
	opts := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch yagent work offline: the bundled scripted model on a sample workspace",
		Long: `Run yagent's main job offline, anywhere: the director splits a question
between two sub-agents running in parallel, both handoffs land on the board
"demo", the director reads one back and answers, and the board is listed.

The model is the scripted scenario bundled in yagent (--replay demo), not a
live LLM: its replies are fixed, the tools really run. It works in a
throwaway directory holding a sample workspace (--cd: a directory of yours
instead) and a throwaway home, so neither your configuration nor your
sessions are read or touched; both are removed afterwards unless --keep.`,
		Example: `  # The whole flow, offline, from any directory
  yagent demo

  # Keep the home and the sample workspace to look around afterwards
  yagent demo --keep

  # The event stream a script would read
  yagent demo --json`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{noConfigAnnotation: "true"}, // a home of its own: yours is never read
		RunE:        func(cmd *cobra.Command, _ []string) error { return demoRun(cmd.Context(), f, opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON event per line")
	cmd.Flags().Var(&opts.Dir, "cd", "run in this directory instead of the sample workspace (read-only use)")
	cmd.Flags().BoolVar(&opts.Keep, "keep", false, "keep the throwaway home and workspace, and say where they are")
	return cmd
}

func demoRun(ctx context.Context, f *Factory, opts *demoOptions) (err error) {
	place, err := demo.NewPlace(string(opts.Dir))
	if err != nil {
		return err
	}
	if !opts.Keep {
		defer func() {
			if rerr := place.Remove(); rerr != nil {
				fmt.Fprintf(f.IO.ErrOut, "yagent: warning: remove the demo's directory %s: %v\n", place.Root, rerr)
			}
		}()
	}
	// The demo's own home: the configuration is read (lazily, on first
	// use, which is after this) from there, never from $YAGENT_HOME.
	f.Getenv = place.Getenv(f.Getenv)
	fl := &agentFlags{JSON: opts.JSON, Dir: flagvalue.Dir(place.Workspace)}
	if err := fl.Replay.Set(demo.Replay); err != nil {
		return err
	}
	s, err := openSession(ctx, f, fl, sessionRequest{Kind: memory.KindRun, Board: demo.Board})
	if err != nil {
		return err
	}
	defer s.close()
	s.noHint = true
	if err := oneTurn(ctx, f, s, demo.Prompt, false, nil, nil); err != nil {
		return err
	}
	if opts.JSON {
		return nil
	}
	store, err := f.Board()
	if err != nil {
		return err
	}
	res, err := store.ListNotes(demo.Board, blackboard.ListOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "board %s: %d notes\n", demo.Board, len(res.Notes))
	for _, m := range res.Notes {
		fmt.Fprintf(f.IO.ErrOut, "  %s [%s] %s\n", m.Ref, m.Status, brief.Line(m.Conclusion, 100))
	}
	if opts.Keep {
		fmt.Fprintf(f.IO.ErrOut, "kept in %s: YAGENT_HOME=%s yagent board ls --board %s\n", place.Root, place.Home, demo.Board)
	} else {
		fmt.Fprintln(f.IO.ErrOut, "the demo's home and workspace are removed (--keep keeps them)")
	}
	return nil
}
