package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/chat"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/mcp"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
	"github.com/yagent/yagent/queue"
	"github.com/yagent/yagent/sleep"
	"github.com/yagent/yagent/telemetry"
)

const exitCodesHelp = `Exit codes:
  0    success
  1    failure (a delegation failed, the model endpoint refused, …)
  2    usage error or bad input (unknown flag or command, malformed config or
       plan, unknown session, board, note or project, a refusal)
  130  cancelled (Ctrl-C)`

// exitCode maps an error to the documented exit codes, in one place. It
// asks what the error is, never which command returned it, so the same
// mistake exits the same way everywhere.
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return 130
	case badInput(err):
		return 2
	}
	return 1
}

// badInput reports whether err is the person's mistake rather than a
// failure: something they typed, configured or asked for that cannot be.
// Packages say so by identity (a sentinel or a type); a new sentinel a
// person can cause belongs here.
func badInput(err error) bool {
	var (
		usage   *usageError
		appBad  *app.BadInputError
		cfg     *config.Error
		cfgs    config.Errors
		plan    *batch.PlanError
		boards  *batch.BoardChoiceError
		refusal *notebook.Refusal
		otel    *telemetry.ConfigError
	)
	switch {
	case errors.As(err, &usage), errors.As(err, &appBad),
		errors.As(err, &cfg), errors.As(err, &cfgs),
		errors.Is(err, llm.ErrNoEndpoint),
		errors.As(err, &plan), errors.As(err, &boards),
		errors.Is(err, memory.ErrNoSession), errors.Is(err, memory.ErrAmbiguousSession),
		errors.Is(err, blackboard.ErrBadBoardID), errors.Is(err, blackboard.ErrNoBoard),
		errors.Is(err, blackboard.ErrBadRef), errors.Is(err, blackboard.ErrNoteNotFound),
		errors.Is(err, blackboard.ErrDisabled), errors.Is(err, blackboard.ErrChangeState), errors.Is(err, blackboard.ErrNoChange),
		errors.As(err, &refusal), errors.Is(err, notebook.ErrOff),
		errors.Is(err, sleep.ErrOff), errors.Is(err, sleep.ErrUnknownTool), errors.Is(err, sleep.ErrRunning),
		kb.ErrorCode(err) != "", errors.Is(err, kb.ErrUnauthenticated), errors.Is(err, kb.ErrNewerSchema),
		errors.Is(err, queue.ErrUnreachable), errors.Is(err, queue.ErrNoQueue), errors.Is(err, queue.ErrSchemaNewer), errors.Is(err, queue.ErrRunBusy), errors.Is(err, batch.ErrRunBusy),
		errors.Is(err, mcp.ErrUnknownKBTool), errors.Is(err, director.ErrUnknownToolset), errors.Is(err, director.ErrNoSubSession), errors.Is(err, director.ErrNotRunning), errors.Is(err, director.ErrLanded),
		errors.As(err, &otel), errors.Is(err, chat.ErrBadPick), errors.Is(err, iostreams.ErrEmptyPrompt):
		return true
	}
	return false
}

// usageError is a mistake on the command line that yagent itself finds: a
// flag combination, a missing input, a value no package judges. When
// cobra found it, cmd names the command whose --help to suggest.
type usageError struct {
	err error
	cmd *cobra.Command
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit code 2).
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// checkCommandLine makes every command-line mistake cobra finds a
// *usageError, by identity rather than by its message: flag parsing (the
// flag error func), positional arguments (each command's Args, wrapped),
// required flags and flag groups (checked before RunE). A command with
// subcommands and no RunE of its own gets groupRunE. An unknown command or
// flag gets suggestions (suggest.go).
func checkCommandLine(root *cobra.Command) {
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if err := errors.Join(c.ValidateRequiredFlags(), c.ValidateFlagGroups()); err != nil {
			return &usageError{err: err, cmd: c}
		}
		return nil
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() && c.RunE == nil {
			c.Args, c.RunE = cobra.ArbitraryArgs, groupRunE
		}
		args := c.Args
		if args == nil {
			args = cobra.NoArgs
		}
		c.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				if c.HasSubCommands() && len(a) > 0 {
					return unknownCommand(c, a[0])
				}
				return &usageError{err: err, cmd: c}
			}
			return nil
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// groupRunE makes a command that only holds subcommands reject an unknown
// subcommand (cobra prints help and succeeds otherwise).
func groupRunE(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return cmd.Help()
}
