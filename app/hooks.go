package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/hooks"
)

// HookFiles are the settings files whose hooks a run in workspace reads,
// in Claude Code's order: the person's (~/.yagent/settings.json, then
// ~/.claude/settings.json), then the workspace's (.yagent/settings.json,
// .claude/settings.json, .claude/settings.local.json), trusted only when
// the workspace is (`yagent trust`: hooks run as the person). A workspace
// file that is one of the person's (a run in $HOME) is read once, as
// theirs. problem says why trust could not be read ("" when it could);
// the workspace's hooks are then not run.
func HookFiles(cfg *config.Config, workspace string) (files []hooks.File, problem string) {
	person := []string{filepath.Join(cfg.Home, "settings.json")}
	if cfg.UserHome != "" {
		person = append(person, filepath.Join(cfg.UserHome, ".claude", "settings.json"))
	}
	for _, p := range person {
		files = append(files, hooks.File{Path: p, Trusted: true})
	}
	trusted := false
	if dir, err := config.TrustDir(workspace); err == nil {
		list, err := config.ReadTrust(cfg.Home)
		if err != nil {
			problem = err.Error()
		} else {
			trusted = list.Has(dir)
		}
	}
	for _, rel := range []string{".yagent/settings.json", ".claude/settings.json", ".claude/settings.local.json"} {
		p := filepath.Join(workspace, rel)
		if sameAsAny(p, person) {
			continue
		}
		files = append(files, hooks.File{Path: p, Trusted: trusted})
	}
	return files, problem
}

func sameAsAny(p string, others []string) bool {
	a, err := os.Stat(p)
	if err != nil {
		return false
	}
	for _, o := range others {
		if b, err := os.Stat(o); err == nil && os.SameFile(a, b) {
			return true
		}
	}
	return false
}

// LoadHooks loads the hooks of a run in workspace (HookFiles). What does
// not load — a broken file, an untrusted workspace's hooks — is said in
// warnings, each naming the file and what to do; the run goes on with
// the rest.
func LoadHooks(cfg *config.Config, workspace string) (*hooks.Set, []string) {
	files, problem := HookFiles(cfg, workspace)
	set, err := hooks.Load(files)
	var warnings []string
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("warning: %v", err))
	}
	untrusted := map[string]bool{}
	for _, s := range set.Skipped() {
		if s.Why == hooks.WhyUntrusted && !untrusted[s.Source] {
			untrusted[s.Source] = true
			warnings = append(warnings, fmt.Sprintf("warning: not running the hooks of %s: this directory is not trusted; if you trust it, run `yagent trust %s`", s.Source, workspace))
		}
	}
	if problem != "" && len(untrusted) > 0 {
		warnings = append(warnings, "warning: the trust list could not be read: "+problem)
	}
	return set, warnings
}

// WriteHooks is `yagent hooks ls` for the process's workspace: the hooks a
// run there would load (hooks.Set.WriteTable) on out — each active one
// with its file, each skipped one with why — and on errOut what could not
// be read. A settings file that does not parse is a BadInputError naming
// it and its line, after the table of the rest.
func (p *Process) WriteHooks(out, errOut io.Writer) error {
	cfg, err := p.Config()
	if err != nil {
		return err
	}
	dir, err := WorkspaceDir(p.Dir)
	if err != nil {
		return err
	}
	files, problem := HookFiles(cfg, dir)
	set, loadErr := hooks.Load(files)
	if err := set.WriteTable(out); err != nil {
		return err
	}
	perms, permErr := hooks.LoadPermissions(files)
	if err := perms.WriteTable(out); err != nil {
		return err
	}
	loadErr = errors.Join(loadErr, permErr)
	if problem != "" {
		fmt.Fprintf(errOut, "warning: the trust list could not be read (the workspace's hooks are listed as untrusted): %s\n", problem)
	}
	if loadErr != nil {
		return &BadInputError{loadErr}
	}
	return nil
}

// NotifyHooks runs the person's Notification hooks (notification_type
// permission_prompt) before yagent asks the person something outside a
// run — whether to trust the workspace: the workspace's own hooks are not
// trusted yet, so only the person's run. What they say and their failures
// are written to errOut; a settings file that does not load is the run's
// to report.
func (p *Process) NotifyHooks(ctx context.Context, errOut io.Writer, message string) {
	cfg, err := p.Config()
	if err != nil {
		return
	}
	dir, err := WorkspaceDir(p.Dir)
	if err != nil {
		return
	}
	files, _ := HookFiles(cfg, dir)
	set, _ := hooks.Load(files)
	r := &hooks.Runner{Set: set, Dir: dir}
	o, err := r.Run(ctx, hooks.Input{Event: hooks.Notification, Cwd: dir, Message: message, NotificationType: "permission_prompt"})
	if err != nil {
		o.Notices = append(o.Notices, fmt.Sprintf("Notification hooks: %v", err))
	}
	for _, m := range append(o.Messages, o.Notices...) {
		fmt.Fprintf(errOut, "yagent: %s\n", m)
	}
}
