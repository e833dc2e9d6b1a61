package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/llm/llmtest"
)

// RunOptions are the inputs of `yagent run`.
type RunOptions struct {
	IO         *IOStreams
	Prompt     string
	JSON       bool
	Replay     string
	Model      string
	MaxSteps   int
	Approval   string
	AllowShell bool
	Board      string
	Dir        string
	f          *Factory
}

// NewCmdRun builds `yagent run`.
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   `run [flags] "PROMPT"`,
		Short: "Run the director on one prompt and print its answer",
		Long: `Run the director on one prompt. It works with the tools in the current
directory (the workspace), delegates to sub-agents whose handoff notes land on
the session's board, and prints its answer on stdout; progress (tool calls,
delegations, usage) goes to stderr. With --json, stdout carries one JSON
event per line instead (see README.md, "Run JSON").

The model endpoint comes from OPENAI_BASE_URL, OPENAI_API_KEY and
YAGENT_MODEL, or from models.default in the configuration. --replay FILE
serves a scripted scenario instead (offline; labelled as a replay).

Shell commands: --approval untrusted asks before every command and file
write, on-request (default) before every command, never does not ask. A run
without a terminal cannot ask, so it runs commands only with --allow-shell.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Prompt = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON event per line")
	fl.StringVar(&opts.Replay, "replay", "", "serve the model from a scripted scenario file (offline)")
	fl.StringVar(&opts.Model, "model", "", "the default model's id (overrides YAGENT_MODEL)")
	fl.IntVar(&opts.MaxSteps, "max-steps", 0, "the director's model calls per turn (default agents.max_steps)")
	fl.StringVar(&opts.Approval, "approval", "", "untrusted, on-request or never (default agents.approval)")
	fl.BoolVar(&opts.AllowShell, "allow-shell", false, "let this run use the shell tool without a terminal to ask")
	fl.StringVar(&opts.Board, "board", "", "use this board instead of the session's own")
	fl.StringVar(&opts.Dir, "cd", "", "workspace directory (default: the current directory)")
	return cmd
}

// newSessionID returns a sortable, unique session id.
func newSessionID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

func runRun(ctx context.Context, opts *RunOptions) error {
	cfg, err := opts.f.Config()
	if err != nil {
		return err
	}
	var sink agents.Sink
	var human *humanPrinter
	if opts.JSON {
		sink = newJSONPrinter(opts.IO.Out)
	} else {
		human = newHumanPrinter(opts.IO.Out, opts.IO.ErrOut)
		sink = human
	}
	cl := &clients{cfg: cfg, getenv: opts.f.Getenv, override: opts.Model}
	if opts.Replay != "" {
		sc, err := llmtest.Load(opts.Replay)
		if err != nil {
			return &usageError{fmt.Errorf("--replay: %w", err)}
		}
		srv, err := llmtest.Start(sc, llmtest.WithReplay(true))
		if err != nil {
			return &usageError{fmt.Errorf("--replay: %w", err)}
		}
		defer srv.Close()
		cl.replay = srv
		sink.Emit(agents.Event{Type: agents.EventNotice, Time: opts.f.Now(), Agent: "yagent",
			Text: fmt.Sprintf("▶ replay of %s — a scripted model, not a live LLM", opts.Replay)})
	}
	approval := opts.Approval
	if approval == "" {
		approval = cfg.Agents.Approval
	}
	pol, err := agents.ParseApproval(approval)
	if err != nil {
		return &usageError{err}
	}
	policy := agents.ShellPolicy{Approval: pol, Allowed: opts.AllowShell || cfg.Agents.AllowShell || opts.IO.InTTY}
	if opts.IO.InTTY && opts.IO.ErrTTY && !opts.JSON {
		policy.Ask = &ttyAsker{in: opts.IO.In, out: opts.IO.ErrOut}
	}
	if opts.MaxSteps < 0 {
		return usagef("--max-steps must be positive")
	}
	session := newSessionID(opts.f.Now())
	board := opts.Board
	if board == "" {
		if board, err = agents.SetBoardScope(session, ""); err != nil {
			return err
		}
	} else if err := checkBoard(board); err != nil {
		return err
	}
	store, err := opts.f.Board()
	if err != nil {
		return err
	}
	dir := opts.Dir
	if dir == "" {
		dir = opts.f.Dir
	}
	if dir == "" {
		dir = "."
	}
	d, err := director.New(director.Options{
		Config: cfg, Client: cl.resolve, Workspace: dir, Board: store, BoardID: board,
		Events: sink, Policy: policy, MaxSteps: opts.MaxSteps,
	})
	if err != nil {
		if isNoEndpoint(err) {
			return &usageError{err}
		}
		return err
	}
	defer d.Close()
	out, err := d.Turn(ctx, opts.Prompt)
	if human != nil {
		human.finish()
		fmt.Fprintf(opts.IO.ErrOut, "board %s: yagent board ls --board %s\n", board, board)
	}
	if err != nil {
		return err
	}
	if out.Reason == agents.ReasonMaxSteps {
		return fmt.Errorf("the director stopped at its step budget (%d model calls) before finishing: raise --max-steps or agents.max_steps", d.Agent(agents.Gates{}).MaxSteps)
	}
	return nil
}

func checkBoard(board string) error {
	if err := blackboardCheck(board); err != nil {
		return &usageError{err}
	}
	return nil
}

// ttyAsker asks yes/no questions on the terminal.
type ttyAsker struct {
	mu     sync.Mutex
	in     io.Reader
	out    io.Writer
	reader *bufio.Reader
	always bool
}

func (a *ttyAsker) Ask(ctx context.Context, question string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always {
		return true, nil
	}
	if a.reader == nil {
		a.reader = bufio.NewReader(a.in)
	}
	fmt.Fprintf(a.out, "? %s — allow? [y]es / [n]o / [a]lways: ", question)
	line, err := a.reader.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	case "a", "always":
		a.always = true
		return true, nil
	}
	return false, nil
}
