package sandbox

import (
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkCommandCost runs the same command unconfined and under
// workspace-write, interleaved, and reports the median of each and their
// ratio: the sandbox's added cost per shell command (re-executing the
// helper, building the rules, Landlock and seccomp). Run with
// -benchtime=60x for 60 samples of each. The helper is this test binary,
// or YAGENT_BENCH_HELPER (a built yagent, whose start-up is what users pay).
func BenchmarkCommandCost(b *testing.B) {
	if !osSupported || probeABI() < MinABI {
		b.Skip("no Landlock here")
	}
	ws := b.TempDir()
	mustMkdirB(b, ws+"/.git")
	mustMkdirB(b, ws+"/src")
	off, err := New(Off, ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	box, err := New(WorkspaceWrite, ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	box.Helper = os.Getenv("YAGENT_BENCH_HELPER")
	argv := []string{"sh", "-c", "true"}
	once := func(p *Policy) time.Duration {
		start := time.Now()
		cmd, err := p.Command(b.Context(), ws, argv...)
		if err != nil {
			b.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	var plain, confined []time.Duration
	for b.Loop() {
		plain = append(plain, once(off))
		confined = append(confined, once(box))
	}
	mp, mc := median(plain), median(confined)
	b.ReportMetric(float64(mp.Microseconds()), "off-µs/cmd")
	b.ReportMetric(float64(mc.Microseconds()), "sandboxed-µs/cmd")
	b.ReportMetric(float64(mc)/float64(mp), "ratio")
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
