package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionOf pins what --version prints: the module version and the
// commit, from the VCS settings of a build in a clone or from the
// pseudo-version of `go install …@version`.
func TestVersionOf(t *testing.T) {
	vcs := func(rev, when, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: when}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "dev (commit unknown: built without module information)"},
		{"go run, no VCS", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev (commit unknown)"},
		{"tagged release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0 (commit unknown)"},
		{"go install @commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130100000-0123456789ab"}}, "v0.0.0-20261130100000-0123456789ab (commit 0123456789ab)"},
		{"build in a clone", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20261201020000-fedcba987654"}, Settings: vcs("fedcba9876543210fedcba9876543210fedcba98", "2026-12-01T02:00:00Z", "false")},
			"v0.3.1-0.20261201020000-fedcba987654 (commit fedcba987654, 2026-12-01T02:00:00Z)"},
		{"dirty clone", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20261201020000-fedcba987654+dirty"}, Settings: vcs("fedcba9876543210fedcba9876543210fedcba98", "2026-12-01T02:00:00Z", "true")},
			"v0.3.1-0.20261201020000-fedcba987654+dirty (commit fedcba987654+dirty, 2026-12-01T02:00:00Z)"},
		{"dirty pseudo-version only", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130100000-0123456789ab+dirty"}}, "v0.0.0-20261130100000-0123456789ab+dirty (commit 0123456789ab)"},
	} {
		if got := versionOf(tc.bi); got != tc.want {
			t.Errorf("%s: versionOf = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// FuzzVersionOf: any module version and revision render without panic,
// start with the version (or dev) and name a commit.
func FuzzVersionOf(f *testing.F) {
	f.Add("v0.0.0-20261130100000-0123456789ab+dirty", "", "true")
	f.Add("(devel)", "fedcba9876543210", "false")
	f.Add("", "", "")
	f.Add("-", "x", "")
	f.Fuzz(func(t *testing.T, v, rev, modified string) {
		bi := &debug.BuildInfo{Main: debug.Module{Version: v}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
		got := versionOf(bi)
		want := v
		if v == "" || v == "(devel)" {
			want = "dev"
		}
		if !strings.HasPrefix(got, want+" (commit ") {
			t.Errorf("versionOf(%q, %q) = %q; want it to start with %q", v, rev, got, want+" (commit ")
		}
	})
}
