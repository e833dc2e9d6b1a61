package kb

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestImport(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		dir := copyDir(t, filepath.Join("testdata", "import"))
		var calls []int
		rep, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{Progress: func(done, total int) {
			if total != 7 {
				t.Errorf("progress total = %d; want 7 markdown files", total)
			}
			calls = append(calls, done)
		}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Created != 6 || rep.Updated != 0 || rep.Skipped != 0 || len(rep.Errors) != 1 {
			t.Fatalf("Import = %+v; want 6 created and 1 error", rep)
		}
		if !slices.Equal(calls, []int{1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("progress calls %v", calls)
		}
		if e := rep.Errors[0]; e.Path != "notes/latin1.md" || !strings.Contains(e.Message, "not valid UTF-8") {
			t.Errorf("errors = %+v; want notes/latin1.md, not UTF-8", rep.Errors)
		}
		// A '---' never closed is a thematic break, not broken front matter;
		// the same title in another folder is another note.
		broken, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "broken", Project: "acme/web"})
		if err != nil || broken.Body != "---\ntitle: Never closed\n" {
			t.Errorf("broken.md = %+v, %v", broken, err)
		}
		if _, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "notes/Rollback", Project: "acme/web"}); err != nil {
			t.Errorf("notes/dup.md: %v", err)
		}

		deploy, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "Deploy guide", Project: "acme/web", Detailed: true})
		if err != nil {
			t.Fatal(err)
		}
		if deploy.Path != "guides" || deploy.Type != "howto" || !slices.Equal(deploy.Tags, []string{"deploy", "ops"}) ||
			deploy.Body != "1. Build.\n2. Ship; if it breaks, see [[Rollback]].\n" || deploy.Created.Tool != "import" {
			t.Errorf("imported deploy guide = %+v", deploy)
		}
		if diff := cmp.Diff(map[string]any{"owner": "alice", "reviewed": "2026-01-15T00:00:00Z"}, deploy.Frontmatter); diff != "" {
			t.Errorf("front matter (-want +got):\n%s", diff)
		}
		if !slices.Equal(deploy.Aliases, []string{"Shipping", "deploy"}) {
			t.Errorf("aliases = %v; want [Shipping deploy] (front matter, file name)", deploy.Aliases)
		}
		// [[links]] became edges, forward ones resolved as files arrived, aliases included.
		for ref, wantTitles := range map[string][]string{
			"Project readme":  {"Deploy guide", "glossary"},
			"guides/Rollback": {"Deploy guide"},
		} {
			n, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: ref, Project: "acme/web", Detailed: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range n.Links {
				if l.Direction == "out" {
					if l.Pending {
						t.Errorf("%s: pending link %+v", ref, l)
					}
					got = append(got, l.Title)
				}
			}
			if !slices.Equal(got, wantTitles) {
				t.Errorf("%s links to %v; want %v", ref, got, wantTitles)
			}
		}
		if _, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "Hidden", Project: "acme/web"}); ErrorCode(err) != CodeNotFound {
			t.Errorf("hidden folder was imported: %v", err)
		}
		if _, err := f.s.Import(t.Context(), f.reader, dir, "acme/web", ImportOptions{}); ErrorCode(err) != CodeForbidden {
			t.Errorf("import with a read token: %v; want forbidden", err)
		}
		if _, err := f.s.Import(t.Context(), f.agent, dir, "nope", ImportOptions{}); ErrorCode(err) != CodeNotFound {
			t.Errorf("import into an unknown project: %v; want notFound", err)
		}
	})
}

func TestImportIdempotent(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		dir := copyDir(t, filepath.Join("testdata", "import"))
		if _, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, f.s)
		again, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{})
		if err != nil || again.Created != 0 || again.Updated != 0 || again.Skipped != 6 || len(again.Errors) != 1 {
			t.Fatalf("re-import = %+v, %v; want 6 skipped, the latin-1 file failing again", again, err)
		}
		if snapshot(t, f.s) != before {
			t.Error("re-importing unchanged files changed the database")
		}
		path := filepath.Join(dir, "guides", "rollback.md")
		if err := os.WriteFile(path, []byte("# Rollback\n\nRevert the tag, then redeploy.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		third, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{})
		if err != nil || third.Created != 0 || third.Updated != 1 || third.Skipped != 5 {
			t.Fatalf("import after an edit = %+v, %v; want 1 updated, 5 skipped", third, err)
		}
		n, _ := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "guides/Rollback", Project: "acme/web"})
		if !strings.Contains(n.Body, "redeploy") || !strings.HasPrefix(n.VersionToken, "v2.") {
			t.Errorf("updated note = %+v", n)
		}
	})
}
