package sandbox

import (
	"fmt"
	"runtime"
)

// Describe is one line saying which mode is in force and by what
// mechanism, for the run header and `config show`.
func (p *Policy) Describe() string {
	asked := p.mode()
	if !osSupported && asked != Off {
		return fmt.Sprintf("sandbox: off — warning: %s was asked, but yagent's OS sandbox is Linux-only (this is %s): shell commands run with all of your permissions", asked, runtime.GOOS)
	}
	if asked == Off {
		return "sandbox: off — shell commands run with all of your permissions"
	}
	m, nsErr := p.Mechanism()
	if m == None {
		return fmt.Sprintf("sandbox: %s, unavailable — %v", asked, p.Err())
	}
	what := "write nowhere of yours (only their private /tmp)"
	if asked == WorkspaceWrite {
		what = "write only in the workspace (not .git, .yagent or the other protected paths), their private /tmp and agents.sandbox_writable"
	}
	abi := p.abi()
	if m == View {
		layer := fmt.Sprintf("Landlock ABI %d and seccomp inside", abi)
		if abi < 1 {
			layer = "seccomp inside; no Landlock in this kernel"
		}
		return fmt.Sprintf("sandbox: %s (a view: namespaces of their own, %s) — shell commands %s; they cannot see $YAGENT_HOME, ~/.ssh and the other credential stores; network: their own loopback only", asked, layer, what)
	}
	return fmt.Sprintf("sandbox: %s (Landlock ABI %d only: user namespaces are unavailable — %v) — shell commands %s; no network; its limits: nothing can be created directly in a workspace root that holds .git, and commands can read every file you can (keys included)", asked, abi, nsErr, what)
}
