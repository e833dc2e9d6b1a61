package kb

import (
	"fmt"
	"path"
	"strings"
	"text/tabwriter"
	"time"

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
