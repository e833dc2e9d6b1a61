package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/acp"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/memory"
)

// NewCmdACP builds `yagent acp`.
func NewCmdACP(f *Factory) *cobra.Command {
	fl := &agentFlags{}
	cmd := &cobra.Command{
		Use:     "acp",
		Short:   "Serve sessions to an editor (Zed, JetBrains, Neovim) over the Agent Client Protocol on stdio",
		Long:    "Speak the Agent Client Protocol on stdin/stdout (nothing else is printed there): session/new opens a session in the\neditor's project, session/load reopens one by id; approvals are asked in the editor, files read and written through it.",
		Example: "  # Zed's settings.json: \"agent_servers\": {\"yagent\": {\"command\": \"yagent\", \"args\": [\"acp\"]}}\n  yagent acp --approval untrusted",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.Config() // a bad configuration or toolset is said before the editor connects
			if err == nil {
				err = director.CheckToolset(cfg, fl.Toolset)
			}
			if err != nil {
				return err
			}
			return acp.Serve(cmd.Context(), f.IO.In, f.IO.Out, f.IO.ErrOut, func(ctx context.Context, r acp.OpenRequest) (acp.Session, error) {
				s, err := openSession(ctx, f, fl, sessionRequest{Kind: memory.KindInteractive, Resume: r.Resume, Dir: r.Dir, Sink: r.Sink, Ask: r.Ask, MCP: r.MCPServers})
				if err != nil {
					return nil, err
				}
				return acp.Director(ctx, s.dr), nil
			})
		},
	}
	fl.register(cmd.Flags())
	return cmd
}
