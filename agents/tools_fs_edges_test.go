package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadFileEdges pins read_file at its edges: what looks binary (bytes
// that are not UTF-8 on the first line, a NUL anywhere, even first on a
// line) is not shown, while text that is not UTF-8 further down is; a line
// of exactly lineMaxRunes runes is whole and one more is cut; a read stops
// once readMaxBytes have been shown; a file read to its end has no
// "read on" footer.
func TestReadFileEdges(t *testing.T) {
	w := demoWorkspace(t)
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(w.Dir(), name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(args map[string]any) Result {
		t.Helper()
		return call(t, tools, "read_file", args)
	}
	write("latin1-first.txt", "caf\xe9\nok\n")
	write("latin1-later.txt", "ok\nstill ok\ncaf\xe9\n")
	write("nul.txt", "text\n\x00binary\n")
	for name, binary := range map[string]bool{"latin1-first.txt": true, "latin1-later.txt": false, "nul.txt": true} {
		r := read(map[string]any{"path": name})
		if got := strings.Contains(r.Content, "looks binary"); got != binary {
			t.Errorf("read_file %s = %q; want binary = %v", name, r.Content, binary)
		}
	}

	whole, over := strings.Repeat("é", lineMaxRunes), strings.Repeat("é", lineMaxRunes+1)
	write("long.txt", whole+"\n"+over+"\n")
	r := read(map[string]any{"path": "long.txt"})
	lines := strings.Split(r.Content, "\n")
	if len(lines) < 2 || !strings.HasSuffix(lines[0], whole) || strings.Contains(lines[0], "[line cut]") || !strings.HasSuffix(lines[1], " …[line cut]") {
		t.Errorf("lines of %d and %d runes: %.80q…; want the first whole, the second cut", lineMaxRunes, lineMaxRunes+1, r.Content)
	}
	if strings.Contains(r.Content, "read on") {
		t.Errorf("a file read to its end says to read on: %q", r.Content[len(r.Content)-80:])
	}

	// Lines of 248 bytes are shown as 256 ("%6d\t" and a newline): the
	// bound is reached exactly after readMaxBytes/256 lines.
	n := readMaxBytes / 256
	var b strings.Builder
	for i := range n + 10 {
		fmt.Fprintf(&b, "%-248d\n", i)
	}
	write("big.txt", b.String())
	r = read(map[string]any{"path": "big.txt", "limit": 2000})
	if want := fmt.Sprintf("[lines 1-%d of %d; read on with offset=%d]", n, n+10, n+1); !strings.HasSuffix(strings.TrimSpace(r.Content), want) {
		t.Errorf("read_file of %d lines of 256 shown bytes ends %q; want %q", n+10, r.Content[len(r.Content)-80:], want)
	}
}

// TestListDirEdges: list_dir marks links with @ (and nothing else), and
// names how many entries it left out past 500.
func TestListDirEdges(t *testing.T) {
	w := demoWorkspace(t)
	dir := filepath.Join(w.Dir(), "many")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 503 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("go.mod", filepath.Join(w.Dir(), "link")); err != nil {
		t.Fatal(err)
	}
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	if r := call(t, tools, "list_dir", map[string]any{"path": "many"}); !strings.HasSuffix(r.Content, "… 3 more entries\n") {
		t.Errorf("list_dir of 503 entries ends %q; want … 3 more entries", r.Content[max(0, len(r.Content)-60):])
	}
	r := call(t, tools, "list_dir", map[string]any{})
	if !strings.Contains(r.Content, "\nlink@\n") || strings.Contains(r.Content, "go.mod@") || strings.Contains(r.Content, "docs@") {
		t.Errorf("list_dir = %q; want the link marked with @, and only it", r.Content)
	}
}

// TestEditReadsOnlyRegularFiles: edit_file reads the file it edits without
// following a link and only when it is a regular file: a link (inside or
// out) is refused saying where it leads — never by what the file it
// points to holds — and a FIFO or a directory is "not a regular file".
func TestEditReadsOnlyRegularFiles(t *testing.T) {
	w := demoWorkspace(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"out": outside, "in": "go.mod"} {
		if err := os.Symlink(to, filepath.Join(w.Dir(), name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(w.Dir(), "pipe"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	for _, tc := range []struct{ path, want string }{
		{"out", "leads outside the workspace"},
		{"in", "is a symlink to go.mod"},
		{"pipe", "not a regular file"},
		{"docs", "not a regular file"},
	} {
		r := call(t, tools, "edit_file", map[string]any{"path": tc.path, "old": "nothere", "new": "x"})
		if !r.IsError || !strings.Contains(r.Content, tc.want) {
			t.Errorf("edit_file %s = %q; want %q", tc.path, r.Content, tc.want)
		}
	}
}

// TestProtectedNameThatIsALink: a protected name is protected as given
// too, not only where it leads: .yagent or .claude a link to a plain
// directory of the workspace still guard what is beneath them, nested
// too (where sandbox.Protected, which resolves the root's, does not
// look), and .git a link still guards its hooks.
func TestProtectedNameThatIsALink(t *testing.T) {
	for _, mode := range walkModes {
		t.Run(mode.name, func(t *testing.T) {
			w := demoWorkspace(t)
			setWalkMode(t, w, mode.errno)
			for link, dir := range map[string]string{".git": "store", ".yagent": "conf", ".claude": "cl", "nested/.yagent": "conf2"} {
				if err := os.MkdirAll(filepath.Join(w.Dir(), dir, "hooks"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Dir(filepath.Join(w.Dir(), link)), 0o755); err != nil {
					t.Fatal(err)
				}
				to, _ := filepath.Rel(filepath.Dir(filepath.Join(w.Dir(), link)), filepath.Join(w.Dir(), dir))
				if err := os.Symlink(to, filepath.Join(w.Dir(), link)); err != nil {
					t.Fatal(err)
				}
			}
			tools := FSTools(w, ShellPolicy{Approval: ApproveNever, Allowed: true})
			for _, p := range []string{".git/hooks/pre-commit", ".yagent/config.yaml", ".claude/settings.json", "nested/.yagent/config.yaml"} {
				r := call(t, tools, "write_file", map[string]any{"path": p, "content": "evil\n"})
				if !r.IsError || !strings.Contains(r.Content, "is a protected path") {
					t.Errorf("write_file %s through a link = %q; want refused as protected when checked", p, r.Content)
				}
			}
			for _, p := range []string{"store/hooks/pre-commit", "conf/config.yaml", "cl/settings.json", "conf2/config.yaml"} {
				if _, err := os.Stat(filepath.Join(w.Dir(), p)); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
}

// TestWriteFileEdges: a question about replacing a file shows what it
// holds now (Old) and that it is not new; content of exactly
// writeMaxBytes is written and one byte more refused; list_dir gives each
// file's size and says when a directory is empty.
func TestWriteFileEdges(t *testing.T) {
	w := demoWorkspace(t)
	var asked []Question
	ask := askFunc(func(q Question) Answer { asked = append(asked, q); return Allow })
	tools := FSTools(w, ShellPolicy{Approval: ApproveUntrusted, Ask: ask})
	if r := call(t, tools, "write_file", map[string]any{"path": "go.mod", "content": "module x\n"}); r.IsError {
		t.Fatalf("write_file go.mod = %q", r.Content)
	}
	if len(asked) != 1 || asked[0].Old != "module example.com/demo\n\ngo 1.26\n" || asked[0].New != "module x\n" || asked[0].Created {
		t.Errorf("the question about replacing go.mod = %+v; want its old and new content", asked)
	}

	never := FSTools(w, ShellPolicy{Approval: ApproveNever})
	for _, args := range []map[string]any{{"path": ".", "content": "x"}, {"path": "", "content": "x"}, {"path": w.Dir(), "content": "x"}} {
		if r := call(t, never, "write_file", args); !r.IsError || !strings.Contains(r.Content, "not the workspace root") {
			t.Errorf("write_file %v = %q; want refused: the workspace root", args, r.Content)
		}
	}
	if r := call(t, never, "edit_file", map[string]any{"path": ".", "old": "a", "new": "b"}); !r.IsError || !strings.Contains(r.Content, "not the workspace root") {
		t.Errorf("edit_file . = %q; want refused: the workspace root", r.Content)
	}
	if r := call(t, never, "write_file", map[string]any{"path": "max.txt", "content": strings.Repeat("x", writeMaxBytes)}); r.IsError {
		t.Errorf("write_file of exactly %d bytes = %q; want it written", writeMaxBytes, r.Content)
	}
	if r := call(t, never, "write_file", map[string]any{"path": "over.txt", "content": strings.Repeat("x", writeMaxBytes+1)}); !r.IsError || !strings.Contains(r.Content, "over the 4 MiB limit") {
		t.Errorf("write_file of %d bytes = %q; want refused", writeMaxBytes+1, r.Content[:min(len(r.Content), 100)])
	}

	if err := os.MkdirAll(filepath.Join(w.Dir(), "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := call(t, never, "list_dir", map[string]any{"path": "empty"}); r.Content != "(empty directory)\n" {
		t.Errorf("list_dir of an empty directory = %q", r.Content)
	}
	if r := call(t, never, "list_dir", map[string]any{}); !strings.Contains(r.Content, "go.mod\t9\n") || !strings.Contains(r.Content, fmt.Sprintf("max.txt\t%d\n", writeMaxBytes)) {
		t.Errorf("list_dir = %q; want each file's size", r.Content)
	}
}

// TestShownNames: a server's or tool's name is shown in backticks when it
// is plain, else Go-quoted, so nothing in it acts on the terminal or
// passes for the question's own text.
func TestShownNames(t *testing.T) {
	for in, want := range map[string]string{
		"fs":           "`fs`",
		"write_file":   "`write_file`",
		"two words":    `"two words"`,
		"tick`s":       "\"tick`s\"",
		"a\x1b[2Kb":    `"a\x1b[2Kb"`,
		"rtl\u202eexe": `"rtl\u202eexe"`,
		"":             `""`,
		"caf\u00e9":    "`caf\u00e9`",
	} {
		if got := shown(in); got != want {
			t.Errorf("shown(%q) = %s; want %s", in, got, want)
		}
	}
}

// TestWorkspacePaths: a workspace opened through a link is its real
// directory; an absolute path inside it is accepted as the relative one,
// its parent and anything beside it are outside; read_file of a directory
// says to use list_dir.
func TestWorkspacePaths(t *testing.T) {
	real := demoWorkspace(t).Dir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	w, err := OpenWorkspace(link)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Dir() != real {
		t.Errorf("a workspace opened through %s is %s; want the real directory %s", link, w.Dir(), real)
	}
	for p, want := range map[string]string{
		filepath.Join(real, "docs", "readme.txt"): "docs/readme.txt",
		real:                      ".",
		filepath.Join(real, ".."): "",
		filepath.Dir(real) + "/x": "",
		real + "-other/docs":      "",
		"docs/../go.mod":          "go.mod",
	} {
		got, err := w.Rel(p)
		if want == "" {
			if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
				t.Errorf("Rel(%s) = %q, %v; want it outside", p, got, err)
			}
			continue
		}
		if err != nil || filepath.ToSlash(got) != want {
			t.Errorf("Rel(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
	tools := append(FSTools(w, ShellPolicy{Approval: ApproveNever}), ShellTool(w, ShellPolicy{Approval: ApproveNever, Allowed: true}))
	if r := call(t, tools, "read_file", map[string]any{"path": filepath.Join(real, "go.mod")}); r.IsError || !strings.Contains(r.Content, "module example.com/demo") {
		t.Errorf("read_file of an absolute path inside = %q", r.Content)
	}
	if r := call(t, tools, "shell", map[string]any{"command": "pwd", "cwd": "docs"}); r.IsError || !strings.Contains(r.Content, filepath.Join(real, "docs")) {
		t.Errorf("shell in docs of a workspace opened through a link = %q", r.Content)
	}
	if r := call(t, tools, "read_file", map[string]any{"path": "docs"}); !r.IsError || !strings.Contains(r.Content, "is a directory: use list_dir") {
		t.Errorf("read_file of a directory = %q", r.Content)
	}
}

// TestProtectedEdges: a file named .git anywhere (a nested repository's
// link to its git directory) is protected, and so is the path of the
// hooks directory itself, not only what is beneath it.
func TestProtectedEdges(t *testing.T) {
	w := demoWorkspace(t)
	if err := os.MkdirAll(filepath.Join(w.Dir(), ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir(), ".git", "config"), []byte("[core]\n\thooksPath = myhooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"sub/.git", ".GIT", "myhooks", "myhooks/pre-commit", "sub/.envrc", "a/b/.mcp.json"} {
		if why, ok := w.Protected(p); !ok || why == "" {
			t.Errorf("Protected(%s) = %q, %v; want it protected", p, why, ok)
		}
	}
	for _, p := range []string{"sub/git", "myhooks2/x", "my/hooks", ".gitignore", ".envrc.example"} {
		if why, ok := w.Protected(p); ok {
			t.Errorf("Protected(%s) = %q; want it plain", p, why)
		}
	}
}

// TestProtectedIgnorables: the characters a filesystem ignores in names
// (U+200B–U+200F, U+202A–U+202E, U+206A–U+206F and U+FEFF) are dropped
// when a name is compared, each range at both ends; the characters beside
// those ranges are not, so a name holding one is another name.
func TestProtectedIgnorables(t *testing.T) {
	w := demoWorkspace(t)
	for _, r := range []rune{0x200b, 0x200f, 0x202a, 0x202e, 0x206a, 0x206f, 0xfeff} {
		if p := ".g" + string(r) + "it/config"; !protected(w, p) {
			t.Errorf("Protected(%q) = false; U+%04X is ignored in names", p, r)
		}
	}
	for _, r := range []rune{0x200a, 0x2010, 0x2029, 0x202f, 0x2069, 0x2070, 0xfefe, 0xff00, 0x2030} {
		if p := ".git" + string(r) + "/config"; protected(w, p) {
			t.Errorf("Protected(%q) = true; U+%04X is part of the name", p, r)
		}
	}
}

// TestProtectedFoldsEveryCase: a protected name is compared as a
// case-insensitive filesystem folds it, through every rune of a letter's
// fold orbit — the long s (U+017F) is s and S, the Kelvin sign (U+212A)
// is k and K — not only its upper and lower case.
func TestProtectedFoldsEveryCase(t *testing.T) {
	w := demoWorkspace(t)
	for _, p := range []string{".mcp.j\u017fon", ".claude/\u017fettings.json", ".CLAUDE/\u017fETTINGS.JSON", "sub/.mcp.j\u017fon"} {
		if !protected(w, p) {
			t.Errorf("Protected(%q) = false; U+017F folds with s", p)
		}
	}
	if got, want := foldName("\u212a\u017f"), "ks"; got != want {
		t.Errorf("foldName(Kelvin sign, long s) = %q; want %q", got, want)
	}
}

func protected(w *Workspace, p string) bool {
	_, ok := w.Protected(p)
	return ok
}
