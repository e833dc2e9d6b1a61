package config

import (
	"fmt"
	"strings"
)

// Status is how `config show` states the workspace's trust: a line, and
// a second one when the trust list could not be read (none when the
// workspace has no file of its own).
func (w Workspace) Status() []string {
	var lines []string
	switch {
	case w.File == "":
		return nil
	case w.Trusted:
		lines = append(lines, fmt.Sprintf("workspace %s: trusted, its file applies in full", w.Dir))
	case len(w.Ignored) > 0:
		lines = append(lines, fmt.Sprintf("workspace %s: not trusted, ignored: %s (yagent trust %s applies them)", w.Dir, strings.Join(w.Ignored, ", "), w.Dir))
	default:
		lines = append(lines, fmt.Sprintf("workspace %s: not trusted (its file sets nothing that needs trust)", w.Dir))
	}
	if w.TrustProblem != "" {
		lines = append(lines, w.TrustProblem)
	}
	return lines
}
