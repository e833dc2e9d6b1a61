package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data, dir string
		want            Skill
		body            string
		err             string // a part of the error; "" for none
	}{
		{name: "minimal", dir: "pdf", data: "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\nSteps.\n",
			want: Skill{Name: "pdf", Description: "Fill PDF forms."}, body: "# PDF\nSteps."},
		{name: "name from the directory (Claude Code)", dir: "review", data: "---\ndescription: Review a change.\n---\nbody\n",
			want: Skill{Name: "review", Description: "Review a change."}, body: "body"},
		{name: "optional fields accepted", dir: "x", data: "---\nname: x\ndescription: >\n  Folded\n  text.\nlicense: MIT\nmetadata:\n  author: a\nallowed-tools: Bash(git:*) Read\n---\nb",
			want: Skill{Name: "x", Description: "Folded text.", AllowedTools: "Bash(git:*) Read"}, body: "b"},
		{name: "allowed-tools as a list", dir: "x", data: "---\nname: x\ndescription: d\nallowed-tools: [Read, Grep]\n---\nb",
			want: Skill{Name: "x", Description: "d", AllowedTools: "Read Grep"}, body: "b"},
		{name: "name differs from the directory", dir: "other", data: "---\nname: x\ndescription: d\n---\nb",
			want: Skill{Name: "x", Description: "d", Warnings: []string{`name "x" differs from its directory "other" (the spec wants them equal)`}}, body: "b"},
		{name: "no front matter", dir: "x", data: "# Just markdown\n", err: "no YAML front matter"},
		{name: "upper case", dir: "x", data: "---\nname: PDF-Tools\ndescription: d\n---\n", err: `name "PDF-Tools"`},
		{name: "leading hyphen", dir: "x", data: "---\nname: -pdf\ndescription: d\n---\n", err: "a hyphen at an end"},
		{name: "double hyphen", dir: "x", data: "---\nname: pdf--x\ndescription: d\n---\n", err: "two hyphens in a row"},
		{name: "too long", dir: "x", data: "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", err: "too long"},
		{name: "bad directory name and no name", dir: "My Skill", data: "---\ndescription: d\n---\n", err: `name "My Skill"`},
		{name: "no description", dir: "x", data: "---\nname: x\n---\nbody", err: "description is missing"},
		{name: "description too long", dir: "x", data: "---\nname: x\ndescription: " + strings.Repeat("é", 1025) + "\n---\n", err: "1025 characters"},
		{name: "bad yaml", dir: "x", data: "---\nname: x\ndescription: a: b\n---\n", err: "front matter"},
		{name: "not utf-8", dir: "x", data: "---\nname: x\xff\n---\n", err: "not UTF-8"},
		{name: "allowed-tools a map", dir: "x", data: "---\nname: x\ndescription: d\nallowed-tools: {a: b}\n---\n", err: "allowed-tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body, err := Parse([]byte(tt.data), tt.dir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse(%q) error = %v; want one containing %q", tt.data, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.data, err)
			}
			if got.Name != tt.want.Name || got.Description != tt.want.Description || got.AllowedTools != tt.want.AllowedTools || strings.Join(got.Warnings, "|") != strings.Join(tt.want.Warnings, "|") {
				t.Errorf("Parse(%q) = %+v; want %+v", tt.data, got, tt.want)
			}
			if body != tt.body {
				t.Errorf("Parse(%q) body = %q; want %q", tt.data, body, tt.body)
			}
		})
	}
}

// FuzzParse: any SKILL.md is judged without a panic, and what it accepts
// has a valid name and a description within the spec's bounds.
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n"), "pdf")
	f.Add([]byte("---\ndescription: d\n---\n"), "My Skill")
	f.Add([]byte("---\nname: x\nallowed-tools: [a, b]\ndescription: |\n  a\n  b\n---\n"), "x")
	f.Add([]byte("no front matter"), "x")
	f.Add([]byte("---\n---\n"), "")
	f.Fuzz(func(t *testing.T, data []byte, dir string) {
		s, body, err := Parse(data, dir)
		if err != nil {
			if s.Name != "" || body != "" {
				t.Fatalf("Parse(%q) failed but returned %+v", data, s)
			}
			return
		}
		if ValidName(s.Name) != nil {
			t.Fatalf("Parse(%q) accepted the name %q", data, s.Name)
		}
		if s.Description == "" || utf8.RuneCountInString(s.Description) > maxDescription {
			t.Fatalf("Parse(%q) accepted the description %q", data, s.Description)
		}
		if !utf8.ValidString(body) {
			t.Fatalf("Parse(%q) body is not UTF-8", data)
		}
	})
}
