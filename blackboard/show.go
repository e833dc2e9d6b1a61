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
