package main

import (
	"context"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/queue"
	"github.com/yagent/yagent/webui"
)

// uiOptions are the inputs of `yagent ui`.
type uiOptions struct {
	Addr      string
	AddrGiven bool
	All       bool
	Timeout   time.Duration
}

// NewCmdUI builds `yagent ui`.
func NewCmdUI(f *Factory) *cobra.Command {
	opts := &uiOptions{}
	cmd := &cobra.Command{
		Use:   "ui [--addr HOST:PORT] [--all]",
		Short: "Serve a local, read-only web view of sessions, delegations, boards, batches and the notebook",
		Long: `Serve a read-only web view on this machine: the sessions of this directory
(--all: every directory), a session's transcript with its tool calls
folded, its delegation timeline, its board (notes and the index the model
saw), a batch run's plan followed live, and the notebook with its archive.

The address printed on stdout carries a fresh access token (?token=…):
opening it sets a cookie, and a browser without either is refused, as are a
foreign Host or Origin (a DNS-rebinding guard). --addr defaults to
127.0.0.1 on a free port; another machine can reach the view only at an
address you name, which prints a warning (plain HTTP). Nothing is written:
the view can watch a run that is going on. Ctrl-C stops.

Exit codes: 0 stopped by --timeout, 1 failure, 2 a bad or unusable --addr
or configuration, 130 cancelled (Ctrl-C).`,
		Example: `  # The sessions of this directory, on a free port of 127.0.0.1
  yagent ui
  # Every directory's sessions, on a fixed port
  yagent ui --all --addr 127.0.0.1:8780`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.AddrGiven = cmd.Flags().Changed("addr")
			return uiRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:0", "listen on HOST:PORT (PORT or :PORT mean 127.0.0.1; port 0 picks a free one)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "list every directory's sessions, not only this one's")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 0, "stop serving after this long (0: until Ctrl-C)")
	return cmd
}

func uiRun(ctx context.Context, f *Factory, opts *uiOptions) error {
	addr := "127.0.0.1:0"
	if opts.AddrGiven {
		a, err := uiAddr(opts.Addr)
		if err != nil {
			return err
		}
		addr = a
	}
	if opts.Timeout < 0 {
		return usagef("--timeout %s: want 0 (until Ctrl-C) or more", opts.Timeout)
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	st, err := f.Sessions(ctx)
	if err != nil {
		return err
	}
	board, err := f.Board()
	if err != nil {
		return err
	}
	defer queue.UseClaims(ctx, queue.OptionsFromConfig(cfg.Queue, "", f.IO.ErrOut), board)() // the task list's claims
	cwd, err := workspaceDir(f, &agentFlags{})
	if err != nil {
		return err
	}
	srv, err := webui.New(webui.Options{Sessions: st, Board: board, Index: blackboard.IndexOptionsFromConfig(cfg.Blackboard),
		Notes: cfg.Notes, Cwd: cwd, All: opts.All, Token: webui.NewToken(), Hosts: webui.Hosts(addr), Now: f.Now, Running: queue.RunningReader(cfg.Queue.DSN)})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usagef("--addr %s: %v", addr, err)
	}
	return srv.Announce(ctx, ln, addr, opts.Timeout, f.IO.Out, f.IO.ErrOut)
}

// uiAddr reads --addr: PORT and :PORT mean 127.0.0.1:PORT.
func uiAddr(flag string) (string, error) {
	addr, _, ok := app.HostPort(flag)
	if !ok {
		return "", usagef("--addr %q: want PORT, :PORT or HOST:PORT (e.g. 8080 or 127.0.0.1:8080)", flag)
	}
	return addr, nil
}
