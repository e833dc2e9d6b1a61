package app

import (
	"fmt"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/sandbox"
)

// PolicyOptions are the flags a policy takes over the configuration.
type PolicyOptions struct {
	// Approval is --approval ("" = agents.approval).
	Approval string
	// AllowShell is --allow-shell (agents.allow_shell counts too).
	AllowShell bool
	// Sandbox is --sandbox ("" = agents.sandbox).
	Sandbox sandbox.Mode
	// Ask asks a person; nil when nobody can be asked (no terminal).
	Ask agents.Asker
	// Workspace is the directory the sandbox confines commands to.
	Workspace string
}

// BadInputError marks a policy the configuration or the flags make
// impossible (a bad mode, a missing writable root): the person's to fix.
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }
func (e *BadInputError) Unwrap() error { return e.Err }

// NewPolicy builds the approval and sandbox policy of a run. Close the
// returned policy's Sandbox when the run ends (App.Close does).
func NewPolicy(cfg *config.Config, o PolicyOptions) (agents.ShellPolicy, error) {
	approval := o.Approval
	if approval == "" {
		approval = cfg.Agents.Approval
	}
	pol, err := agents.ParseApproval(approval)
	if err != nil {
		return agents.ShellPolicy{}, &BadInputError{err}
	}
	p := agents.ShellPolicy{Approval: pol, Allowed: o.AllowShell || cfg.Agents.AllowShell,
		ShellAllow: cfg.Agents.ShellAllow, Session: agents.NewApprovals(), Ask: o.Ask}
	mode := o.Sandbox
	if mode == "" {
		if mode, err = sandbox.ParseMode(cfg.Agents.Sandbox); err != nil {
			return agents.ShellPolicy{}, &BadInputError{fmt.Errorf("agents.sandbox: %w", err)}
		}
	}
	if p.Sandbox, err = SandboxPolicy(cfg, mode, o.Workspace); err != nil {
		return agents.ShellPolicy{}, err
	}
	return p, nil
}

// SandboxPolicy builds the sandbox of a workspace from the configuration;
// a writable root that does not exist or opens what the sandbox keeps shut
// is a BadInputError.
func SandboxPolicy(cfg *config.Config, mode sandbox.Mode, workspace string) (*sandbox.Policy, error) {
	roots, err := cfg.Agents.SandboxRoots()
	if err != nil {
		return nil, &BadInputError{err}
	}
	visible, err := cfg.Agents.SandboxVisiblePaths()
	if err != nil {
		return nil, &BadInputError{err}
	}
	p, err := sandbox.New(mode, workspace, roots)
	if err != nil {
		return nil, &BadInputError{err}
	}
	p.Home, p.UserHome = cfg.Home, cfg.UserHome
	p.Visible, p.Env = visible, cfg.Agents.SandboxEnv
	if err := p.Check(); err != nil {
		return nil, &BadInputError{err}
	}
	return p, nil
}
