package config

import (
	"slices"
	"testing"
)

func TestWorkspaceStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		ws   Workspace
		want []string
	}{
		{"no file", Workspace{Dir: "/w"}, nil},
		{"trusted", Workspace{File: "/w/.yagent/config.yaml", Dir: "/w", Trusted: true}, []string{"workspace /w: trusted, its file applies in full"}},
		{"ignored", Workspace{File: "/w/.yagent/config.yaml", Dir: "/w", Ignored: []string{"mcp_servers.x", "shell_allow"}},
			[]string{"workspace /w: not trusted, ignored: mcp_servers.x, shell_allow (yagent trust /w applies them)"}},
		{"nothing gated", Workspace{File: "/w/.yagent/config.yaml", Dir: "/w"}, []string{"workspace /w: not trusted (its file sets nothing that needs trust)"}},
		{"unreadable trust list", Workspace{File: "/w/.yagent/config.yaml", Dir: "/w", TrustProblem: "trust list unreadable"},
			[]string{"workspace /w: not trusted (its file sets nothing that needs trust)", "trust list unreadable"}},
	} {
		if got := tc.ws.Status(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Status() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
