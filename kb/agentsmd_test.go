package kb

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"testing"
)

// TestAgentsMDNamesRealTests keeps AGENTS.md true: every test it cites
// exists in the file it names.
func TestAgentsMDNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile("AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)\\w+)` \\(`([^`]+)`\\)").FindAllStringSubmatch(string(doc), -1)
	if len(refs) < 10 {
		t.Fatalf("AGENTS.md cites %d tests; the format is `TestName` (`file_test.go`)", len(refs))
	}
	funcs := map[string]map[string]bool{}
	for _, r := range refs {
		name, file := r[1], r[2]
		if funcs[file] == nil {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Errorf("AGENTS.md cites %s in %s: %v", name, file, err)
				continue
			}
			funcs[file] = map[string]bool{}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
					funcs[file][fn.Name.Name] = true
				}
			}
		}
		if !funcs[file][name] {
			t.Errorf("AGENTS.md cites %s (%s), which does not exist", name, file)
		}
	}
}
