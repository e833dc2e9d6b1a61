package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkCommandCost runs the same command unconfined and under
// workspace-write, interleaved, and reports the median of each, their
// difference and their ratio: the sandbox's added cost per shell command
// (re-executing the helper, the namespaces, the view, Landlock and
// seccomp). Run with -benchtime=60x for 60 samples of each. The helper is
// this test binary, or YAGENT_BENCH_HELPER (a built yagent, whose start-up
// is what people pay). YAGENT_BENCH_MECH=landlock measures Landlock alone.
func BenchmarkCommandCost(b *testing.B) {
	if !Available() {
		b.Skip("no sandbox here")
	}
	ws := benchDir(b)
	mustMkdirB(b, ws+"/.git")
	mustMkdirB(b, ws+"/src")
	off, err := New(Off, ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	box := benchPolicy(b, ws)
	argv := []string{"sh", "-c", "true"}
	// bubblewrap, when installed, as a yardstick: the same command in
	// all of bwrap's namespaces, with no view to build.
	bwrap, _ := exec.LookPath("bwrap")
	bw, err := New(Off, ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	var plain, confined, bwrapped []time.Duration
	for b.Loop() {
		plain = append(plain, once(b, off, ws, argv))
		confined = append(confined, once(b, box, ws, argv))
		if bwrap != "" {
			bwrapped = append(bwrapped, once(b, bw, ws, append([]string{bwrap, "--unshare-all", "--ro-bind", "/", "/", "--"}, argv...)))
		}
	}
	mp, mc := median(plain), median(confined)
	b.ReportMetric(float64(mp.Microseconds()), "off-µs/cmd")
	b.ReportMetric(float64(mc.Microseconds()), "sandboxed-µs/cmd")
	b.ReportMetric(float64((mc - mp).Microseconds()), "added-µs/cmd")
	b.ReportMetric(float64(mc)/float64(mp), "ratio")
	if bwrap != "" {
		b.ReportMetric(float64(median(bwrapped).Microseconds()), "bwrap-µs/cmd")
		b.ReportMetric(float64(mc)/float64(median(bwrapped)), "ratio-to-bwrap")
	}
}

// BenchmarkRootSize runs a sandboxed command in a workspace root of 10
// entries and in one of 10 000, interleaved, and reports the ratio of
// their medians: a view binds the root whole, so its size costs nothing.
func BenchmarkRootSize(b *testing.B) {
	if !Available() {
		b.Skip("no sandbox here")
	}
	small, big := benchDir(b), benchDir(b)
	for _, ws := range []string{small, big} {
		mustMkdirB(b, ws+"/.git")
	}
	for i := range 10 {
		os.WriteFile(filepath.Join(small, fmt.Sprint(i)), nil, 0o644)
	}
	for i := range 10000 {
		os.WriteFile(filepath.Join(big, fmt.Sprint(i)), nil, 0o644)
	}
	ps, pb := benchPolicy(b, small), benchPolicy(b, big)
	argv := []string{"sh", "-c", "true"}
	var ds, db []time.Duration
	for b.Loop() {
		ds = append(ds, once(b, ps, small, argv))
		db = append(db, once(b, pb, big, argv))
	}
	b.ReportMetric(float64(median(ds).Microseconds()), "10-µs/cmd")
	b.ReportMetric(float64(median(db).Microseconds()), "10000-µs/cmd")
	b.ReportMetric(float64(median(db))/float64(median(ds)), "ratio")
}

func benchDir(b *testing.B) string {
	dir, err := os.MkdirTemp("/var/tmp", "yagent-sandbox-bench-")
	if err != nil {
		dir = b.TempDir()
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	real, _ := realPath(dir)
	return real
}

func benchPolicy(b *testing.B, ws string) *Policy {
	p, err := New(WorkspaceWrite, ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	p.Home = b.TempDir()
	p.Helper = os.Getenv("YAGENT_BENCH_HELPER")
	if os.Getenv("YAGENT_BENCH_MECH") == "landlock" {
		force(p, LandlockOnly)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

func once(b *testing.B, p *Policy, dir string, argv []string) time.Duration {
	start := time.Now()
	cmd, err := p.Command(b.Context(), dir, argv...)
	if err != nil {
		b.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	return time.Since(start)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func mustMkdirB(b *testing.B, p string) {
	b.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		b.Fatal(err)
	}
}
