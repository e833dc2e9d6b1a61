package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/printer"
)

// runOptions are the inputs of `yagent run`.
type runOptions struct {
	Prompt  string
	Session string
	Board   string
	Agent   agentFlags
	// AllowTruncated accepts an answer the model's output limit cut.
	AllowTruncated bool
	// Goal is --until and --max-rounds.
	Goal   app.Goal
	Detach bool // --detach: leave background delegations to a resume
	Answer app.Answer
}

// NewCmdRun builds `yagent run`.
func NewCmdRun(f *Factory) *cobra.Command {
	opts := &runOptions{}
	cmd := &cobra.Command{
		Use:   `run [flags] "PROMPT" | run [flags] -`,
		Short: "Run the director on one prompt and print its answer",
		Long: `Run the director on one prompt. It works with the tools in the current
directory (the workspace), delegates to sub-agents whose handoff notes land on
the session's board, and prints its answer on stdout; progress (tool calls,
delegations, usage, and the director's narration between tool calls) goes to
stderr. With --json, stdout carries one JSON event per line instead (see
README.md, "Run JSON"); its turn_started event names the session. A PROMPT
of - reads the prompt from stdin (all of it).

Every run is a session: --session ID continues an earlier one (its history
and its board); yagent resume does the same and can open it interactively.
A session in use by another yagent process is refused (exit 1) unless
--wait waits for it.

An answer cut at the model's output limit (finish_reason length) is printed
with a warning and exits 1 unless --allow-truncated; an empty answer is an
error.

Background delegations the director started are waited for before the
run exits; --detach exits at once, and yagent resume recovers them.

--until CMD runs CMD (sh -c, sandboxed, in the workspace) after each turn:
while it fails the director gets another turn with the end of its output,
up to --max-rounds turns (default 10); exit 1 when they are spent.

The model endpoint comes from OPENAI_BASE_URL, OPENAI_API_KEY and
YAGENT_MODEL, or from models.default in the configuration. --replay FILE
serves a scripted scenario instead (offline; labelled as a replay).

Shell commands: --approval untrusted asks before every command and file
write, on-request (default) before every command, never does not ask. A run
without a terminal cannot ask, so it runs commands only with --allow-shell.
Commands run in an OS sandbox (--sandbox, agents.sandbox): workspace-write
(default) writes only in the workspace (not .git), a private /tmp and
agents.sandbox_writable, sees none of your credentials and reaches only its
own loopback; read-only writes only its private /tmp; off does not confine.
See README.md, "Safety".`,
		Example: `  # Ask once; only the answer goes to answer.md, progress to the terminal
  yagent run "Summarise what changed in the storage layer" > answer.md

  # The prompt from stdin
  git diff | yagent run -

  # Continue a session, letting it run shell commands without asking
  yagent run --session 20261201T101500-3f2a1c --allow-shell "Now run the tests"

  # One JSON event per line, for scripts (turn_started names the session)
  yagent run --json "List the packages" | jq -r 'select(.type=="turn_started") | .session'

  # Keep going until the tests pass (at most 5 turns)
  yagent run --allow-shell --until 'go test ./...' --max-rounds 5 "Fix the failing test"

  # Offline, against the bundled scripted model
  yagent run --replay demo "What is this repository?"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Prompt = args[0]
			return runRun(cmd.Context(), f, opts)
		},
	}
	opts.Agent.register(cmd.Flags())
	cmd.Flags().BoolVarP(&opts.Agent.Verbose, "verbose", "v", false, "show each write's diff, each command's output and the reasoning")
	cmd.Flags().StringVar(&opts.Session, "session", "", "continue this session (id, id prefix or name)")
	cmd.Flags().StringVar(&opts.Board, "board", "", "a new session's board instead of its own")
	cmd.Flags().BoolVar(&opts.AllowTruncated, "allow-truncated", false, "exit 0 even when the answer was cut at the model's output limit")
	cmd.Flags().StringVar(&opts.Goal.Check, "until", "", "after each turn run this check; another turn while it fails")
	cmd.Flags().IntVar(&opts.Goal.MaxRounds, "max-rounds", 0, "with --until, the most turns (default 10)")
	cmd.Flags().BoolVar(&opts.Detach, "detach", false, "exit without waiting for background delegations (yagent resume recovers them)")
	cmd.Flags().StringVarP(&opts.Answer.File, "output-last-message", "o", "", "also write the final answer to this file")
	cmd.Flags().StringVar(&opts.Answer.SchemaFile, "output-schema", "", "a JSON Schema file: ask for a JSON answer matching it (exit 1 when it does not after one retry)")
	return cmd
}

func runRun(ctx context.Context, f *Factory, opts *runOptions) error {
	if opts.Session != "" && opts.Board != "" {
		return usagef("--board applies to a new session; a resumed one keeps its board")
	}
	if err := errors.Join(opts.Goal.Validate(), opts.Answer.Load(f.IO.Out)); err != nil {
		return usagef("%v", err)
	}
	if opts.Prompt == "-" {
		p, err := f.IO.ReadPrompt()
		if err != nil {
			return err
		}
		opts.Prompt = p
	}
	s, err := openSession(ctx, f, &opts.Agent, sessionRequest{Kind: memory.KindRun, Resume: opts.Session, Board: opts.Board})
	if err != nil {
		return err
	}
	defer s.close()
	s.detach = opts.Detach
	if s.human != nil {
		s.human.HoldAnswers = opts.Answer.HoldsAnswers()
		windowNotices(f)
	}
	return oneTurn(ctx, f, s, opts.Prompt, opts.AllowTruncated, &opts.Goal, &opts.Answer)
}

// windowNotices prints, on a terminal, the configuration's notices: a
// model whose context window is assumed.
func windowNotices(f *Factory) {
	if cfg, err := f.Config(); err == nil && f.IO.ErrTTY {
		for _, n := range cfg.Notices {
			fmt.Fprintln(f.IO.ErrOut, n)
		}
	}
}

// oneTurn runs a headless turn and maps its outcome to the exit code: an
// answer cut at the model's output limit fails unless allowTruncated. With
// a goal, turns follow while its check fails. A --json stream ends with
// the result.
func oneTurn(ctx context.Context, f *Factory, s *session, prompt string, allowTruncated bool, goal *app.Goal, ans *app.Answer) error {
	start, spent := f.Now(), s.dr.MeterSpend(ctx)
	var out *agents.Outcome
	err := s.run.Turns(ctx, goal, ans.Prompt(prompt), func(ctx context.Context, prompt string) (err error) {
		out, err = ans.Turn(ctx, prompt, s.turn)
		return s.dr.TurnError(out, err, allowTruncated)
	})
	err = s.dr.Settle(ctx, s.detach, err)
	if werr := ans.Write(out); werr != nil {
		err = errors.Join(err, werr)
	}
	if discarded := err != nil && s.dr.Discard(); !discarded && s.human != nil && !s.noHint {
		board := s.sess.BoardID()
		fmt.Fprintf(f.IO.ErrOut, "session %s · board %s: yagent resume %s · yagent board ls --board %s\n", s.sess.ID(), board, s.sess.ID(), board)
	}
	if jp, ok := s.sink.(*printer.JSON); ok {
		jp.Result(f.Now(), s.dr.Result(out, err, f.Now().Sub(start)), spent(ctx))
	}
	return err
}
