package repotest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/testio"
)

// maxTrackedBytes bounds every tracked file: anything larger is a build
// output, a dump or data that belongs elsewhere.
const maxTrackedBytes = 1 << 20

// largeTestData lists the tracked files allowed past maxTrackedBytes, each
// with the reason. Keep it short; a new entry needs a review.
var largeTestData = map[string]string{}

// docAssets lists the tracked binary files that are documentation (README's
// pictures), each with the reason; each stays under maxDocAssetBytes.
var docAssets = map[string]string{
	"docs/ui-timeline.png": "README's picture of yagent ui, drawn by TestUIBrowser (cmd/yagent) with -update",
}

const maxDocAssetBytes = 200 << 10

// TestTrackedFilesAreSmallSources fails when git tracks a binary (an
// executable or object header, or a NUL byte in the first 8 KiB) or a file
// over 1 MiB outside largeTestData: a 53 MB build of cmd/yagent was tracked
// once. Build outputs are ignored by .gitignore everywhere in the tree.
func TestTrackedFilesAreSmallSources(t *testing.T) {
	root := repoRoot(t)
	cmd := testio.Command(t, testio.ChildTimeout, "git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): nothing to check", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		p := filepath.Join(root, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		if _, ok := largeTestData[name]; !ok && fi.Size() > maxTrackedBytes {
			t.Errorf("%s is tracked and %d bytes (limit %d): untrack it (git rm --cached) and extend .gitignore, or list it in largeTestData with a reason", name, fi.Size(), maxTrackedBytes)
		}
		if _, ok := docAssets[name]; ok {
			if fi.Size() > maxDocAssetBytes {
				t.Errorf("%s is a documentation asset of %d bytes (limit %d): make it smaller", name, fi.Size(), maxDocAssetBytes)
			}
			continue
		}
		if kind := binaryKind(t, p); kind != "" {
			t.Errorf("%s is tracked and is %s: untrack it (git rm --cached) and extend .gitignore", name, kind)
		}
	}
}

// binaryKind names what makes a file binary, or "" for text.
func binaryKind(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 8<<10)
	n, _ := f.Read(head)
	head = head[:n]
	for _, magic := range []struct{ prefix, kind string }{
		{"\x7fELF", "an ELF executable"}, {"MZ", "a Windows executable"},
		{"\xcf\xfa\xed\xfe", "a Mach-O executable"}, {"!<arch>\n", "an archive"},
	} {
		if bytes.HasPrefix(head, []byte(magic.prefix)) {
			return magic.kind
		}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary (NUL bytes)"
	}
	return ""
}
