package sandbox

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestGoHelperWithoutCgo runs this package's and the helper's tests again
// in a build without cgo, where the Go helper takes every command: README's
// test command builds with cgo, so without this nothing would keep the Go
// helper — what a CGO_ENABLED=0 build of yagent ships — honest. In the
// build without cgo it is the run itself and skips.
func TestGoHelperWithoutCgo(t *testing.T) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "CGO_ENABLED" && s.Value != "1" {
				t.Skip("this is the build without cgo")
			}
		}
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go toolchain to build without cgo: %v", err)
	}
	// The modules must be at hand: a test binary run as another user (as
	// the unprivileged runs in AGENTS.md do) has no module cache of its own.
	if out, err := exec.Command(goBin, "env", "GOMODCACHE").Output(); err != nil || !exists(strings.TrimSpace(string(out))) {
		t.Skipf("no module cache for this user (%q): the build without cgo cannot run here", strings.TrimSpace(string(out)))
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "test", "-count=1", "./", "./helper")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("CGO_ENABLED=0 go test ./sandbox/...: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return path != "" && err == nil
}
