package sandbox

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// envAllowed are the variables every command gets from yagent's
// environment; anything else only when agents.sandbox_env names it.
var envAllowed = []string{"PATH", "HOME", "USER", "SHELL", "LANG", "TERM", "TZ", "TMPDIR"}

// secretName is a variable that holds a secret by its name: never passed
// by a pattern (LC_*), only when named.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(_KEY|_TOKEN|_SECRET|_PASSWORD)$`)
})

// environ is a command's environment: from base, the allow-listed
// variables, LC_*, and those p.Env names; then set (NAME=value) over them.
// Provider keys and every other variable stay in yagent's process.
func (p *Policy) environ(base []string, set ...string) []string {
	var names []string
	if p != nil {
		names = p.Env
	}
	var out []string
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if slices.Contains(names, name) ||
			slices.Contains(envAllowed, name) ||
			strings.HasPrefix(name, "LC_") && !secretName().MatchString(name) {
			out = append(out, kv)
		}
	}
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(o string) bool { return strings.HasPrefix(o, name+"=") })
		out = append(out, kv)
	}
	return out
}
