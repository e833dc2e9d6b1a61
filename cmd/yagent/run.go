package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/internal/iostreams"
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

  # Offline, against the bundled scripted model
  yagent run --replay demo "What is this repository?"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Prompt = args[0]
			return runRun(cmd.Context(), f, opts)
		},
	}
	opts.Agent.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.Session, "session", "", "continue this session (id, id prefix or name)")
	cmd.Flags().StringVar(&opts.Board, "board", "", "a new session's board instead of its own")
	cmd.Flags().BoolVar(&opts.AllowTruncated, "allow-truncated", false, "exit 0 even when the answer was cut at the model's output limit")
	return cmd
}

func runRun(ctx context.Context, f *Factory, opts *runOptions) error {
	if opts.Session != "" && opts.Board != "" {
		return usagef("--board applies to a new session; a resumed one keeps its board")
	}
	if opts.Prompt == "-" {
		p, err := readPrompt(f.IO)
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
	return oneTurn(ctx, f, s, opts.Prompt, opts.AllowTruncated)
}

// readPrompt reads a whole prompt from stdin (`yagent run -`); an empty
// one is a usage error.
func readPrompt(streams *iostreams.IOStreams) (string, error) {
	if streams.InTTY {
		fmt.Fprintln(streams.ErrOut, "reading the prompt from the terminal: end it with Ctrl-D on a line of its own")
	}
	data, err := io.ReadAll(streams.In)
	if err != nil {
		return "", fmt.Errorf("read the prompt from stdin: %w", err)
	}
	p := strings.TrimSpace(string(data))
	if p == "" {
		return "", usagef("the prompt on stdin is empty: pipe one in (echo \"…\" | yagent run -) or give it as an argument")
	}
	return p, nil
}

// oneTurn runs a headless turn and maps its outcome to the exit code: an
// answer cut at the model's output limit fails unless allowTruncated. A
// --json stream ends with the result.
func oneTurn(ctx context.Context, f *Factory, s *session, prompt string, allowTruncated bool) error {
	start := f.Now()
	out, err := s.turn(ctx, prompt)
	if s.human != nil {
		board := s.sess.BoardID()
		fmt.Fprintf(f.IO.ErrOut, "session %s · board %s: yagent resume %s · yagent board ls --board %s\n", s.sess.ID(), board, s.sess.ID(), board)
	}
	err = s.dr.TurnError(out, err, allowTruncated)
	if jp, ok := s.sink.(*printer.JSON); ok {
		jp.Result(f.Now(), s.dr.Result(out, err, f.Now().Sub(start)), s.run.Price)
	}
	return err
}
