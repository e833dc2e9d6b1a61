package main

import (
	"github.com/spf13/cobra"
)

// NewCmdKB builds `yagent kb`.
func NewCmdKB(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kb",
		Short: "Use the knowledge base: projects, notes, search, trash, tokens, import",
		Long: `The knowledge base is a SQLite file ($YAGENT_HOME/kb.db unless kb.path says
otherwise), or a PostgreSQL database a team shares (kb.dsn), of notes shared
by you and your agents, in projects. You act as a
person (the principal named by kb.person, else $USER, created on first use):
only a person creates projects, restores or empties the trash and manages
tokens. Agents reach it through tokens: yagent's own agents in-process
(kb.agent_tools), other clients through ` + "`yagent mcp serve`" + `.
Every command takes --json. Refusals and bad input exit with code 2.`,
		Example: `  yagent kb projects create acme/web
  yagent kb import ~/vault --project acme/web
  yagent kb search "deploy rollback"`,
	}
	cmd.AddCommand(
		NewCmdKBProjects(f),
		NewCmdKBLs(f),
		NewCmdKBShow(f),
		NewCmdKBSearch(f),
		NewCmdKBRecall(f),
		NewCmdKBTrash(f),
		NewCmdKBToken(f),
		NewCmdKBImport(f),
		NewCmdKBStatus(f),
		NewCmdKBMigrate(f),
	)
	return cmd
}

// kbProject is --project, else kb.project; one of them is required.
func kbProject(f *Factory, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	cfg, err := f.Config()
	if err != nil {
		return "", err
	}
	if cfg.KB.Project == "" {
		return "", usagef("no project: pass --project HANDLE (yagent kb projects lists them) or set kb.project")
	}
	return cfg.KB.Project, nil
}
