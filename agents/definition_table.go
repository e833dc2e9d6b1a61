package agents

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/yagent/yagent/internal/brief"
)

// DefinitionsTable is `yagent agents ls` for a person: one row a
// definition, its tools (all, none or the list) and its description.
func DefinitionsTable(defs []*Definition) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTOOLS\tDESCRIPTION")
	for _, d := range defs {
		tools := "all"
		switch {
		case d.Tools == nil:
		case len(d.Tools) == 0:
			tools = "none"
		default:
			tools = strings.Join(d.Tools, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Name, d.Source, brief.Line(tools, 50), brief.Line(d.Description, 70))
	}
	tw.Flush()
	return b.String()
}

// DefinitionsNotes is what `yagent agents ls` writes on stderr: each
// definition's warnings, then the files skipped and why.
func DefinitionsNotes(defs []*Definition, problems []Problem) string {
	var b strings.Builder
	for _, d := range defs {
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "warning: %s: %s\n", d.Source, w)
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(&b, "problems (%s skipped):\n", Count(len(problems), "file", "files"))
		for _, p := range problems {
			fmt.Fprintf(&b, "  %s: %s\n", p.Source, p.Message)
		}
	}
	return b.String()
}
