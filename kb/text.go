package kb

import (
	"fmt"
	"path"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/termsafe"
)

// Text is the note as `yagent kb show` prints it for a person: title,
// where, type and tags, provenance, links, then the body. Agents write
// notes too: what a note holds is shown (termsafe), never obeyed by the
// terminal.
func (n Note) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", termsafe.Line(n.Title))
	where := n.Project
	if where == "" {
		where = "(personal)"
	}
	fmt.Fprintf(&b, "id: %s · %s · %s\n", n.ID, termsafe.Line(path.Join(where, n.Path)), n.Class)
	if n.Type != "" || len(n.Tags) > 0 {
		tags := "-"
		if len(n.Tags) > 0 {
			tags = strings.Join(n.Tags, ", ")
		}
		fmt.Fprintf(&b, "type: %s · tags: %s\n", termsafe.Line(n.Type), termsafe.Line(tags))
	}
	fmt.Fprintf(&b, "created: %s\nupdated: %s\n", n.Created.Line(), n.Updated.Line())
	for _, l := range n.Links {
		arrow := "→"
		if l.Direction == "in" {
			arrow = "←"
		}
		target := l.NoteID
		if l.Pending {
			target = "pending"
		}
		fmt.Fprintf(&b, "link %s %s %s (%s)\n", arrow, termsafe.Line(l.Type), termsafe.Line(l.Title), target)
	}
	fmt.Fprintf(&b, "\n%s", termsafe.Text(n.Body))
	if !strings.HasSuffix(n.Body, "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}

// Line says who changed something, how and when: "agent of alice (token
// claude) via claude-code, edit_note, 2026-03-01 09:00:00".
func (p Provenance) Line() string {
	who := "person " + p.Principal
	if p.By == KindAgent {
		who = "agent of " + p.Principal
	}
	if p.Token != "" {
		who += " (token " + p.Token + ")"
	}
	if p.Client != "" {
		who += " via " + p.Client
	}
	return fmt.Sprintf("%s, %s, %s", who, p.Tool, p.At.UTC().Format(time.DateTime))
}

// Access is the token's access as a word: write or read.
func (t Token) Access() string {
	if t.Write {
		return "write"
	}
	return "read"
}

// CreatedToken is `yagent kb token create --json`: the secret, shown
// this once, and the token.
type CreatedToken struct {
	Secret string `json:"token"`
	Token
}

// CreatedNotice is what `yagent kb token create` tells the person under
// the secret it printed.
func (t Token) CreatedNotice() string {
	projects := "all of yours"
	if len(t.Projects) > 0 {
		projects = strings.Join(t.Projects, ", ")
	}
	return fmt.Sprintf("created %s token %q (projects: %s); the secret above is shown only now: give it to the client\n(YAGENT_KB_TOKEN for yagent mcp serve on stdio, an Authorization: Bearer header over --http)\n",
		t.Access(), t.Name, projects)
}

// TokensTable is `yagent kb token ls` for a person: one row a token.
func TokensTable(tokens []Token) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tACCESS\tPROJECTS\tCREATED\tREVOKED")
	for _, t := range tokens {
		revoked, projects := "-", "all"
		if t.RevokedAt != nil {
			revoked = t.RevokedAt.UTC().Format(time.DateTime)
		}
		if len(t.Projects) > 0 {
			projects = strings.Join(t.Projects, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.Access(), projects, t.CreatedAt.UTC().Format(time.DateTime), revoked)
	}
	tw.Flush()
	return b.String()
}

// TrashTable is `yagent kb trash ls` for a person: one row a note, what a
// note holds shown (termsafe), never obeyed.
func TrashTable(notes []TrashedNote) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tWHERE\tDELETED\tBY")
	for _, n := range notes {
		where := n.Project
		if where == "" {
			where = "(personal)"
		}
		by := string(n.DeletedBy.By)
		if n.DeletedBy.Token != "" {
			by += " (" + n.DeletedBy.Token + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n.ID, termsafe.Line(n.Title), termsafe.Line(path.Join(where, n.Path)), n.DeletedAt.UTC().Format(time.DateTime), by)
	}
	tw.Flush()
	return b.String()
}

// count is "1 note" or "2 notes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Table is `yagent kb ls` for a person: the subfolders with their note
// counts, then the notes (id, title, tags, updated); what a note holds is
// shown (termsafe), never obeyed.
func (o ListNotesOutput) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, d := range o.Folders {
		fmt.Fprintf(tw, "%s/\t%s\n", termsafe.Line(d.Path), count(d.Notes, "note", "notes"))
	}
	for _, n := range o.Notes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.ID, termsafe.Line(n.Title), termsafe.Line(strings.Join(n.Tags, ",")), n.UpdatedAt.UTC().Format(time.DateTime))
	}
	tw.Flush()
	return b.String()
}

// Table is `yagent kb search` for a person: one row a hit (id, title,
// where, a one-line snippet).
func (o SearchOutput) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, h := range o.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", h.ID, termsafe.Line(h.Title), termsafe.Line(path.Join(h.Project, h.Path)), brief.Line(h.Snippet, 100))
	}
	tw.Flush()
	return b.String()
}

// Text is `yagent kb recall` for a person: the bundle's notes (body on
// stdout) and its summary and cut notes (notice, for stderr).
func (o RecallOutput) Text() (body, notice string) {
	var b, n strings.Builder
	fmt.Fprintf(&n, "mode: %s · %d of %d tokens · %s\n", o.Mode, o.UsedTokens, o.BudgetTokens, count(len(o.Notes), "note", "notes"))
	for _, r := range o.Notes {
		fmt.Fprintf(&b, "## %s (%s, %s)\n%s\n", termsafe.Line(r.Title), r.ID, r.Reason, termsafe.Text(strings.TrimRight(r.Body, "\n")))
		if r.Truncated {
			fmt.Fprintf(&b, "[shortened: yagent kb show %s]\n", r.ID)
		}
		b.WriteByte('\n')
	}
	for _, c := range o.Cut {
		fmt.Fprintf(&n, "cut: %s %s — %s (%d tokens)\n", c.ID, termsafe.Line(c.Title), c.Reason, c.Tokens)
	}
	return b.String(), n.String()
}

// ProjectsTable is `yagent kb projects` for a person.
func ProjectsTable(projects []ProjectRef) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HANDLE\tNAME\tSPACE")
	for _, p := range projects {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Handle, p.Name, p.Space)
	}
	tw.Flush()
	return b.String()
}

// ImportResult is `yagent kb import --json`: the report with every list
// present (an empty one is [], never left out) and the notes embedded
// after it.
type ImportResult struct {
	Created      int           `json:"created"`
	Updated      int           `json:"updated"`
	Moved        int           `json:"moved"`
	Skipped      int           `json:"skipped"`
	Warnings     []ImportNote  `json:"warnings"`
	Pruned       []ImportNote  `json:"pruned"`
	PendingLinks int           `json:"pendingLinks"`
	Errors       []ImportError `json:"errors"`
	Embedded     int           `json:"embedded"`
}

// Result is the report as ImportResult, with the notes embedded after it.
func (r ImportReport) Result(embedded int) ImportResult {
	return ImportResult{r.Created, r.Updated, r.Moved, r.Skipped, nonNil(r.Warnings), nonNil(r.Pruned), r.PendingLinks, nonNil(r.Errors), embedded}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Text is `yagent kb import` for a person: the summary line (stdout) and
// one line per warning, pruned note and failed file (details, stderr).
func (r ImportReport) Text(dir, project string, prune bool) (summary, details string) {
	var s, d strings.Builder
	fmt.Fprintf(&s, "imported %s into %s: %d created, %d updated, %d moved, %d skipped, %d failed",
		dir, project, r.Created, r.Updated, r.Moved, r.Skipped, len(r.Errors))
	if prune {
		fmt.Fprintf(&s, ", %d pruned", len(r.Pruned))
	}
	if r.PendingLinks > 0 {
		fmt.Fprintf(&s, "; %d [[links]] name notes that do not exist yet", r.PendingLinks)
	}
	s.WriteByte('\n')
	for _, w := range r.Warnings {
		fmt.Fprintf(&d, "  %s: %s\n", w.Path, w.Message)
	}
	for _, p := range r.Pruned {
		fmt.Fprintf(&d, "  %s: %s (%s) moved to the trash; yagent kb trash restore %s brings it back\n", p.Path, p.Title, p.ID, p.ID)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&d, "  %s: %s\n", e.Path, e.Message)
	}
	return s.String(), d.String()
}
