package agents

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of the search tools.
const (
	globMaxResults = 500
	grepMaxMatches = 200
	grepMaxFile    = 2 << 20
)

// Arguments of the search tools (schemas.json has their descriptions).
type (
	globIn struct {
		Pattern string `json:"pattern"`
	}
	grepIn struct {
		Pattern    string `json:"pattern"`
		Path       string `json:"path,omitempty"`
		Glob       string `json:"glob,omitempty"`
		IgnoreCase bool   `json:"ignore_case,omitempty"`
	}
)

// skipDirs are never walked by glob and grep.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true}

// globRegexp compiles a glob with ** into a regexp over slash paths.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	p := filepath.ToSlash(pattern)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [ in glob %q", pattern)
			}
			b.WriteString(p[i : i+j+1])
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func (w *Workspace) glob(ctx context.Context, _ *Call, a globIn) (Result, error) {
	if filepath.IsAbs(a.Pattern) || slices.Contains(strings.Split(filepath.ToSlash(a.Pattern), "/"), "..") {
		return ErrorResult("glob %q must be relative to the workspace root", a.Pattern), nil
	}
	re, err := globRegexp(path.Clean(filepath.ToSlash(a.Pattern)))
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	var matches []string
	more := 0
	err = fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return nil
		}
		if d.IsDir() && p != "." && skipDirs[d.Name()] {
			return fs.SkipDir
		}
		if p != "." && re.MatchString(p) {
			if len(matches) < globMaxResults {
				if d.IsDir() {
					p += "/"
				}
				matches = append(matches, p)
			} else {
				more++
			}
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if len(matches) == 0 {
		return Result{Content: "no files match " + a.Pattern, Summary: "0 matches"}, nil
	}
	out := strings.Join(matches, "\n") + "\n"
	if more > 0 {
		out += fmt.Sprintf("… %d more matches: narrow the pattern\n", more)
	}
	return Result{Content: out, Summary: Count(len(matches)+more, "match", "matches")}, nil
}

func (w *Workspace) grep(ctx context.Context, _ *Call, a grepIn) (Result, error) {
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return ErrorResult("bad pattern: %v (Go regexp syntax)", err), nil
	}
	var only *regexp.Regexp
	if a.Glob != "" {
		g := a.Glob
		if !strings.Contains(g, "/") {
			g = "**/" + g
		}
		if only, err = globRegexp(g); err != nil {
			return ErrorResult("%v", err), nil
		}
	}
	start, err := w.Rel(a.Path)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	fsys := w.root.FS()
	var b strings.Builder
	matches, files := 0, 0
	err = fs.WalkDir(fsys, filepath.ToSlash(start), func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if p == filepath.ToSlash(start) {
				return w.explain(a.Path, err)
			}
			return nil
		}
		if d.IsDir() {
			if p != "." && p != filepath.ToSlash(start) && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || only != nil && !only.MatchString(p) || matches >= grepMaxMatches {
			return nil
		}
		files += grepFile(fsys, p, re, &b, &matches)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return ErrorResult("%v", err), nil
	}
	if matches == 0 {
		return Result{Content: "no matches for " + a.Pattern, Summary: "0 matches"}, nil
	}
	if matches >= grepMaxMatches {
		fmt.Fprintf(&b, "… stopped at %d matches: narrow the pattern or the path\n", grepMaxMatches)
	}
	return Result{Content: b.String(), Summary: Count(matches, "match", "matches") + " in " + Count(files, "file", "files")}, nil
}

// grepFile appends the matching lines of one text file; it returns 1 when
// the file matched.
func grepFile(fsys fs.FS, p string, re *regexp.Regexp, b *strings.Builder, matches *int) int {
	f, err := fsys.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() > grepMaxFile {
		return 0
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), grepMaxFile)
	hit, line := 0, 0
	for sc.Scan() && *matches < grepMaxMatches {
		line++
		text := sc.Text()
		if line == 1 && (strings.IndexByte(text, 0) >= 0 || !utf8.ValidString(text)) {
			return 0 // binary
		}
		if re.MatchString(text) {
			if utf8.RuneCountInString(text) > 300 {
				text = string([]rune(text)[:300]) + "…"
			}
			fmt.Fprintf(b, "%s:%d: %s\n", p, line, text)
			*matches++
			hit = 1
		}
	}
	return hit
}
