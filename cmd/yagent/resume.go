package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/chat"
	"github.com/yagent/yagent/memory"
)

// resumeOptions are the inputs of `yagent resume`.
type resumeOptions struct {
	Args  []string // [ID|NAME] [PROMPT], or [PROMPT] with --last
	Last  bool
	All   bool
	Agent agentFlags
	// AllowTruncated accepts an answer the model's output limit cut.
	AllowTruncated bool
}

// NewCmdResume builds `yagent resume`.
func NewCmdResume(f *Factory) *cobra.Command {
	opts := &resumeOptions{}
	cmd := &cobra.Command{
		Use:   `resume [ID|NAME] ["PROMPT"] | resume --last ["PROMPT"]`,
		Short: "Reopen an earlier session with its history and its board",
		Long: `Reopen an earlier session: its history is rebuilt from its rollout (the
latest compaction summary plus everything after it) and it reconnects to its
board. Delegations a killed process left running are recovered first: each
becomes one note with status degraded holding the sub-agent's last output.

With a PROMPT it runs one turn and exits (like yagent run --session);
without, it opens the session interactively. Without an ID, --last takes
this directory's newest session, else a picker lists them (--all: every
directory).

A session another yagent process is working in is refused (exit 1); --wait
waits for it instead.`,
		Example: `  # Pick a session of this directory and reopen it interactively
  yagent resume

  # The newest session here, one more turn
  yagent resume --last "And the error handling?"

  # A session by id or name
  yagent resume 20261201T101500-3f2a1c
  yagent resume storage-review "Write the summary to NOTES.md"`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			return resumeRun(cmd.Context(), f, opts)
		},
	}
	opts.Agent.register(cmd.Flags())
	cmd.Flags().BoolVarP(&opts.Agent.Verbose, "verbose", "v", false, "with a PROMPT: show each write's diff, each command's output and the reasoning")
	cmd.Flags().BoolVar(&opts.Last, "last", false, "the newest session of this directory")
	cmd.Flags().BoolVar(&opts.All, "all", false, "with --last or the picker: every directory")
	cmd.Flags().BoolVar(&opts.AllowTruncated, "allow-truncated", false, "with a PROMPT: exit 0 even when the answer was cut at the model's output limit")
	return cmd
}

func resumeRun(ctx context.Context, f *Factory, opts *resumeOptions) error {
	ref, prompt, err := resumeArgs(ctx, f, opts)
	if err != nil || ref == "" {
		return err
	}
	if prompt == "" {
		return chatRun(ctx, f, &chatOptions{Agent: opts.Agent, Resume: ref})
	}
	s, err := openSession(ctx, f, &opts.Agent, sessionRequest{Kind: memory.KindRun, Resume: ref})
	if err != nil {
		return err
	}
	defer s.close()
	return oneTurn(ctx, f, s, prompt, opts.AllowTruncated, nil, nil)
}

// resumeArgs resolves the session to resume ("" when the person picked
// none) and the prompt ("" = interactive).
func resumeArgs(ctx context.Context, f *Factory, opts *resumeOptions) (ref, prompt string, err error) {
	st, err := f.Sessions(ctx)
	if err != nil {
		return "", "", err
	}
	args := opts.Args
	if opts.Last {
		if len(args) > 1 {
			return "", "", usagef("--last takes the place of an ID: give at most a PROMPT")
		}
		fl := &opts.Agent
		if opts.All {
			fl = nil // every directory
		}
		in, err := lastSession(ctx, f, fl)
		if err != nil {
			return "", "", err
		}
		return in.ID, strings.Join(args, ""), nil // the PROMPT, when given
	}
	if len(args) > 0 {
		in, err := st.Get(ctx, args[0])
		if err != nil {
			return "", "", err
		}
		return in.ID, strings.Join(args[1:], ""), nil // the PROMPT, when given
	}
	if !f.IO.InTTY {
		return "", "", usagef("give a session id or name, or --last (yagent sessions ls lists them)")
	}
	rows, err := listSessions(ctx, f, opts.All, 20)
	if err != nil {
		return "", "", err
	}
	cfg, err := f.Config()
	if err != nil {
		return "", "", err
	}
	ref, err = chat.PickSession(ctx, useTUI(f), chat.PickIO{In: f.IO.In, Out: f.IO.Out, ErrOut: f.IO.ErrOut, TTY: f.IO.InTTY && f.IO.OutTTY}, cfg.Home, rows, opts.All)
	return ref, "", err
}
