package hooks

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
)

// WriteTable writes what `yagent hooks ls` shows: every active hook (event,
// matcher, time limit, command, the file it came from), then every skipped
// one with why, then the files read. Text from a settings file is quoted
// when it holds anything a terminal would act on.
func (s *Set) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	all := s.All()
	if len(all) == 0 {
		fmt.Fprintln(tw, "no active hooks")
	} else {
		fmt.Fprintln(tw, "EVENT\tMATCHER\tTIMEOUT\tCOMMAND\tSOURCE")
		for _, h := range all {
			m := h.Matcher
			if m == "" || !h.Event.matches() {
				m = "*"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", h.Event, shown(m), h.Timeout, shown(h.Command), shown(h.Source))
		}
	}
	if sk := s.Skipped(); len(sk) > 0 {
		fmt.Fprintln(tw, "\nSKIPPED\tEVENT\tWHY\tSOURCE")
		for _, k := range sk {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", shown(k.What), shown(orDash(k.Event)), shown(k.Why), shown(k.Source))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the hooks table: %w", err)
	}
	if len(s.read) == 0 {
		_, err := fmt.Fprintln(w, "\nno settings file was found")
		return err
	}
	_, err := fmt.Fprintf(w, "\nsettings files read: %s\n", shown(strings.Join(s.read, ", ")))
	return err
}

// shown is s as a table cell: quoted when it holds a tab, a newline or
// anything else that is not printable.
func shown(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteTable writes the permission rules part of `yagent hooks ls`: every
// rule that applies (its list, the rule as written, its file), then every
// rule not applied with why. Nothing when no file holds any.
func (p *Permissions) WriteTable(w io.Writer) error {
	if p == nil || len(p.Rules) == 0 && len(p.skipped) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(p.Rules) > 0 {
		fmt.Fprintln(tw, "\nPERMISSION\tRULE\tSOURCE")
		for _, r := range p.Rules {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Decision, shown(r.Text), shown(r.Source))
		}
	}
	if len(p.skipped) > 0 {
		fmt.Fprintln(tw, "\nSKIPPED RULE\tWHY\tSOURCE")
		for _, k := range p.skipped {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", shown(k.What), shown(k.Why), shown(k.Source))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the permission rules table: %w", err)
	}
	return nil
}
