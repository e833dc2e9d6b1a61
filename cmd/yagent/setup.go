package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/setup"
)

// NewCmdSetup builds `yagent setup` (also what bare yagent runs on a
// terminal when no model is configured).
func NewCmdSetup(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "setup",
		Short: "Choose a provider, key and model, and write them to ~/.yagent/config.yaml",
		Long: `Ask for a provider, its base URL, its key (a variable's name, or pasted: kept
0600 in $YAGENT_HOME/keys/) and a model from the endpoint's /models (answers
piped in work too); write models.default to $YAGENT_HOME/config.yaml.`,
		Example: `  yagent setup`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return setupRun(cmd.Context(), f) },
	}
}

// setupRun asks on the terminal (or reads the answers piped in); with
// nothing to read it says what to write (exit 2).
func setupRun(ctx context.Context, f *Factory) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	o := setup.Options{Home: cfg.Home, In: f.IO.In, Out: f.IO.ErrOut, Getenv: f.Getenv}
	if in, ok := f.IO.In.(*os.File); ok && f.IO.CanAsk() {
		o.ReadSecret = setup.TerminalSecret(in)
	}
	if _, err := setup.Run(ctx, o); errors.Is(err, setup.ErrNoAnswers) {
		return usagef("nobody to ask: put this line in %s (or run yagent setup in a terminal)\n  %s", filepath.Join(cfg.Home, "config.yaml"), setup.OneLine)
	} else if err != nil {
		return err
	}
	f.ReloadConfig()
	return nil
}
