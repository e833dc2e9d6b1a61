package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/ttyask"
)

// noConfigAnnotation marks a command that never reads the configuration
// (so the workspace-trust check before it is skipped, and a malformed
// configuration does not stop it).
const noConfigAnnotation = "yagent/no-config"

// trustOptions are the inputs of `yagent trust`.
type trustOptions struct {
	Dir    string // "" = the current directory
	List   bool
	Revoke bool
}

// NewCmdTrust builds `yagent trust`.
func NewCmdTrust(f *Factory) *cobra.Command {
	opts := &trustOptions{}
	cmd := &cobra.Command{
		Use:   "trust [DIR] | --list | --revoke [DIR]",
		Short: "Let a directory's own .yagent/config.yaml apply in full",
		Long: `Trust a directory (default: the current one): its own .yagent/config.yaml
then applies in full. Until then yagent ignores, with one warning naming
them, the keys that can run programs, widen permissions or route your
data or credentials: ` + strings.Join(config.WorkspaceGatedKeys, ", ") + `; and
limits, budgets, timeouts and retention (blackboard.ttl…) set in the
direction that uses up or deletes more (a larger limit, 0 = no limit, a
shorter ttl). Everything else in the file applies either way. Trust also
lets its hooks and permission rules (.yagent/settings.json,
.claude/settings.json, .claude/settings.local.json) and its .mcp.json
servers apply; yagent ignores them, with a warning, until then.

Trust is recorded by real path (symlinks resolved) in
$YAGENT_HOME/` + config.TrustFileName + `, for that directory only: not its
subdirectories (a vendored tree or a repository cloned inside has its own
author) and not its parents. In a terminal yagent asks once per run when
an untrusted directory sets such keys.

Even a trusted directory's file may name only variables ending in _API_KEY
or _TOKEN as keys sent to a server (api_key_env, token_env, extra_headers
and telemetry.headers "${VAR}"); name any other in your own
$YAGENT_HOME/config.yaml.`,
		Example: `  # Trust the repository you are in, after reading its .yagent/config.yaml
  yagent trust
  # Trust another checkout
  yagent trust ~/src/app
  # What is trusted, since when; stop trusting one
  yagent trust --list
  yagent trust --revoke ~/src/app`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{noConfigAnnotation: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			return trustRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.List, "list", false, "list the trusted directories")
	cmd.Flags().BoolVar(&opts.Revoke, "revoke", false, "stop trusting DIR")
	cmd.MarkFlagsMutuallyExclusive("list", "revoke")
	return cmd
}

func trustRun(_ context.Context, f *Factory, opts *trustOptions) error {
	home, err := config.HomeDir(f.Getenv)
	if err != nil {
		return err
	}
	w := f.IO.Out
	if opts.List {
		if opts.Dir != "" {
			return usagef("--list takes no directory")
		}
		l, err := config.ReadTrust(home)
		if err != nil {
			return err
		}
		if len(l.Dirs) == 0 {
			fmt.Fprintln(f.IO.ErrOut, "no trusted directories")
		}
		for _, d := range l.Dirs {
			fmt.Fprintf(w, "%s\t%s\n", d.Path, d.Since.Local().Format("2006-01-02 15:04"))
		}
		return nil
	}
	dir := opts.Dir
	if dir == "" {
		if dir = f.Dir; dir == "" {
			dir = "."
		}
	} else if !filepath.IsAbs(dir) && f.Dir != "" {
		dir = filepath.Join(f.Dir, dir)
	}
	if opts.Revoke {
		removed, err := config.Revoke(home, dir)
		if err != nil {
			return err
		}
		if removed == "" {
			return usagef("%s is not trusted (see `yagent trust --list`)", dir)
		}
		fmt.Fprintf(w, "no longer trusted: %s\n", removed)
		return nil
	}
	if _, err := config.TrustDir(dir); errors.Is(err, fs.ErrNotExist) {
		return usagef("directory %s does not exist", opts.Dir)
	} else if err != nil {
		return usagef("%v", err)
	}
	real, added, err := config.Trust(home, dir, f.Now())
	if err != nil {
		return err
	}
	if !added {
		fmt.Fprintf(w, "already trusted: %s\n", real)
		return nil
	}
	fmt.Fprintf(w, "trusted: %s — its .yagent/config.yaml applies in full, and so do its hooks, permission rules and .mcp.json servers (undo: yagent trust --revoke %s)\n", real, real)
	if _, err := os.Stat(filepath.Join(real, ".yagent", "config.yaml")); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(f.IO.ErrOut, "note: it has no .yagent/config.yaml yet")
	}
	return nil
}

// checkWorkspaceTrust runs before every command that reads the
// configuration: when the working directory's own file sets keys an
// untrusted directory may not, it asks the person once whether to trust
// the directory (only when somebody can answer, IOStreams.CanAsk), and
// otherwise shows the one warning naming the ignored keys and the command
// that trusts it. A configuration that does not load is left to the
// command, which reports it.
func checkWorkspaceTrust(ctx context.Context, f *Factory, c *cobra.Command) error {
	if c.Annotations[noConfigAnnotation] != "" || c.Name() == "help" || c.Name() == "completion" ||
		strings.HasPrefix(c.Name(), "__") || c.HasParent() && c.Parent().Name() == "completion" {
		return nil
	}
	cfg, err := f.Config()
	if err != nil {
		return nil
	}
	ws := cfg.Workspace
	if len(ws.Ignored) == 0 {
		return nil
	}
	if f.IO.CanAsk() && ws.TrustProblem == "" {
		fmt.Fprintf(f.IO.ErrOut, "? %s sets %s: settings that can run programs, widen what agents may do or send your keys elsewhere, which apply only in a directory you trust.\n",
			ws.File, strings.Join(ws.Ignored, ", "))
		f.NotifyHooks(ctx, f.IO.ErrOut, "yagent asks whether to trust "+ws.Dir)
		ok, err := ttyask.New(f.IO.In, f.IO.ErrOut).Confirm(ctx, "  trust "+ws.Dir+"?")
		if err != nil {
			return err
		}
		if ok {
			if _, _, err := config.Trust(cfg.Home, ws.Dir, f.Now()); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.ErrOut, "trusted: %s (undo: yagent trust --revoke %s)\n", ws.Dir, ws.Dir)
			f.ReloadConfig()
			return nil
		}
	}
	fmt.Fprintf(f.IO.ErrOut, "yagent: warning: %s\n", ws.Warning())
	return nil
}
