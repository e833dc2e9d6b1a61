package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBoardReadsAreBounded (issue 17 item 2): a 200 MB note is listed,
// indexed and shown by real yagent processes whose peak resident memory
// stays under 64 MiB — the note is never loaded whole. The same commands
// on a board with a small note are the baseline: the 200 MB note may add
// at most 8 MiB to it (the check that holds under the race detector, whose
// shadow memory raises every process's size). The note is a sparse file
// (fast to make); its front matter and the first 128 KiB of its body are
// text.
func TestBoardReadsAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a 200 MB sparse file")
	}
	work := t.TempDir()
	notes := filepath.Join(work, "notes")
	const stem = "20261129T100000Z_abcd-1-000001"
	for board, size := range map[string]int64{"big": 200 << 20, "small": 0} {
		dir := filepath.Join(notes, board, "explorer")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, stem+".md"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString("---\nversion: 2\nstatus: ok\nagent: explorer\nconclusion: A deliverable.\n---\n" + strings.Repeat("text of the body\n", 8000))
		if err == nil && size > 0 {
			err = f.Truncate(size)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+work, "YAGENT_HOME="+filepath.Join(work, "home"), "YAGENT_NOTES_ROOT="+notes)
	peak := func(board string, args ...string) (int64, string) {
		t.Helper()
		args = append(args, "--board", board)
		cmd := exec.Command("yagent", args...)
		cmd.Env = env
		var out, errOut strings.Builder
		cmd.Stdout = &limitedWriter{w: &out, n: 4096}
		cmd.Stderr = &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("yagent %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10, out.String() // KiB → MiB
	}
	for _, args := range [][]string{
		{"board", "ls"},
		{"board", "ls", "--json"},
		{"board", "index"},
		{"board", "show", "explorer/" + stem},
	} {
		what := "yagent " + strings.Join(args, " ")
		base, _ := peak("small", args...)
		rss, out := peak("big", args...)
		t.Logf("%s: peak RSS %d MiB with a 200 MB note, %d MiB with a small one", what, rss, base)
		if rss-base > 8 || !raceEnabled && rss >= 64 {
			t.Errorf("%s: peak RSS %d MiB with a 200 MB note (%d MiB with a small one); want under 64 MiB, at most 8 more", what, rss, base)
		}
		if !strings.Contains(out, "oversized") && args[1] != "show" || args[1] == "show" && !strings.Contains(out, "text of the body") {
			t.Errorf("%s printed:\n%s", what, out)
		}
	}
}

// limitedWriter keeps the first n bytes written and discards the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(l.n, len(p))
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
