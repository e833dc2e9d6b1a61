package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/sandbox"
)

// NewCmdConfig builds `yagent config`.
func NewCmdConfig(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "config",
		Short:   "Inspect the configuration",
		Example: `  yagent config show`,
	}
	cmd.AddCommand(NewCmdConfigShow(f))
	return cmd
}

// configShowOptions are the inputs of `yagent config show`.
type configShowOptions struct {
	JSON bool
}

// NewCmdConfigShow builds `yagent config show`.
func NewCmdConfigShow(f *Factory) *cobra.Command {
	opts := &configShowOptions{}
	cmd := &cobra.Command{
		Use:   "show [--json]",
		Short: "Print the effective configuration with defaults filled in",
		Long: `Print the effective configuration: built-in defaults, then
$YAGENT_HOME/config.yaml, then .yagent/config.yaml of the working directory,
then the environment. The YAML output is a valid configuration file.`,
		Example: `  # The effective configuration, defaults filled in
  yagent config show

  # One value, from JSON
  yagent config show --json | jq .agents.max_steps`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return configShowRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {home, notes_root, blackboard_enabled, sandbox, sources, workspace, config}")
	return cmd
}

func configShowRun(ctx context.Context, f *Factory, opts *configShowOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	store, err := f.Board()
	if err != nil {
		return err
	}
	sources := cfg.Sources
	if sources == nil {
		sources = []string{}
	}
	cfg, guessed := app.WithGuessedProviders(cfg)
	box := &sandbox.Policy{Mode: sandbox.Mode(cfg.Agents.Sandbox)} // validated by Load
	if opts.JSON {
		ws := cfg.Workspace
		if ws.Ignored == nil {
			ws.Ignored = []string{}
		}
		return writeJSON(f.IO.Out, struct {
			Home              string           `json:"home"`
			NotesRoot         string           `json:"notes_root"`
			BlackboardEnabled bool             `json:"blackboard_enabled"`
			Sandbox           string           `json:"sandbox"`
			Sources           []string         `json:"sources"`
			Workspace         config.Workspace `json:"workspace"`
			Config            *config.Config   `json:"config"`
		}{cfg.Home, f.NotesRoot(), store.Enabled(), box.Describe(), sources, ws, cfg})
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(cfg); err != nil {
		return fmt.Errorf("print config: %w", err)
	}
	w := f.IO.Out
	fmt.Fprintf(w, "# home: %s\n# notes root: %s\n", cfg.Home, f.NotesRoot())
	if !store.Enabled() {
		fmt.Fprintln(w, "# blackboard: disabled by YAGENT_BLACKBOARD=0")
	}
	fmt.Fprintf(w, "# %s\n", box.Describe())
	if len(sources) == 0 {
		fmt.Fprintln(w, "# files: none (defaults only)")
	}
	for _, s := range sources {
		fmt.Fprintf(w, "# file: %s\n", s)
	}
	for _, l := range cfg.Workspace.Status() {
		fmt.Fprintf(w, "# %s\n", l)
	}
	for _, name := range guessed {
		fmt.Fprintf(w, "# models.%s.provider: %s, guessed from its base_url\n", name, cfg.Models[name].Provider)
	}
	for _, n := range cfg.Notices {
		fmt.Fprintf(w, "# %s\n", n)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
