package markdown

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// goldmarkHTML is what the web view rendered before markdown.go: goldmark
// with GitHub's extensions and its safe defaults (a test-only dependency
// now). Table alignment is written as the align attribute (the page's
// Content-Security-Policy refuses goldmark's inline style).
func goldmarkHTML(t testing.TB, src string) string {
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(b.String(), ` style="text-align:`, ` align="`)
	for _, a := range []string{"left", "right", "center"} {
		out = strings.ReplaceAll(out, ` align="`+a+`;"`, ` align="`+a+`"`)
	}
	return out
}

// knownDifferences are the examples where markdown.go and goldmark part,
// each for a reason: goldmark's quirks (a raw HTML block said twice, spaces
// kept before a hard break), edge cases of
// tabs inside containers, full Unicode case folding of labels ("ẞ" = "SS"),
// lazy lines under a setext underline in a quote, a reference definition
// alone making a list loose, a "--" under a list item read as a table.
var knownDifferences = map[string]bool{
	"spec 5": true, "spec 6": true, "spec 7": true, "spec 93": true, "spec 169": true, "spec 170": true,
	"spec 171": true, "spec 172": true, "spec 178": true, "spec 179": true, "spec 180": true, "spec 182": true, "spec 216": true,
	"spec 226": true, "spec 317": true, "spec 540": true, "spec 635": true, "table 14": true,
}

// TestLikeGoldmark pins that the view renders Markdown as it did
// with goldmark: every example of the CommonMark spec and goldmark's own
// cases of the GitHub extensions (tables, strikethrough, task lists,
// autolinks) render to the same HTML, but the known differences; and the
// notes of this package's fixtures too.
func TestLikeGoldmark(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yuin/goldmark").Output()
	if err != nil {
		t.Fatalf("go list goldmark: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	cases := map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, "_test", "spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec []struct {
		Markdown string
		Example  int
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	for _, e := range spec {
		cases["spec "+strconv.Itoa(e.Example)] = e.Markdown
	}
	for _, f := range []string{"linkify", "strikethrough", "table", "tasklist"} {
		b, err := os.ReadFile(filepath.Join(dir, "extension", "_test", f+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		for c := range strings.SplitSeq(string(b), "//= = = = = = = = = = = = = = = = = = = = = = = =//") {
			parts := strings.Split(c, "//- - - - - - - - -//\n")
			if len(parts) < 3 || strings.Contains(parts[0], "OPTIONS") {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimSpace(parts[0]), ":")
			cases[f+" "+name] = parts[1]
		}
	}
	notes, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, n := range notes {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		cases[n] = string(b)
	}
	if len(cases) < 690 || len(notes) == 0 {
		t.Fatalf("%d cases, %d notes: the corpus went missing", len(cases), len(notes))
	}
	same := 0
	for name, src := range cases {
		want, got := goldmarkHTML(t, src), HTML(src)
		switch {
		case got == want:
			same++
			if knownDifferences[name] {
				t.Errorf("%s renders as goldmark does now: drop it from knownDifferences", name)
			}
		case !knownDifferences[name]:
			t.Errorf("%s:\n%s\ngoldmark:\n%s\nmarkdown.go:\n%s", name, src, want, got)
		}
	}
	t.Logf("%d of %d render as goldmark does", same, len(cases))
}

// allowed are the tags markdown.go writes; anything else would be raw HTML
// let through.
var tagRe = regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)|<!-- raw HTML omitted -->`)

var allowedTags = map[string]bool{"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "hr": true, "pre": true,
	"code": true, "blockquote": true, "ul": true, "ol": true, "li": true, "em": true, "strong": true, "del": true, "a": true, "img": true,
	"br": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "input": true}

// FuzzMarkdown: any input renders, with no tag but markdown.go's own, no
// link or image to a scheme that runs code, and no attribute broken out of.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# h\n\n- [x] a\n- b\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n", "<script>alert(1)</script>", "[x](javascript:alert(1))",
		"![i](data:text/html,<b>)", "> > - *a **b** c*\n>   ```go\n>   x\n", "www.a.b/<x>\"y", "a@b.co_", "<a href=\"x\" onclick='y'>", "[a]: </u> 'T'\n\n[a]",
		strings.Repeat(">", 200) + " x", strings.Repeat("- ", 200) + "x", strings.Repeat("*a ", 500), "`` ` ``", "&#0; &amp; &#x110000;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out := HTML(src)
		for _, m := range tagRe.FindAllStringSubmatch(out, -1) {
			if m[2] != "" && !allowedTags[strings.ToLower(m[2])] {
				t.Fatalf("HTML(%q) writes <%s%s>:\n%s", src, m[1], m[2], out)
			}
		}
		for _, attr := range []string{`href="`, `src="`} {
			for rest := out; ; {
				i := strings.Index(rest, attr)
				if i < 0 {
					break
				}
				rest = rest[i+len(attr):]
				if runsCode(rest[:strings.IndexByte(rest, '"')]) {
					t.Fatalf("HTML(%q) links a dangerous URL:\n%s", src, out)
				}
			}
		}
		// Every quote in an attribute is the attribute's own: text never
		// holds a raw '"' or '<' (escaped as &quot; and &lt;).
		if strings.Contains(tagRe.ReplaceAllString(out, ""), "<") {
			t.Fatalf("HTML(%q) leaves a raw '<':\n%s", src, out)
		}
	})
}

// runsCode is the test's own judge of a written URL: a scheme that runs
// code or reads local files, a data: URL but a raster image.
func runsCode(u string) bool {
	u = strings.ToLower(html.UnescapeString(u))
	if strings.HasPrefix(u, "data:image/png") || strings.HasPrefix(u, "data:image/gif") || strings.HasPrefix(u, "data:image/jpeg") || strings.HasPrefix(u, "data:image/webp") {
		return false
	}
	for _, s := range []string{"javascript:", "vbscript:", "file:", "data:"} {
		if strings.HasPrefix(u, s) {
			return true
		}
	}
	return false
}
