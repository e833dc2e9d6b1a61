package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeRemembered pins the probe's record: a success is remembered
// under Home and spares the next process its probe, only while the key
// matches this system; a failure is never remembered; a view command that
// cannot start drops the record.
func TestProbeRemembered(t *testing.T) {
	needKey(t)
	var calls int
	var answer error
	saved := runProbe
	runProbe = func() error { calls++; return answer }
	t.Cleanup(func() { runProbe = saved })

	home := t.TempDir()
	record := filepath.Join(home, "cache", probeCacheName)
	policy := func() *Policy {
		p, err := New(WorkspaceWrite, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Home = home
		p.ABI = func() int { return 0 } // the mechanism is the view's or none
		return p
	}
	mech := func(want Mechanism, wantCalls int) *Policy {
		t.Helper()
		p := policy()
		for range 2 { // asked twice, probed at most once
			if m, _ := p.Mechanism(); m != want {
				t.Fatalf("mechanism %v, want %v", m, want)
			}
		}
		if calls != wantCalls {
			t.Fatalf("%d probes so far, want %d", calls, wantCalls)
		}
		return p
	}

	answer = errors.New("refused")
	mech(None, 1)
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed probe left a record: %v", err)
	}
	answer = nil
	mech(View, 2)
	b, err := os.ReadFile(record)
	if err != nil || string(b) != probeKey() {
		t.Fatalf("record after a successful probe: %q, %v; want the key %q", b, err, probeKey())
	}
	p := mech(View, 2) // remembered: no probe
	if !p.nsRemembered {
		t.Fatal("the answer did not come from the record")
	}

	// Another boot, kernel, user, binary or switch: probe again.
	stale := strings.Replace(probeKey(), "boot ", "boot 0", 1)
	if err := os.WriteFile(record, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	answer = errors.New("refused now")
	mech(None, 3)

	// A view command that cannot start forgets the record.
	answer = nil
	mech(View, 4)
	p = mech(View, 4)
	p.Helper = filepath.Join(t.TempDir(), "missing")
	cmd, err := p.Command(t.Context(), p.Workspace, "true")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err == nil {
		t.Fatal("a helper that does not exist started")
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the record stayed after a view command could not start: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(record))
	for _, e := range entries {
		if strings.Contains(e.Name(), probeCacheName) {
			t.Errorf("left in the cache dir: %s", e.Name())
		}
	}
}

// TestProbeKey pins what the key holds of the switches over user
// namespaces: each one's value as the kernel gives it, "-" for one this
// kernel lacks, so that a changed switch means another key.
func TestProbeKey(t *testing.T) {
	needKey(t)
	key := probeKey()
	for _, s := range probeSwitches {
		want := filepath.Base(s) + " -\n"
		if v, err := os.ReadFile(s); err == nil {
			want = filepath.Base(s) + " " + strings.TrimSpace(string(v)) + "\n"
		}
		if !strings.Contains(key, want) {
			t.Errorf("the key lacks %q:\n%s", want, key)
		}
	}
}

// TestProbeRecordNotWritten: a record that cannot replace what is at its
// path (here a directory) is an error and leaves no temp file behind.
func TestProbeRecordNotWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, probeCacheName)
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeProbeRecord(path, "key"); err == nil {
		t.Error("writeProbeRecord over a directory: no error")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != probeCacheName {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// needKey skips a test where the key's parts cannot be read, and fails it
// where they can but there is no key (nothing would ever be remembered).
func needKey(t *testing.T) {
	t.Helper()
	for _, f := range []string{"/proc/sys/kernel/random/boot_id", "/proc/sys/kernel/osrelease", selfExe} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s cannot be read here: %v", f, err)
		}
	}
	if probeKey() == "" {
		t.Fatal("probeKey() = \"\" on a system whose boot id, kernel release and binary can be read")
	}
}
