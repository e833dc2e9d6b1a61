package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/sandbox"
)

// NewCmdConfig builds `yagent config`.
func NewCmdConfig(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Inspect the configuration", Args: cobra.ArbitraryArgs, RunE: groupRunE}
	cmd.AddCommand(NewCmdConfigShow(f, nil))
	return cmd
}

// ConfigShowOptions are the inputs of `yagent config show`.
type ConfigShowOptions struct {
	IO   *IOStreams
	JSON bool
	f    *Factory
}

// NewCmdConfigShow builds `yagent config show`.
func NewCmdConfigShow(f *Factory, runF func(*ConfigShowOptions) error) *cobra.Command {
	opts := &ConfigShowOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "show [--json]",
		Short: "Print the effective configuration with defaults filled in",
		Long: `Print the effective configuration: built-in defaults, then
$YAGENT_HOME/config.yaml, then .yagent/config.yaml of the working directory,
then the environment. The YAML output is a valid configuration file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return configShowRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {home, notes_root, blackboard_enabled, sandbox, sources, config}")
	return cmd
}

func configShowRun(opts *ConfigShowOptions) error {
	cfg, err := opts.f.Config()
	if err != nil {
		return err
	}
	sources := cfg.Sources
	if sources == nil {
		sources = []string{}
	}
	box := &sandbox.Policy{Mode: sandbox.Mode(cfg.Agents.Sandbox)} // validated by Load
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			Home              string         `json:"home"`
			NotesRoot         string         `json:"notes_root"`
			BlackboardEnabled bool           `json:"blackboard_enabled"`
			Sandbox           string         `json:"sandbox"`
			Sources           []string       `json:"sources"`
			Config            *config.Config `json:"config"`
		}{cfg.Home, cfg.NotesRoot, blackboard.Enabled(), box.Describe(), sources, cfg})
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(cfg); err != nil {
		return fmt.Errorf("print config: %w", err)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "# home: %s\n# notes root: %s\n", cfg.Home, cfg.NotesRoot)
	if !blackboard.Enabled() {
		fmt.Fprintln(w, "# blackboard: disabled by YAGENT_BLACKBOARD=0")
	}
	fmt.Fprintf(w, "# %s\n", box.Describe())
	if len(sources) == 0 {
		fmt.Fprintln(w, "# files: none (defaults only)")
	}
	for _, s := range sources {
		fmt.Fprintf(w, "# file: %s\n", s)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
