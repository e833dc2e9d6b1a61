package webui

import (
	"strings"
	"testing"

	"github.com/yagent/yagent/memory"
)

// TestPageEscapes pins the escaping render.go does in place of
// html/template's: text and attribute values get html/template's
// replacements, a URL with a scheme that could run code becomes
// "#ZgotmplZ", other URLs are percent-encoded, and rendered Markdown goes
// in as is.
func TestPageEscapes(t *testing.T) {
	hostile := `<script>alert('x')</script> "q" a+b`
	cases := []struct {
		name    string
		p       page
		want    []string
		wantNot []string
	}{
		{"text and attributes", page{Title: hostile, Events: `/e"x`, Data: sessionsData{Cwd: hostile,
			Sessions: []sessionRow{{Info: memory.Info{ID: `s"1`, Kind: `k<`, Title: hostile, Name: hostile}}}}},
			[]string{`<title>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &#34;q&#34; a&#43;b · yagent</title>`,
				`data-events="/e&#34;x"`, `data-session="s&#34;1" data-kind="k&lt;"`, `href="/s/s%221"`},
			[]string{`<script>alert`, `"q"`}},
		{"urls", page{Crumbs: []crumb{{"javascript:alert(1)", "x"}, {"/b/a b", "y"}, {"https://example.com/?a=1&b=2", "z"}},
			Data: errorData{Msg: hostile}},
			[]string{`<a href="#ZgotmplZ">x</a>`, `<a href="/b/a%20b">y</a>`, `<a href="https://example.com/?a=1&amp;b=2">z</a>`,
				`<p class="error" id="error">&lt;script&gt;`},
			[]string{`javascript:`}},
		{"markdown as rendered", page{Data: noteData{Body: "<p><strong>ok</strong></p>", Fields: []field{{Key: "status", Value: `"><b>`}}}},
			[]string{`<article class="md" id="body"><p><strong>ok</strong></p></article>`, `<span class="status status-&#34;&gt;&lt;b&gt;">`},
			[]string{`"><b>`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w pageWriter
			writePage(&w, c.p)
			got := w.String()
			for _, s := range c.want {
				if !strings.Contains(got, s) {
					t.Errorf("page lacks %q:\n%s", s, got)
				}
			}
			for _, s := range c.wantNot {
				if strings.Contains(got, s) {
					t.Errorf("page holds %q:\n%s", s, got)
				}
			}
		})
	}
}
