package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/config"
)

// usageError marks bad input: exit code 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit code 2).
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitCode maps an error to the documented exit codes, in one place.
func exitCode(err error) int {
	var ue *usageError
	var ce *config.Error
	var ces config.Errors
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return 130
	case isNoEndpoint(err):
		return 2
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &ces):
		return 2
	}
	return 1
}

const exitCodesHelp = `Exit codes:
  0    success
  1    failure (a delegation failed, the model endpoint refused, …)
  2    usage error or bad input (unknown flag, malformed config, bad board id or ref)
  130  cancelled (Ctrl-C)`

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "yagent",
		Short: "A multi-agent orchestrator: a director delegates, handoffs land on a board",
		Long: `yagent runs a director agent that delegates work to sub-agents. Every
delegation ends as a Markdown note with YAML front matter on a filesystem
blackboard, and a fresh index of the board goes into every model call.

` + exitCodesHelp,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("yagent {{.Version}}\n")
	chatFlags := &agentFlags{}
	chatFlags.register(root.Flags())
	root.Args = cobra.NoArgs
	root.RunE = func(cmd *cobra.Command, _ []string) error { return chatRun(cmd.Context(), f, chatFlags, "") }
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(
		NewCmdChat(f),
		NewCmdRun(f, nil),
		NewCmdResume(f),
		NewCmdSessions(f),
		NewCmdNotes(f),
		NewCmdTools(f),
		NewCmdSleep(f),
		NewCmdBatch(f, nil),
		NewCmdAgents(f),
		NewCmdBoard(f),
		NewCmdConfig(f),
		NewCmdKB(f),
		NewCmdMCP(f),
	)
	return root
}

func execute(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil {
		if cmd != nil && isCobraUsage(err) {
			err = &usageError{err}
		}
		fmt.Fprintf(f.IO.ErrOut, "yagent: %v\n", err)
		if _, ok := errors.AsType[*usageError](err); ok && cmd != nil && isCobraUsage(err) {
			fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	return exitCode(err)
}

// isCobraUsage recognises cobra's own argument errors, which it returns as
// plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// groupRunE makes a command that only holds subcommands reject an unknown
// subcommand (cobra prints help and succeeds otherwise).
func groupRunE(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return cmd.Help()
}
