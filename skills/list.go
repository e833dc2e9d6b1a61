package skills

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes what `yagent skills ls` prints: one row per skill
// (name, scope, description cut to a line, SKILL.md) on out, then on
// errOut its warnings, the skills that were skipped with why and the
// untrusted workspace's directories that were not read.
func (c *Catalog) WriteTable(out, errOut io.Writer, workspace string) error {
	all := c.All()
	if len(all) == 0 {
		if _, err := fmt.Fprintln(out, "no skills (a skill is a directory with a SKILL.md in .agents/skills, .claude/skills, ~/.agents/skills, $YAGENT_HOME/skills or ~/.claude/skills)"); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSCOPE\tDESCRIPTION\tSOURCE")
		for _, s := range all {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Scope, cut(s.Description, 60), s.Source)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	var b strings.Builder
	for _, s := range all {
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "warning: skill %s: %s\n", s.Name, w)
		}
	}
	if ps := c.Problems(); len(ps) > 0 {
		b.WriteString("problems (skipped):\n")
		for _, p := range ps {
			fmt.Fprintf(&b, "  %s: %s\n", p.Source, p.Message)
		}
	}
	for _, d := range c.Skipped() {
		fmt.Fprintf(&b, "not read: %s (this directory is not trusted; if you trust it, run `yagent trust %s`)\n", d, workspace)
	}
	_, err := io.WriteString(errOut, b.String())
	return err
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
