package main

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/memory"
)

// NewCmdResume builds `yagent resume`.
func NewCmdResume(f *Factory) *cobra.Command {
	fl := &agentFlags{}
	var last, all bool
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
directory).`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			ref, prompt, err := resumeArgs(ctx, f, args, last, all)
			if err != nil || ref == "" {
				return err
			}
			if prompt == "" {
				return chatRun(ctx, f, fl, ref)
			}
			s, err := openSession(ctx, f, fl, sessionRequest{Kind: memory.KindRun, Resume: ref})
			if err != nil {
				return err
			}
			defer s.close()
			return oneTurn(ctx, f, s, prompt)
		},
	}
	fl.register(cmd.Flags())
	cmd.Flags().BoolVar(&last, "last", false, "the newest session of this directory")
	cmd.Flags().BoolVar(&all, "all", false, "with --last or the picker: every directory")
	return cmd
}

func resumeArgs(ctx context.Context, f *Factory, args []string, last, all bool) (ref, prompt string, err error) {
	st, err := f.Sessions(ctx)
	if err != nil {
		return "", "", err
	}
	if last {
		if len(args) > 1 {
			return "", "", usagef("with --last give at most a PROMPT")
		}
		cwd := ""
		if !all {
			if cwd, err = workspaceDir(f, &agentFlags{}); err != nil {
				return "", "", err
			}
		}
		in, err := st.Last(ctx, cwd)
		if err != nil {
			return "", "", &usageError{err}
		}
		if len(args) == 1 {
			prompt = args[0]
		}
		return in.ID, prompt, nil
	}
	if len(args) > 0 {
		if _, err := st.Get(ctx, args[0]); err != nil {
			return "", "", &usageError{err}
		}
		if len(args) == 2 {
			prompt = args[1]
		}
		return args[0], prompt, nil
	}
	if !f.IO.InTTY {
		return "", "", usagef("give a session id or name, or --last (yagent sessions ls lists them)")
	}
	rows, err := listSessions(ctx, f, all, 20)
	if err != nil {
		return "", "", err
	}
	cfg, _ := f.Config()
	ref, err = pickFrom(f, rows, newLineInput(f.IO, filepath.Join(cfg.Home, "history")))
	return ref, "", err
}
