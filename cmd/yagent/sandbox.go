package main

import (
	"fmt"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/sandbox"
)

// The shell tool's OS sandbox. Confined commands re-execute this binary as
// `yagent __yagent-sandbox-exec …`: the sandbox/helper package takes such a
// process over in its init (no flags, no config), so the helper is not a
// cobra command and never shows in --help.

// sandboxMode is --sandbox (checked when parsed), else agents.sandbox
// (checked when the configuration loaded).
func sandboxMode(cfg *config.Config, flag sandboxFlag) (sandbox.Mode, error) {
	if flag != "" {
		return sandbox.Mode(flag), nil
	}
	m, err := sandbox.ParseMode(cfg.Agents.Sandbox)
	if err != nil {
		return "", &usageError{err: fmt.Errorf("agents.sandbox: %w", err)}
	}
	return m, nil
}

// sandboxPolicy builds the policy of a workspace; a writable root that does
// not exist is a usage error.
func sandboxPolicy(cfg *config.Config, mode sandbox.Mode, workspace string) (*sandbox.Policy, error) {
	roots, err := cfg.Agents.SandboxRoots()
	if err != nil {
		return nil, &usageError{err: err}
	}
	visible, err := cfg.Agents.SandboxVisiblePaths()
	if err != nil {
		return nil, &usageError{err: err}
	}
	p, err := sandbox.New(mode, workspace, roots)
	if err != nil {
		return nil, &usageError{err: err}
	}
	p.Home, p.UserHome = cfg.Home, cfg.UserHome
	p.Visible, p.Env = visible, cfg.Agents.SandboxEnv
	if err := p.Check(); err != nil {
		return nil, &usageError{err: err}
	}
	return p, nil
}
