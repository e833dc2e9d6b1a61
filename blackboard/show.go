package blackboard

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/yagent/yagent/internal/termsafe"
)

// Show writes `yagent board show` for a person: the ref, the handoff in
// full, the body, and the note's patch when it is short (at most 40
// lines) or whole is set; control characters are shown, never obeyed.
func (n *Note) Show(w io.Writer, patch []byte, whole bool) error {
	fmt.Fprintf(w, "ref: %s\n%s\n\n%s", termsafe.Line(n.Meta.Ref), n.Handoff.Shown(termsafe.Text).Full(), termsafe.Text(n.Body))
	if !strings.HasSuffix(n.Body, "\n") {
		fmt.Fprintln(w)
	}
	if len(patch) > 0 && (whole || bytes.Count(patch, []byte("\n")) <= 40) {
		fmt.Fprintf(w, "\npatch:\n%s", termsafe.Text(string(patch)))
	}
	return nil
}

// ShowStream writes a note too large to load whole for a person, copying
// its body from the file.
func (s *Store) ShowStream(w io.Writer, board, ref string) error {
	r, err := s.OpenNote(board, ref)
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Fprintf(w, "ref: %s\n%s\n\n", termsafe.Line(r.Meta.Ref), r.Handoff.Shown(termsafe.Text).Full())
	if _, err := termsafe.Copy(w, r); err != nil {
		return fmt.Errorf("show note %s: %w", ref, err)
	}
	return nil
}

// ListJSON is `yagent board ls --json`: the notes, how many were skipped
// and why (empty lists, never null).
type ListJSON struct {
	Notes      []NoteMeta   `json:"notes"`
	Skipped    int          `json:"skipped"`
	Unreadable []Unreadable `json:"unreadable"`
}

// JSON is r as `yagent board ls --json` prints it.
func (r ListResult) JSON() ListJSON {
	j := ListJSON(r)
	if j.Notes == nil {
		j.Notes = []NoteMeta{}
	}
	if j.Unreadable == nil {
		j.Unreadable = []Unreadable{}
	}
	return j
}

// WriteSkipped tells a person which notes the listing skipped (nothing
// when none was).
func (r ListResult) WriteSkipped(w io.Writer) {
	if r.Skipped == 0 {
		return
	}
	fmt.Fprintf(w, "%d unreadable notes skipped:\n", r.Skipped)
	for _, u := range r.Unreadable {
		fmt.Fprintf(w, "  %s: %s\n", termsafe.Line(u.Ref), termsafe.Line(u.Err))
	}
}

// NoteJSON is `yagent board show --json`.
type NoteJSON struct {
	Meta    NoteMeta `json:"meta"`
	Handoff *Handoff `json:"handoff"`
	Body    string   `json:"body"`
}

// JSON is n as `yagent board show --json` prints it.
func (n *Note) JSON() NoteJSON { return NoteJSON{n.Meta, n.Handoff, n.Body} }

// WriteBoards is `yagent board boards` for a person: the table on w, or,
// when there is none, a line on errOut naming where boards live (root).
func WriteBoards(w, errOut io.Writer, root string, boards []BoardInfo) error {
	if len(boards) == 0 {
		fmt.Fprintf(errOut, "no boards under %s\n", root)
		return nil
	}
	_, err := io.WriteString(w, BoardsTable(boards))
	return err
}
