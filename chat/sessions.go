package chat

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/termsafe"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
)

// Row is a session as listed: the row plus its board's size.
type Row struct {
	memory.Info
	BoardNotes int `json:"board_notes"`
}

// ListSessions lists the sessions of cwd (all: every directory), newest
// first, with their boards' sizes.
func ListSessions(ctx context.Context, st *memory.Store, board *blackboard.Store, cwd string, all bool, limit int) ([]Row, error) {
	list, err := st.List(ctx, memory.ListOptions{Cwd: cwd, All: all, Limit: limit})
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(list))
	for i, in := range list {
		rows[i] = Row{Info: in}
		// A board that cannot be read (disabled, removed, an old id)
		// counts no notes: the list is about sessions.
		if idx, err := board.BuildIndex(in.BoardID, blackboard.IndexOptions{MaxNotes: 1, LineChars: 40}); err == nil {
			rows[i].BoardNotes = idx.Total
		}
	}
	return rows, nil
}

// PrintSessions prints rows as a table (numbered: for a picker).
func PrintSessions(w *tabwriter.Writer, rows []Row, numbered bool) {
	if numbered {
		fmt.Fprint(w, "#\t")
	}
	fmt.Fprintln(w, "UPDATED\tID\tNAME\tKIND\tSTATUS\tTURNS\tNOTES\tTITLE")
	for i, r := range rows {
		if numbered {
			fmt.Fprintf(w, "%d\t", i+1)
		}
		name := r.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.Updated.Local().Format(time.DateTime), termsafe.Line(r.ID), termsafe.Line(name), r.Kind, cmp.Or(r.Status, "-"), r.Turns, r.BoardNotes, brief.Line(r.Title, 60))
	}
}

// PrintNotes prints a session's notebook as a table on out (* = changed
// since the person last looked), or says on errOut that it is empty.
func PrintNotes(out, errOut io.Writer, in memory.Info, notes []notebook.Note) error {
	if len(notes) == 0 {
		fmt.Fprintf(errOut, "the notebook of session %s is empty\n", in.ID)
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, " \tNAME\tPIN\tCHARS\tUPDATED\tDESCRIPTION")
	for _, n := range notes {
		mark, pin := " ", ""
		if n.New {
			mark = "*"
		}
		if n.Pinned {
			pin = "pinned"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", mark, termsafe.Line(n.Name), pin, len([]rune(n.Body)), n.Updated.Local().Format(time.DateTime), brief.Line(n.Description, 80))
	}
	return tw.Flush()
}

// RemoveSession deletes a session (memory.Store.Delete: its rollout, its
// sub-agents' sessions and rows) and then its checkpoints (issue 28:
// nothing of a removed session is kept). The sessions removed are returned
// even when the checkpoints could not be dropped.
func RemoveSession(ctx context.Context, st *memory.Store, ref string) ([]memory.Info, error) {
	removed, err := st.Delete(ctx, ref)
	if err != nil {
		return nil, err
	}
	main := removed[len(removed)-1]
	if err := director.DropCheckpoints(ctx, st.Home, main.Cwd, main.ID); err != nil {
		return removed, fmt.Errorf("session %s is removed, but not its checkpoints under %s: %w", main.ID, director.CheckpointsDir(st.Home), err)
	}
	return removed, nil
}

// WriteSessions is `yagent sessions ls` for a person: the table on w, or,
// when there are none, a line on errOut saying where to look instead.
func WriteSessions(w, errOut io.Writer, rows []Row) error {
	if len(rows) == 0 {
		fmt.Fprintln(errOut, "no sessions here yet (yagent sessions ls --all lists every directory)")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	PrintSessions(tw, rows, false)
	return tw.Flush()
}
