package repotest

import (
	"bytes"
	"flag"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var update = flag.Bool("update", false, "rewrite the line numbers of tests named in AGENTS.md files")

const module = "github.com/yagent/yagent"

// repoRoot is two levels up from internal/repotest.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// packageDirs returns the repo-relative directories holding non-test Go
// files, outside testdata.
func packageDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") && p != root) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			if !slices.Contains(dirs, rel) {
				dirs = append(dirs, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// testFuncs maps every Test/Fuzz/Benchmark function of the repo to
// "file:line" (repo-relative).
func testFuncs(t *testing.T, root string) map[string][]string {
	t.Helper()
	funcs := map[string][]string{}
	re := regexp.MustCompile(`^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(data), "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				funcs[m[1]] = append(funcs[m[1]], rel+":"+strconv.Itoa(i+1))
			}
		}
		return nil
	})
	return funcs
}

// TestAgentsMD enforces that every package has an AGENTS.md and that every
// test an AGENTS.md names exists — at the named file and line when one is
// given.
func TestAgentsMD(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range packageDirs(t, root) {
		doc := filepath.Join(root, dir, "AGENTS.md")
		if _, err := os.Stat(doc); err != nil {
			t.Errorf("package %s has no AGENTS.md (boundary, hard constraints, the tests that pin them)", dir)
		}
	}
	funcs := testFuncs(t, root)
	// `TestName` optionally followed by (`file_test.go:NN`).
	ref := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)`(?: \\(`([^`:]+_test\\.go):([0-9]+)`\\))?")
	var docs []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.Name() == "AGENTS.md" {
			docs = append(docs, p)
		}
		return nil
	})
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		relDoc, _ := filepath.Rel(root, doc)
		changed := false
		out := ref.ReplaceAllStringFunc(string(data), func(m string) string {
			sm := ref.FindStringSubmatch(m)
			name, file, line := sm[1], sm[2], sm[3]
			locs, ok := funcs[name]
			if !ok {
				t.Errorf("%s names %s, which does not exist", relDoc, name)
				return m
			}
			if file == "" {
				return m
			}
			want := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(relDoc), file)))
			for _, loc := range locs {
				f, l, _ := strings.Cut(loc, ":")
				if filepath.ToSlash(f) != want {
					continue
				}
				if l != line {
					if *update {
						changed = true
						return strings.Replace(m, ":"+line+"`", ":"+l+"`", 1)
					}
					t.Errorf("%s: %s is at %s:%s, not line %s (go test ./internal/repotest -update)", relDoc, name, file, l, line)
				}
				return m
			}
			t.Errorf("%s: %s is not in %s (found in %v)", relDoc, name, file, locs)
			return m
		})
		if changed {
			if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fileRef matches a Go file named in backticks in an AGENTS.md: a path
// relative to the package directory (`loop.go`, `../config/gate.go`), a
// glob over one package's files (`sys_*.go`), optionally followed by a
// line or a symbol (`loop_test.go:16`, `setup.go: openSession`). A bare
// suffix such as `_test.go` is not a file name.
var fileRef = regexp.MustCompile("`((?:\\.\\./)*(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9][A-Za-z0-9_*-]*\\.go)(?::[^`]*)?`")

// TestAgentsMDFiles keeps each package's file map true: every Go file an
// AGENTS.md names exists (relative to the package directory), and every
// non-test Go file of the package is named at least once in its AGENTS.md.
func TestAgentsMDFiles(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range packageDirs(t, root) {
		docPath := filepath.Join(root, dir, "AGENTS.md")
		data, err := os.ReadFile(docPath)
		if err != nil {
			continue // TestAgentsMD reports the missing file
		}
		doc := filepath.ToSlash(filepath.Join(dir, "AGENTS.md"))
		named := map[string]bool{}
		for _, m := range fileRef.FindAllStringSubmatch(string(data), -1) {
			ref := m[1]
			target := filepath.Join(root, dir, filepath.FromSlash(ref))
			matches, err := filepath.Glob(target)
			if err != nil || len(matches) == 0 {
				t.Errorf("%s names %s, which does not exist (%s)", doc, ref, filepath.ToSlash(filepath.Join(dir, ref)))
				continue
			}
			for _, p := range matches {
				if filepath.Dir(p) == filepath.Join(root, dir) {
					named[filepath.Base(p)] = true
				}
			}
		}
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			if !named[name] {
				t.Errorf("%s does not name %s: say in its Boundary what the file holds", doc, filepath.ToSlash(filepath.Join(dir, name)))
			}
		}
	}
}

// layering lists, per package, the module packages it must never import.
var layering = map[string][]string{
	"config":     {"blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "llm", "toolspec", "sandbox"},
	"blackboard": {"agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "llm", "toolspec"},
	"llm":        {"blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "toolspec"},
	"sleep":      {"director", "notebook", "kb", "mcp"},
	"notebook":   {"director", "sleep", "kb", "mcp"},
	"memory":     {"agents", "director", "notebook", "sleep", "kb", "mcp", "toolspec"},
	"kb":         {"blackboard", "agents", "director", "memory", "notebook", "sleep", "mcp", "llm"},
	"toolspec":   {"blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp"},
	"mcp":        {"director", "memory", "notebook", "sleep", "llm"},
	"queue":      {"director", "memory", "notebook", "sleep", "kb", "mcp", "toolspec", "sandbox"},
	"tui":        {"config", "blackboard", "director", "memory", "notebook", "sleep", "kb", "mcp", "llm", "toolspec", "sandbox", "queue"},
	"sandbox":    {"config", "blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "llm", "toolspec", "internal"},
	"webui":      {"director", "agents", "sleep", "kb", "mcp", "queue", "tui", "sandbox"},
	"batch":      {"director", "notebook", "sleep", "kb", "mcp", "tui", "webui", "sandbox"},
	"app":        {"director", "batch", "memory", "notebook", "sleep", "queue", "tui", "webui"},
	"change":     {"config", "blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "llm", "toolspec", "queue", "sandbox", "tui", "webui", "batch", "app", "internal", "event", "chat", "complete", "demo"},
	"chat":       {"batch", "queue", "webui", "mcp", "kb"},
	"complete":   {"director", "notebook", "sleep", "kb", "mcp", "tui", "webui", "queue", "batch", "chat"},
	"demo":       {"agents", "director", "memory", "app", "blackboard", "kb", "mcp", "tui", "webui"},
	"event":      {"config", "blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "toolspec", "sandbox", "queue", "tui", "webui", "batch", "app", "telemetry", "internal", "change", "chat", "complete", "demo"},
	"printer":    {"director", "memory", "notebook", "sleep", "kb", "mcp", "queue", "tui", "webui", "app", "chat", "sandbox", "change"},
	"budget":     {"config", "blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "toolspec", "sandbox", "queue", "tui", "webui", "batch", "app", "telemetry", "change", "chat", "complete", "demo", "event", "printer"},
	"skills":     {"config", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "llm", "toolspec", "app", "chat", "tui"},
	"acp":        {"tui", "printer", "webui", "queue", "batch"},
	"telemetry":  {"blackboard", "agents", "director", "memory", "notebook", "sleep", "kb", "mcp", "llm", "toolspec", "queue", "sandbox"},
}

// TestDeps enforces the import layering of SPEC §1: e.g. the blackboard
// never imports agents or director code, config imports no sibling.
func TestDeps(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range packageDirs(t, root) {
		top := strings.Split(filepath.ToSlash(dir), "/")[0]
		forbidden, ok := layering[top]
		if !ok {
			continue
		}
		for imp, file := range imports(t, filepath.Join(root, dir)) {
			rest, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			target := strings.Split(rest, "/")[0]
			if slices.Contains(forbidden, target) {
				t.Errorf("%s imports %s (%s): %s must not depend on %s", dir, imp, file, top, target)
			}
		}
	}
}

func imports(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[p] = e.Name()
		}
	}
	return out
}

// TestPackageDocs requires a package doc comment in every package.
func TestPackageDocs(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range packageDirs(t, root) {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		found := false
		fset := token.NewFileSet()
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(root, dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
				found = true
			}
		}
		if !found {
			t.Errorf("package %s has no doc comment", dir)
		}
	}
}

// TestReadmeCICommand keeps README.md's test command and .ci/run equal:
// the command in README's "test" block must appear verbatim in .ci/run.
func TestReadmeCICommand(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := readmeCommand(t, string(readme), "test")
	if !strings.Contains(string(ci), "\n"+cmd+"\n") {
		t.Errorf(".ci/run does not run README's test command verbatim:\n%s", cmd)
	}
	if !strings.Contains(cmd, "go test -race -timeout 45m ./...") {
		t.Errorf("README's test command %q does not run go test -race -timeout 45m ./...", cmd)
	}
}

// readmeCommand returns the single command line in the fenced block that
// follows the marker <!-- command: NAME --> in README.md.
func readmeCommand(t *testing.T, readme, name string) string {
	t.Helper()
	marker := "<!-- command: " + name + " -->"
	_, after, ok := strings.Cut(readme, marker)
	if !ok {
		t.Fatalf("README.md has no %s marker", marker)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatalf("README.md: no ```sh block after %s", marker)
	}
	block, _, _ = strings.Cut(block, "```")
	return strings.TrimSpace(block)
}

// TestReadmeTOC keeps README.md's table of contents (between <!-- toc -->
// and <!-- /toc -->) true: every `## ` section is linked from it, in the
// order of the file, and every link in it points to a heading.
func TestReadmeTOC(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections, anchors := readmeHeadings(string(readme))
	_, rest, ok := strings.Cut(string(readme), "<!-- toc -->\n")
	toc, _, ok2 := strings.Cut(rest, "<!-- /toc -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no table of contents between <!-- toc --> and <!-- /toc -->")
	}
	var linked []string
	for _, m := range regexp.MustCompile(`\]\(#([^)]*)\)`).FindAllStringSubmatch(toc, -1) {
		if !anchors[m[1]] {
			t.Errorf("README.md's table of contents links #%s, which is no heading", m[1])
		}
		linked = append(linked, m[1])
	}
	var got []string // the sections linked, in the table's order
	for _, a := range linked {
		if slices.Contains(sections, a) {
			got = append(got, a)
		}
	}
	for _, s := range sections {
		if !slices.Contains(linked, s) {
			t.Errorf("README.md's table of contents does not link the section #%s", s)
		}
	}
	if !slices.Equal(got, sections) && len(got) == len(sections) {
		t.Errorf("README.md's table of contents lists the sections as %v; the file has them as %v", got, sections)
	}
}

// readmeHeadings returns the anchors of a Markdown file's `## ` headings, in
// order, and the set of every heading's anchor, as GitHub makes them
// (lower case; letters, digits, '-' and '_' kept, spaces as '-', the rest
// dropped; a repeated anchor gets -1, -2…). Lines in fenced code blocks are
// no headings.
func readmeHeadings(md string) (sections []string, all map[string]bool) {
	all = map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\n")
		if trimmed := strings.TrimLeft(line, " "); strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			switch {
			case fence == "":
				fence = trimmed[:3]
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		a := slug(strings.TrimSpace(line[level:]))
		if n := seen[a]; n > 0 {
			seen[a]++
			a = a + "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		all[a] = true
		if level == 2 {
			sections = append(sections, a)
		}
	}
	return sections, all
}

// slug is GitHub's anchor of a heading's text.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestMutantsApply pins that every hand-written mutant under
// scripts/mutants/ still applies to the code it mutates: a change that
// moves the guarded lines must bring its mutants along, or
// scripts/mutation.sh stops at the first stale patch.
func TestMutantsApply(t *testing.T) {
	root := repoRoot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	patches, err := filepath.Glob(filepath.Join(root, "scripts", "mutants", "*", "*.patch"))
	if err != nil {
		t.Fatal(err)
	}
	if len(patches) == 0 {
		t.Fatal("no hand-written mutants under scripts/mutants")
	}
	for _, p := range patches {
		cmd := exec.Command("git", "apply", "--check", p)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("%s no longer applies: regenerate it against the code it mutates (git diff of the same change)\n%s", rel, out)
		}
	}
}

// cmdLines is the most lines cmd/yagent's non-test files may hold
// together (issue 27): commands, flags, help and the choice of printer;
// what a command computes or renders lives in the package it belongs to.
const cmdLines = 5000

// TestCmdIsThin keeps cmd/yagent thin: a command that grows it past
// cmdLines moves its logic or its rendering out first.
func TestCmdIsThin(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "cmd", "yagent")
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		n += bytes.Count(b, []byte("\n"))
	}
	if n >= cmdLines {
		t.Errorf("cmd/yagent holds %d lines of non-test Go, the limit is under %d: move what a command computes or renders into its package (app, printer, or beside the type it prints)", n, cmdLines)
	}
}
