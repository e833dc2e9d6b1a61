package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/printer"
)

// sessionTarget selects an existing session for the commands that work on
// one: --session REF (id, id prefix or name) or --last, this directory's
// newest, which is also the default. Giving both is a usage error.
type sessionTarget struct {
	Session string
	Last    bool
}

func (t *sessionTarget) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.Session, "session", "", "the session (id, id prefix or name); default: this directory's newest")
	cmd.Flags().BoolVar(&t.Last, "last", false, "this directory's newest session (the default)")
	cmd.MarkFlagsMutuallyExclusive("session", "last")
}

// find returns the selected session's row.
func (t *sessionTarget) find(ctx context.Context, f *Factory) (memory.Info, error) {
	st, err := f.Sessions(ctx)
	if err != nil {
		return memory.Info{}, err
	}
	if t.Session != "" && !t.Last {
		return st.Get(ctx, t.Session)
	}
	return lastSession(ctx, f, &agentFlags{})
}

// lastSession is the newest session of the workspace fl names (--cd, else
// the current directory), or of every directory when fl is nil.
func lastSession(ctx context.Context, f *Factory, fl *agentFlags) (memory.Info, error) {
	st, err := f.Sessions(ctx)
	if err != nil {
		return memory.Info{}, err
	}
	cwd := ""
	if fl != nil {
		if cwd, err = workspaceDir(f, fl); err != nil {
			return memory.Info{}, err
		}
	}
	return st.Last(ctx, cwd)
}

// open opens the selected session's director: to inspect it (no model
// endpoint needed, nothing runs a turn) or, with fl, to work in it.
// yagent's notices (warnings, the replay label) go to stderr.
func (t *sessionTarget) open(ctx context.Context, f *Factory, fl *agentFlags) (*session, error) {
	in, err := t.find(ctx, f)
	if err != nil {
		return nil, err
	}
	req := sessionRequest{Resume: in.ID, Inspect: fl == nil, Sink: printer.Notices(f.IO.ErrOut)}
	if fl == nil {
		fl = &agentFlags{}
	}
	return openSession(ctx, f, fl, req)
}
