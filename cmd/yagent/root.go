package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/internal/buildinfo"
	"github.com/yagent/yagent/kb"
)

// NewCmdRoot builds the command tree.
//
// Every command has one shape: NewCmdX(f) builds it, its flags and
// arguments fill an xOptions struct, and its RunE calls
// xRun(ctx, f, opts). Tests drive the real tree (execute, testscript), so
// there is no second entry point to keep honest.
func NewCmdRoot(f *Factory) *cobra.Command {
	opts := &chatOptions{}
	var showVersion bool
	root := &cobra.Command{
		Use:   "yagent",
		Short: "A multi-agent orchestrator: a director delegates, handoffs land on a board",
		Long: `yagent runs a director agent that delegates work to sub-agents. Every
delegation ends as a Markdown note with YAML front matter on a filesystem
blackboard, and a fresh index of the board goes into every model call.`,
		Example: `  # Talk to the director interactively (the same as yagent chat)
  yagent

  # One prompt, the answer on stdout
  yagent run "Where are the HTTP retries configured?"

  # Watch the whole flow offline, anywhere
  yagent demo`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showVersion {
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "yagent %s\n", buildinfo.Version())
				return err
			}
			return chatRun(cmd.Context(), f, opts)
		},
	}
	// No text/template anywhere in the binary: executing one makes the
	// linker keep every exported method of every type (reflect's
	// MethodByName), 21 MB of the stripped binary (README, Start-up
	// budgets). So --version and the help's exit codes are plain code,
	// not cobra's SetVersionTemplate/SetHelpTemplate.
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		help(c, args)
		fmt.Fprintf(c.OutOrStdout(), "\n%s\n", exitCodesHelp)
	})
	root.Flags().BoolVarP(&showVersion, "version", "v", false, "version for yagent")
	opts.register(root.Flags())
	root.AddCommand(
		NewCmdChat(f),
		NewCmdRun(f),
		NewCmdResume(f),
		NewCmdSessions(f),
		NewCmdNotes(f),
		NewCmdTools(f),
		NewCmdSleep(f),
		NewCmdBatch(f),
		NewCmdWorker(f), NewCmdWorkers(f),
		NewCmdAgents(f), NewCmdHooks(f), NewCmdSkills(f),
		NewCmdBoard(f), NewCmdChanges(f),
		NewCmdConfig(f),
		NewCmdKB(f),
		NewCmdMCP(f), NewCmdACP(f),
		NewCmdTrust(f),
		NewCmdUI(f),
		NewCmdDemo(f), NewCmdRewind(f), NewCmdSetup(f),
	)
	checkCommandLine(root)
	// --version is answered before the arguments and the workspace's
	// trust are checked, as cobra's own version flag is.
	args := root.Args
	root.Args = func(c *cobra.Command, a []string) error {
		if showVersion {
			return nil
		}
		return args(c, a)
	}
	registerCompletions(root, f)
	checked := root.PersistentPreRunE
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if showVersion {
			return nil
		}
		if err := checked(c, args); err != nil {
			return err
		}
		return checkWorkspaceTrust(c.Context(), f, c)
	}
	return root
}

func execute(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	_, err := root.ExecuteContextC(ctx)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "yagent: %s\n", kb.ForPerson(err))
		if ue, ok := errors.AsType[*usageError](err); ok && ue.cmd != nil {
			fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", ue.cmd.CommandPath())
		}
	}
	return exitCode(err)
}
