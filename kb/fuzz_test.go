package kb

import (
	"context"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzWikiLinks(f *testing.F) {
	for _, s := range []string{
		"see [[A]] and [[B|label]] and [[C#Head]]",
		"```\n[[in code]]\n```\n[[after]]",
		"`[[inline]]` [[real]] [[ ]] [[a[[b]]",
		"[[Дорожная карта]] [[дорожная   карта]]",
		"[[unclosed",
		"[[#Heading]] [[Folder/Note#H|x]] [[Note.md]] | [[T\\|alias]] | ![[pic.png]] ![[Embedded note]] [[doc.PDF]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		refs := parseBodyRefs(body)
		got := refs.links
		if len(got) > maxBodyLinks || len(refs.attachments) > maxBodyLinks {
			t.Fatalf("%d links, %d attachments; cap is %d", len(got), len(refs.attachments), maxBodyLinks)
		}
		for _, a := range refs.attachments {
			if a == "" || !attachmentExts()[strings.TrimPrefix(strings.ToLower(path.Ext(a)), ".")] || strings.ContainsAny(a, "[]|#\n") {
				t.Fatalf("bad attachment %q from %q", a, body)
			}
		}
		seen := map[string]bool{}
		for _, l := range got {
			if l == "" || l != strings.TrimSpace(l) || strings.ContainsAny(l, "[]|\n") || strings.HasPrefix(l, "#") || !utf8.ValidString(l) {
				t.Fatalf("bad link target %q from %q", l, body)
			}
			if seen[titleKey(l)] {
				t.Fatalf("duplicate target %q", l)
			}
			seen[titleKey(l)] = true
		}
	})
}

var ftsShape = regexp.MustCompile(`^"[^" ]+"\*?( (AND|OR) "[^" ]+"\*?)*$`)

func FuzzFTSQuery(f *testing.F) {
	for _, s := range []string{
		"how do we deploy the service?", "как мы деплоим сервис?", `"quoted" AND (x OR y) NOT z*`,
		"NEAR(a b, 3)", "col:term ^start", "-", "ünïcödé ß 日本語 😀", "a\x00b", "the of and",
	} {
		f.Add(s)
	}
	s, err := Open(context.Background(), filepath.Join(f.TempDir(), "kb.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	f.Fuzz(func(t *testing.T, q string) {
		and, or := ftsQuery(q)
		if and == "" {
			if len(queryTerms(q)) != 0 {
				t.Fatalf("ftsQuery(%q) is empty but the query has words", q)
			}
			return
		}
		for _, expr := range []string{and, or} {
			// Every term is one quoted token: no operators, never a phrase.
			if !ftsShape.MatchString(expr) {
				t.Fatalf("ftsQuery(%q) = %q; not a list of quoted single terms", q, expr)
			}
			for _, table := range []string{"notes_fts", "notes_head_fts"} {
				var n int
				if err := s.db.QueryRow("SELECT count(*) FROM "+table+" WHERE "+table+" MATCH ?", expr).Scan(&n); err != nil {
					t.Fatalf("ftsQuery(%q) = %q: FTS5 error on %s: %v", q, expr, table, err)
				}
			}
		}
	})
}

func FuzzApplyEdit(f *testing.F) {
	f.Add(editBody, "findReplace", "", "Install go.", "x")
	f.Add(editBody, "replaceSection", "setup", "", "new")
	f.Add("# a\n```\n# b\n```\n## c", "replaceSection", "b", "", "y")
	f.Add("", "append", "", "", "z")
	f.Fuzz(func(t *testing.T, body, mode, section, find, content string) {
		in := EditNoteInput{Mode: mode, Section: section, Find: find, Content: content}
		got, err := applyEdit("Title", body, in)
		if err != nil {
			if ErrorCode(err) != CodeInvalidArgument {
				t.Fatalf("applyEdit error %v has no invalidArgument code", err)
			}
			return
		}
		switch mode {
		case ModeFindReplace:
			if strings.Count(body, find) != 1 {
				t.Fatalf("findReplace succeeded with %d occurrences", strings.Count(body, find))
			}
		case ModeAppend, ModePrepend:
			if !strings.Contains(got, strings.Trim(content, "\n")) {
				t.Fatalf("%s lost the content", mode)
			}
		case ModeReplaceSection:
			sec, _ := findSection(body, section)
			if !strings.HasPrefix(got, body[:sec.headEnd]) {
				t.Fatalf("replaceSection changed the text before the section")
			}
		}
	})
}

func FuzzParseMarkdownFile(f *testing.F) {
	f.Add([]byte("---\ntitle: T\ntags: [a, b]\n---\n# T\n\nbody"), "file")
	f.Add([]byte("---\n---\n"), "x")
	f.Add([]byte("---\ntags: 3\naliases: {a: 1}\n...\nbody"), "y")
	f.Fuzz(func(t *testing.T, data []byte, stem string) {
		doc, err := parseMarkdownFile(data, stem)
		if err != nil {
			if ErrorCode(err) == "" {
				t.Fatalf("parse error %v has no code", err)
			}
			return
		}
		if validateTitle(doc.title) != nil {
			t.Fatalf("accepted invalid title %q", doc.title)
		}
	})
}

func FuzzParseHandle(f *testing.F) {
	for _, s := range []string{"acme", "acme/web", "a/b/c", "A/b", "", "/", "x/", "a.b/c-d_e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		space, slug, err := parseHandle(h)
		if err != nil {
			return
		}
		if joinHandle(space, slug) != h {
			t.Fatalf("parseHandle(%q) = %q, %q; does not round-trip", h, space, slug)
		}
	})
}

func FuzzNormalizeFolder(f *testing.F) {
	for _, s := range []string{"guides/ops", "/a//b/", "../etc", "a/./b", " a / b ", "é/日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := normalizeFolder(p)
		if err != nil {
			return
		}
		again, err := normalizeFolder(got)
		if err != nil || again != got {
			t.Fatalf("normalizeFolder(%q) = %q, but normalizing that gives %q, %v", p, got, again, err)
		}
		for _, seg := range strings.Split(got, "/") {
			if got != "" && (seg == "" || seg == "." || seg == "..") {
				t.Fatalf("normalizeFolder(%q) = %q has segment %q", p, got, seg)
			}
		}
	})
}

// FuzzDollarPlaceholders checks the PostgreSQL rebind: quoted text is
// copied unchanged, no ? is left outside quotes, and every placeholder
// becomes one $N.
func FuzzDollarPlaceholders(f *testing.F) {
	for _, s := range []string{"SELECT ?", "a = ?1 AND b = ? OR c = '?'", `"x?" ?12 ?`, "INDEXED BY x ?", "'unterminated ?"} {
		f.Add(s)
	}
	unquoted := func(s string) (plain string, quoted []string) {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '\'' || c == '"' {
				j := strings.IndexByte(s[i+1:], c)
				if j < 0 {
					quoted = append(quoted, s[i:])
					break
				}
				quoted = append(quoted, s[i:i+j+2])
				i += j + 1
				continue
			}
			b.WriteByte(s[i])
		}
		return b.String(), quoted
	}
	f.Fuzz(func(t *testing.T, q string) {
		out := dollarPlaceholders(q)
		inPlain, inQuoted := unquoted(q)
		outPlain, outQuoted := unquoted(out)
		if strings.Contains(outPlain, "?") {
			t.Fatalf("dollarPlaceholders(%q) = %q leaves a ?", q, out)
		}
		if !strings.Contains(q, "INDEXED BY") && strings.Count(outPlain, "$")-strings.Count(inPlain, "$") != strings.Count(inPlain, "?") {
			t.Fatalf("dollarPlaceholders(%q) = %q: placeholders changed in number", q, out)
		}
		if strings.Join(inQuoted, "") != strings.Join(outQuoted, "") {
			t.Fatalf("dollarPlaceholders(%q) = %q changed quoted text", q, out)
		}
	})
}

// FuzzTsLexeme: a lexeme tsLexeme takes out of a tsquery's text quotes
// back to that text (PostgreSQL doubles quotes and backslashes).
func FuzzTsLexeme(f *testing.F) {
	for _, s := range []string{"'databas'", "'o''brien'", `'a\\b'`, "'откат':*", "'a' & 'b'", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		lexeme, prefix, ok := tsLexeme(q)
		if !ok {
			return
		}
		back := "'" + strings.NewReplacer("'", "''", `\`, `\\`).Replace(lexeme) + "'"
		if prefix {
			back += ":*"
		}
		if back != q {
			t.Fatalf("tsLexeme(%q) = %q, which quotes back to %q", q, lexeme, back)
		}
	})
}
