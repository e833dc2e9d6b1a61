package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/chat"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/setup"
)

// chatOptions are the inputs of `yagent chat` (and of bare `yagent`).
type chatOptions struct {
	Agent  agentFlags
	Resume string // the session to reopen ("" = a new one)
	// Continue reopens this directory's newest session (-c).
	Continue bool
}

// register registers the flags of chat and of bare yagent.
func (o *chatOptions) register(fl *pflag.FlagSet) {
	o.Agent.register(fl)
	fl.BoolVarP(&o.Continue, "continue", "c", false, "reopen this directory's newest session")
}

// NewCmdChat builds `yagent chat` (also what bare `yagent` runs).
func NewCmdChat(f *Factory) *cobra.Command {
	opts := &chatOptions{}
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Start an interactive session (the default command)",
		Long:  "Start an interactive session with the director.\n\n" + chat.Help(),
		Example: `  # A new interactive session in this directory
  yagent chat

  # Ask before every command and file write, in another workspace
  yagent chat --approval untrusted --cd ~/src/app

  # Offline, against the bundled scripted model
  yagent chat --replay demo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return chatRun(cmd.Context(), f, opts) },
	}
	opts.register(cmd.Flags())
	return cmd
}

func chatRun(ctx context.Context, f *Factory, opts *chatOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if setup.Needed(cfg, opts.Agent.Model, opts.Agent.Replay.Scenario != nil) && f.IO.CanAsk() {
		if err := setupRun(ctx, f); err != nil {
			return err
		}
		if cfg, err = f.Config(); err != nil {
			return err
		}
	}
	windowNotices(f)
	if opts.Continue && opts.Resume == "" {
		in, err := lastSession(ctx, f, &opts.Agent)
		if err != nil {
			return err
		}
		opts.Resume = in.ID
	}
	o := chatConfig(f, opts, cfg)
	if !useTUI(f) {
		return chat.Run(ctx, o)
	}
	if o.Dir, err = workspaceDir(f, &opts.Agent); err != nil {
		return err
	}
	return chat.RunTUI(ctx, o)
}

// chatConfig is what interactive mode works with: sessions opened as
// the flags say (openSession), listed and printed by the factory's
// stores and streams.
func chatConfig(f *Factory, opts *chatOptions, cfg *config.Config) chat.Options {
	return chat.Options{Config: cfg, Model: opts.Agent.Model, Resume: opts.Resume,
		Open: func(ctx context.Context, r chat.Request) (*chat.Session, error) {
			fl := opts.Agent
			fl.Model = r.Model
			s, err := openSession(ctx, f, &fl, sessionRequest{Kind: memory.KindInteractive, Resume: r.Resume, Sink: r.Sink, Ask: r.Ask, Reopen: r.Reopen})
			if err != nil {
				return nil, err
			}
			cs := &chat.Session{Run: s.dr}
			if s.human != nil {
				cs.Finish = s.human.Finish
			}
			return cs, nil
		},
		List: func(ctx context.Context, all bool, limit int) ([]chat.Row, error) {
			return listSessions(ctx, f, all, limit)
		},
		Sessions: f.Sessions, Board: f.Board,
		In: f.IO.In, Out: f.IO.Out, ErrOut: f.IO.ErrOut, Terminal: f.IO.InTTY && f.IO.OutTTY,
		OnInterrupt: f.OnInterrupt, Env: os.Environ(), Now: f.Now}
}

// useTUI reports whether interactive mode draws the Bubble Tea program:
// stdin and stdout are terminals and TERM is not dumb (plain lines then).
func useTUI(f *Factory) bool {
	_, in := f.IO.In.(*os.File)
	_, out := f.IO.Out.(*os.File)
	return in && out && f.IO.InTTY && f.IO.OutTTY && f.Getenv("TERM") != "dumb"
}
