//go:build ignore

// mutation-schemata rewrites a package's files (in place: run it on a
// scratch copy) so that every gremlins mutant listed is compiled in at
// once, each behind a switch on one number read once at process start
// (mutant schemata): the package, and every test binary that imports it,
// is built once, and scripts/mutation-schemata.sh runs that one binary
// per mutant with the number patched into it.
//
//	go run scripts/mutation-schemata.go DIR MUTANTS
//
// MUTANTS has one mutant a line, "ID TYPE FILE LINE COL" (gremlins'
// dry-run positions; IDs from 1). The number lives in the binary's data as
// the string "YAGENT-MUTANT-SELECTOR:NNNNN" (0: no mutant); it is not
// read from the environment, because a sandboxed child (the helper) gets
// an environment filtered by the sandbox, and not from a file, which a
// view may hide. The copy of the binary a mutant runs has its digits
// replaced; the child the test starts through /proc/self/exe is that
// same copy.
//
// Each mutated operator becomes a function literal of the expression's
// type: `a < b` becomes
//
//	func() bool { switch mutantID { case 7: return (a) >= (b); case 8: return (a) <= (b) }; return (a) < (b) }()
//
// (only the chosen branch evaluates its operands, once); `-x` likewise;
// `i++` becomes `i += func() T { if mutantID == N { return ^T(0) }; return 1 }()`.
// Printed on stdout, one line each: "skip ID WHY" for a mutant that is
// not compiled in — "nonviable" (string + turned into -: no mutant,
// not counted, as scripts/mutation.sh counts it) or "const" (inside a
// constant declaration or an array length, where a function call cannot
// stand: the caller judges it the old way, one build per mutant).
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type mutant struct {
	id   int
	typ  string
	file string
	line int
	col  int
}

// to is gremlins' mutation of each operator, per mutation type (as
// scripts/mutation.sh's mutate_at).
var to = map[string]map[string]string{
	"CONDITIONALS_NEGATION": {"==": "!=", "!=": "==", ">=": "<", ">": "<=", "<=": ">", "<": ">="},
	"CONDITIONALS_BOUNDARY": {">=": ">", ">": ">=", "<=": "<", "<": "<="},
	"ARITHMETIC_BASE":       {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"},
	"INVERT_NEGATIVES":      {"-": "+"},
	"INCREMENT_DECREMENT":   {"++": "--", "--": "++"},
}

// target is one node with the mutants it carries.
type target struct {
	node    ast.Node
	mutants []mutant
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/mutation-schemata.go DIR MUTANTS")
		os.Exit(2)
	}
	if err := rewrite(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "mutation-schemata:", err)
		os.Exit(1)
	}
}

func rewrite(dir, list string) error {
	muts, err := readMutants(list)
	if err != nil {
		return err
	}
	ctx := build.Default
	ctx.CgoEnabled = os.Getenv("CGO_ENABLED") != "0" && ctx.CgoEnabled
	bp, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return fmt.Errorf("read the package in %s: %w", dir, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	srcs := map[string][]byte{}
	for _, name := range bp.GoFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, name, b, parser.ParseComments)
		if err != nil {
			return err
		}
		files = append(files, f)
		srcs[name] = b
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(bp.ImportPath, fset, files, info)
	if err != nil {
		return fmt.Errorf("type-check %s: %w", dir, err)
	}
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	typeOf := func(e ast.Expr) string {
		t := info.Types[e].Type
		if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			t = types.Default(t)
		}
		return types.TypeString(t, qual)
	}

	for _, f := range files {
		name := fset.Position(f.Pos()).Filename
		var mine []mutant
		for _, m := range muts {
			if m.file == name {
				mine = append(mine, m)
			}
		}
		if len(mine) == 0 {
			continue
		}
		src := srcs[name]
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		targets := map[ast.Node]*target{}
		found := map[int]bool{}
		// inConst: the node stands where only a constant may.
		var stack []ast.Node
		inConst := func() bool {
			for i, n := range stack {
				if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.CONST {
					return true
				}
				if a, ok := n.(*ast.ArrayType); ok && i+1 < len(stack) && stack[i+1] == a.Len {
					return true
				}
			}
			return false
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return false
			}
			stack = append(stack, n)
			var opPos token.Pos
			var op string
			switch n := n.(type) {
			case *ast.BinaryExpr:
				opPos, op = n.OpPos, n.Op.String()
			case *ast.UnaryExpr:
				opPos, op = n.OpPos, n.Op.String()
			case *ast.IncDecStmt:
				opPos, op = n.TokPos, n.Tok.String()
			default:
				return true
			}
			p := fset.Position(opPos)
			for _, m := range mine {
				if m.line != p.Line || m.col != p.Column || to[m.typ][op] == "" {
					continue
				}
				// (gremlins' INVERT_NEGATIVES turns a binary - into + too,
				// as ARITHMETIC_BASE does: the same mutant twice.)
				found[m.id] = true
				if b, ok := n.(*ast.BinaryExpr); ok && op == "+" {
					if t, ok := info.Types[b].Type.Underlying().(*types.Basic); ok && t.Info()&types.IsString != 0 {
						fmt.Printf("skip %d nonviable\n", m.id)
						continue
					}
				}
				if inConst() {
					fmt.Printf("skip %d const\n", m.id)
					continue
				}
				if targets[n] == nil {
					targets[n] = &target{node: n}
				}
				targets[n].mutants = append(targets[n].mutants, m)
			}
			return true
		})
		for _, m := range mine {
			if !found[m.id] {
				return fmt.Errorf("mutant %d (%s at %s:%d:%d): no such operator there", m.id, m.typ, m.file, m.line, m.col)
			}
		}
		var ts []*target
		for _, t := range targets {
			ts = append(ts, t)
		}
		sort.Slice(ts, func(i, j int) bool {
			a, b := ts[i].node, ts[j].node
			if a.Pos() != b.Pos() {
				return a.Pos() < b.Pos()
			}
			return a.End() > b.End() // the outer one first
		})
		// emit is src[start:end] with every target inside it rewritten.
		var emit func(start, end int) string
		emit = func(start, end int) string {
			var sb strings.Builder
			at := start
			for _, t := range ts {
				s, e := off(t.node.Pos()), off(t.node.End())
				if s < at || e > end {
					continue // before what is emitted, or an inner one already taken
				}
				sb.Write(src[at:s])
				sb.WriteString(transform(t, emit, off, typeOf))
				at = e
			}
			sb.Write(src[at:end])
			return sb.String()
		}
		out := emit(0, len(src))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644); err != nil {
			return err
		}
	}
	sel := "package " + pkg.Name() + `

// Written by scripts/mutation-schemata.go: the mutant this process runs
// (0: none), from digits scripts/mutation-schemata.sh patches into the
// binary.
var mutantTag = "YAGENT-MUTANT-SELECTOR:00000"

var mutantID = func() int {
	n := 0
	for i := len(mutantTag) - 5; i < len(mutantTag); i++ {
		n = n*10 + int(mutantTag[i]-'0')
	}
	return n
}()
`
	return os.WriteFile(filepath.Join(dir, "zz_mutant_schemata.go"), []byte(sel), 0o644)
}

func transform(t *target, emit func(int, int) string, off func(token.Pos) int, typeOf func(ast.Expr) string) string {
	text := func(e ast.Node) string { return "(" + emit(off(e.Pos()), off(e.End())) + ")" }
	var sb strings.Builder
	switch n := t.node.(type) {
	case *ast.BinaryExpr:
		x, y, op := text(n.X), text(n.Y), n.Op.String()
		fmt.Fprintf(&sb, "func() %s { switch mutantID {", typeOf(n))
		for _, m := range t.mutants {
			fmt.Fprintf(&sb, " case %d: return %s %s %s;", m.id, x, to[m.typ][op], y)
		}
		fmt.Fprintf(&sb, " }; return %s %s %s }()", x, op, y)
	case *ast.UnaryExpr:
		x := text(n.X)
		fmt.Fprintf(&sb, "func() %s { switch mutantID {", typeOf(n))
		for _, m := range t.mutants {
			fmt.Fprintf(&sb, " case %d: return +%s;", m.id, x)
		}
		fmt.Fprintf(&sb, " }; return -%s }()", x)
	case *ast.IncDecStmt:
		x, typ := emit(off(n.X.Pos()), off(n.X.End())), typeOf(n.X)
		op := "+="
		if n.Tok == token.DEC {
			op = "-="
		}
		fmt.Fprintf(&sb, "%s %s func() %s { switch mutantID {", x, op, typ)
		for _, m := range t.mutants {
			fmt.Fprintf(&sb, " case %d: return ^%s(0);", m.id, typ)
		}
		sb.WriteString(" }; return 1 }()")
	}
	return sb.String()
}

func readMutants(list string) ([]mutant, error) {
	f, err := os.Open(list)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mutant
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) == 0 {
			continue
		}
		if len(w) != 5 {
			return nil, fmt.Errorf("%s: want ID TYPE FILE LINE COL, not %q", list, sc.Text())
		}
		var m mutant
		var errs [3]error
		m.id, errs[0] = strconv.Atoi(w[0])
		m.typ, m.file = w[1], w[2]
		m.line, errs[1] = strconv.Atoi(w[3])
		m.col, errs[2] = strconv.Atoi(w[4])
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("%s: %q: %w", list, sc.Text(), e)
			}
		}
		if to[m.typ] == nil {
			return nil, fmt.Errorf("%s: unknown mutation type %s", list, m.typ)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}
