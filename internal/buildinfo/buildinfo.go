// Package buildinfo says which yagent this binary is: the module version
// and the commit it was built from, as the Go toolchain stamped them.
// `yagent --version` prints it; the MCP client and gateway and the traces
// carry it.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is what `yagent --version` prints after "yagent ": the module
// version and the commit the binary was built from, as the Go toolchain
// stamped them (debug.ReadBuildInfo).
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

// versionOf renders a build's version: "v1.2.0 (commit 0123456789ab,
// 2026-11-30T10:00:00Z)"; "+dirty" marks uncommitted changes. A build
// from a clone carries the commit in its VCS settings; `go install
// …@version` carries none, and a pseudo-version names the commit itself.
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return "dev (commit unknown: built without module information)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		rev = pseudoRevision(v)
	}
	if rev == "" {
		return v + " (commit unknown)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	if when != "" {
		return v + " (commit " + rev + ", " + when + ")"
	}
	return v + " (commit " + rev + ")"
}

// pseudoRevision returns the commit a pseudo-version names
// (v0.0.0-20261130100000-0123456789ab), or "".
func pseudoRevision(v string) string {
	v, _, _ = strings.Cut(v, "+") // +dirty, +incompatible
	i := strings.LastIndexByte(v, '-')
	if i < 0 {
		return ""
	}
	rev := v[i+1:]
	if len(rev) != 12 || strings.Trim(rev, "0123456789abcdef") != "" {
		return ""
	}
	return rev
}
