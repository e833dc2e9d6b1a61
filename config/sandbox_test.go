package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The sandbox keys: workspace-write by default; an unknown mode, a relative
// or a missing writable root is an error naming file, line and key; ~/ is
// the person's home.
func TestSandboxKeys(t *testing.T) {
	cfg, err := load(t, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agents.Sandbox != "workspace-write" || len(cfg.Agents.SandboxWritable) != 0 {
		t.Errorf("defaults: sandbox %q, writable %q; want workspace-write and none", cfg.Agents.Sandbox, cfg.Agents.SandboxWritable)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tt := range []struct{ user, want string }{
		{"agents:\n  sandbox: danger\n", `config.yaml:2: agents.sandbox: want workspace-write, read-only or off, got "danger"`},
		{"agents:\n  sandbox_writable: [rel/dir]\n", `config.yaml:2: agents.sandbox_writable: "rel/dir": want an absolute path or ~/…`},
		{"agents:\n  sandbox_writable: [" + missing + "]\n", "config.yaml:2: agents.sandbox_writable: " + missing + " does not exist: create it or remove it from the list"},
	} {
		if _, err := load(t, tt.user, ""); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v; want %q", tt.user, err, tt.want)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg, err = load(t, "agents:\n  sandbox: read-only\n  sandbox_writable: [\"~/\"]\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if roots, err := cfg.Agents.SandboxRoots(); err != nil || !slices.Equal(roots, []string{home}) {
		t.Errorf("SandboxRoots = %q, %v; want [%s]", roots, err, home)
	}
}
