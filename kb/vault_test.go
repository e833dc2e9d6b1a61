package kb

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// vaultNote gets a note of acme/web by wiki ref, in detail.
func vaultNote(t *testing.T, f *fixture, ref string) Note {
	t.Helper()
	n, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: ref, Project: "acme/web", Detailed: true})
	if err != nil {
		t.Fatalf("GetNote(%q): %v", ref, err)
	}
	return n
}

// outLinks lists a note's outgoing links as "title" or "title (pending)",
// each with the path of the note it reached.
func outLinks(t *testing.T, f *fixture, n Note) []string {
	t.Helper()
	var out []string
	for _, l := range n.Links {
		if l.Direction != "out" {
			continue
		}
		if l.Pending {
			out = append(out, l.Title+" (pending)")
			continue
		}
		to := f.get(t, l.NoteID)
		out = append(out, notePath(to.Path, to.Title))
	}
	slices.Sort(out)
	return out
}

// TestImportVault imports a vault shaped like Obsidian's own help: every
// link form, titles that repeat across folders and within one, attachments,
// a bracketed file name, VitePress anchors; then re-imports it unchanged,
// after a move, and after a deletion with pruning.
func TestImportVault(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		dir := copyDir(t, filepath.Join("testdata", "vault"))
		rep, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Created != 15 || len(rep.Errors) != 0 || rep.PendingLinks != 1 {
			t.Fatalf("Import = %+v; want 15 created, no errors, 1 pending link ([[Missing note]])", rep)
		}
		if len(rep.Warnings) != 1 || rep.Warnings[0].Path != "Folder clash/two.md" || rep.Warnings[0].Title != "two" ||
			!strings.Contains(rep.Warnings[0].Message, `"Summary" is the title of Folder clash/one.md in the same folder`) {
			t.Errorf("warnings = %+v; want Folder clash/two.md retitled, naming one.md", rep.Warnings)
		}

		home := vaultNote(t, f, "Home")
		want := []string{
			"Canvas", "Getting started", "Missing note (pending)", "Obsidian Publish/Security and privacy",
			"Obsidian Sync/Security and privacy", "Plugins/Templates",
		}
		if diff := cmp.Diff(want, outLinks(t, f, home)); diff != "" {
			t.Errorf("Home's links (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"Attachments/report.pdf", "diagram.png"}, home.Attachments); diff != "" {
			t.Errorf("Home's attachments (-want +got):\n%s", diff)
		}
		for ref, want := range map[string][]string{
			"Plugins/Daily notes":  {"Plugins/Templates"},                              // same folder wins
			"Web Clipper/Overview": {"Home", "Web Clipper/Templates"},                  // \| in a table cell
			"Link table":           {"Canvas", "Getting started", "Plugins/Templates"}, // .md, path.md, #heading, embed
			"Getting started":      {"Home"},
		} {
			if diff := cmp.Diff(want, outLinks(t, f, vaultNote(t, f, ref))); diff != "" {
				t.Errorf("%s's links (-want +got):\n%s", ref, diff)
			}
		}
		if got := vaultNote(t, f, "Link table").Attachments; !slices.Equal(got, []string{"report.pdf"}) {
			t.Errorf("Link table's attachments = %v", got)
		}

		// Titles: anchors dropped, brackets made safe, aliases and file names resolve.
		gs := vaultNote(t, f, "Start here")
		if gs.Title != "Getting started" || gs.ResolvedVia != "alias Start here" || !slices.Equal(gs.Tags, []string{"basics"}) {
			t.Errorf("[[Start here]] = %q via %q, tags %v", gs.Title, gs.ResolvedVia, gs.Tags)
		}
		if !slices.Contains(headings(gs.Body), Heading{Level: 2, Text: "Next steps"}) {
			t.Errorf("Getting started outline = %v; want Next steps without its {#anchor}", headings(gs.Body))
		}
		if n := vaultNote(t, f, "Web Clipper/highlights"); n.Title != "Highlight web pages" || strings.Contains(n.Body, "#") {
			t.Errorf("a file starting with a byte order mark = %q, body %q; want its H1 as the title", n.Title, n.Body)
		}
		if n := vaultNote(t, f, "Notes (draft)"); n.Path != "" || !strings.Contains(n.Body, "brackets") {
			t.Errorf("Notes [draft].md = %+v", n)
		}
		if n := vaultNote(t, f, "Folder clash/one"); n.Title != "Summary" || n.ResolvedVia != "file name Folder clash/one" {
			t.Errorf("[[Folder clash/one]] = %q via %q; want the Summary note through its file name", n.Title, n.ResolvedVia)
		}
		_, err = f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: "Security and privacy", Project: "acme/web"})
		if ErrorCode(err) != CodeInvalidArgument || !strings.Contains(err.Error(), "acme/web: Obsidian Publish/Security and privacy (") ||
			!strings.Contains(err.Error(), "acme/web: Obsidian Sync/Security and privacy (") {
			t.Errorf("ambiguous [[Security and privacy]]: %v; want both paths named", err)
		}

		// Nothing changed: nothing written, nothing failing.
		before := snapshot(t, f.s)
		again, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{Prune: true})
		if err != nil || again.Skipped != 15 || again.Created+again.Updated+again.Moved != 0 || len(again.Errors) != 0 || len(again.Pruned) != 0 {
			t.Fatalf("re-import = %+v, %v; want 15 skipped", again, err)
		}
		if snapshot(t, f.s) != before {
			t.Error("re-importing an unchanged vault changed the database")
		}

		// A file moved in the vault keeps its note (id, links) and a file
		// deleted goes to the trash with --prune, from where it comes back.
		canvas := vaultNote(t, f, "Canvas")
		if err := os.MkdirAll(filepath.Join(dir, "Core plugins"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "Canvas.md"), filepath.Join(dir, "Core plugins", "Canvas.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, "Plugins", "Daily notes.md")); err != nil {
			t.Fatal(err)
		}
		daily := vaultNote(t, f, "Daily notes")
		third, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{})
		if err != nil || third.Moved != 1 || third.Created != 0 || len(third.Pruned) != 0 {
			t.Fatalf("import after a move = %+v, %v; want 1 moved, nothing pruned without Prune", third, err)
		}
		moved := vaultNote(t, f, "Canvas")
		if moved.ID != canvas.ID || moved.Path != "Core plugins" {
			t.Errorf("moved Canvas = %s in %q; want %s in Core plugins", moved.ID, moved.Path, canvas.ID)
		}
		if l := outLinks(t, f, vaultNote(t, f, "Home")); !slices.Contains(l, "Core plugins/Canvas") {
			t.Errorf("Home's links after the move = %v; want the moved Canvas", l)
		}
		pruned, err := f.s.Import(t.Context(), f.agent, dir, "acme/web", ImportOptions{Prune: true})
		if err != nil || len(pruned.Pruned) != 1 || pruned.Pruned[0].ID != daily.ID || pruned.Pruned[0].Path != "Plugins/Daily notes.md" {
			t.Fatalf("import --prune = %+v, %v; want Daily notes pruned", pruned, err)
		}
		if _, err := f.s.GetNote(t.Context(), f.agent, GetNoteInput{Ref: daily.ID}); ErrorCode(err) != CodeNotFound {
			t.Errorf("pruned note still readable: %v", err)
		}
		if _, err := f.s.TrashRestore(t.Context(), f.person, daily.ID); err != nil {
			t.Fatalf("restore the pruned note: %v", err)
		}
		if n := vaultNote(t, f, "Daily notes"); n.ID != daily.ID {
			t.Errorf("restored note = %s; want %s", n.ID, daily.ID)
		}

		// Pruning with a folder that holds no Markdown at all is refused.
		empty := t.TempDir()
		before = snapshot(t, f.s)
		if _, err := f.s.Import(t.Context(), f.agent, empty, "acme/web", ImportOptions{Prune: true}); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("prune from an empty folder: %v; want invalidArgument", err)
		}
		if snapshot(t, f.s) != before {
			t.Error("a refused prune changed the database")
		}
	})
}

// TestTitlesUniquePerFolder pins titles unique per folder for every write,
// not only imports: the same title in two folders is two notes, a move or a
// rename into a taken title is refused naming the other note's place, and a
// path-qualified forward link resolves when a note moves to that path.
func TestTitlesUniquePerFolder(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		create := func(folder, body string) CreateNoteOutput {
			t.Helper()
			out, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme/web", Path: folder, Body: body})
			if err != nil {
				t.Fatalf("CreateNote(%s, %q): %v", folder, body, err)
			}
			return out
		}
		a := create("ops", "# Runbook")
		b := create("dev", "# Runbook")
		_, err := f.s.MoveNote(t.Context(), f.agent, MoveNoteInput{ID: b.ID, Path: "ops"})
		if ErrorCode(err) != CodeConflict || !strings.Contains(err.Error(), `a note titled "Runbook" already exists in folder ops (`+a.ID+`)`) {
			t.Errorf("move into a taken title: %v", err)
		}
		c := create("ops", "# Checklist\n\nSee [[archive/Runbook]].")
		if l := f.get(t, c.ID).Links; len(l) != 1 || !l[0].Pending {
			t.Fatalf("links before the move = %+v; want one pending", l)
		}
		if _, err := f.s.MoveNote(t.Context(), f.agent, MoveNoteInput{ID: b.ID, Path: "archive"}); err != nil {
			t.Fatal(err)
		}
		if l := f.get(t, c.ID).Links; len(l) != 1 || l[0].NoteID != b.ID {
			t.Errorf("links after the move = %+v; want [[archive/Runbook]] resolved to %s", l, b.ID)
		}
		if _, err := f.s.RenameNote(t.Context(), f.agent, RenameNoteInput{ID: c.ID, Title: "runbook"}); ErrorCode(err) != CodeConflict {
			t.Errorf("rename into a title taken in the folder: %v; want conflict", err)
		}
	})
}
