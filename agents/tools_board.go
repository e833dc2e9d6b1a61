package agents

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yagent/yagent/blackboard"
)

// Arguments of the board tools (schemas.json has their descriptions).
type (
	listNotesIn struct {
		Agent string `json:"agent,omitempty"`
		Limit int    `json:"limit,omitempty" default:"50"`
	}
	readNoteIn struct {
		Ref    string `json:"ref"`
		Offset int    `json:"offset,omitempty" default:"0"`
		Limit  int    `json:"limit,omitempty" default:"12000"`
	}
	contextPackIn struct {
		Refs []string `json:"refs"`
	}
)

// BoardTools returns the read-back tools list_notes, read_note and
// context_pack. The board id comes from the call's context
// (blackboard.WithBoardID), set by whoever runs the agent. packChars is
// context_pack's budget in runes (blackboard.context_pack_chars); 0 means
// no limit.
func BoardTools(store *blackboard.Store, packChars int, w *Workspace) []*Tool {
	return []*Tool{
		NewTool("list_notes", "board", Core, func(ctx context.Context, _ *Call, in listNotesIn) (Result, error) {
			return listNotes(ctx, store, in)
		}),
		NewTool("read_note", "board", Core, func(ctx context.Context, _ *Call, in readNoteIn) (Result, error) {
			return readNote(ctx, store, in)
		}),
		NewTool("context_pack", "board", 0, func(ctx context.Context, _ *Call, in contextPackIn) (Result, error) {
			return contextPack(ctx, store, packChars, w, in)
		}),
	}
}

func boardOf(ctx context.Context) (string, error) {
	id, ok := blackboard.BoardIDFrom(ctx)
	if !ok {
		return "", errors.New("this session has no board")
	}
	return id, nil
}

// FormatNoteLine is one list_notes line: ref, status, time, body size and
// the conclusion cut to one line — never the body.
func FormatNoteLine(m blackboard.NoteMeta) string {
	status := string(m.Status)
	if m.Degraded != "" {
		status += ", " + string(m.Degraded)
	}
	if m.Oversized {
		status += ", oversized"
	}
	concl := strings.Join(strings.Fields(m.Conclusion), " ")
	if concl == "" {
		concl = strings.Join(strings.Fields(m.Task), " ")
	}
	if utf8.RuneCountInString(concl) > 200 {
		concl = string([]rune(concl)[:199]) + "…"
	}
	return fmt.Sprintf("%s [%s] %s, %d chars — %s", m.Ref, status, m.Created.UTC().Format(time.DateTime), m.BodySize, concl)
}

func listNotes(ctx context.Context, store *blackboard.Store, a listNotesIn) (Result, error) {
	board, err := boardOf(ctx)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	var res blackboard.ListResult
	if a.Agent != "" {
		res, err = store.ListNotesByAgent(board, a.Agent) // the one alias exit
	} else {
		res, err = store.ListNotes(board, blackboard.ListOptions{})
	}
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	total := len(res.Notes)
	if total > a.Limit {
		res.Notes = res.Notes[:a.Limit]
	}
	var b strings.Builder
	for _, m := range res.Notes {
		b.WriteString(FormatNoteLine(m))
		b.WriteByte('\n')
	}
	switch {
	case total == 0 && res.Skipped == 0:
		b.WriteString("(no notes)\n")
	case total > a.Limit:
		fmt.Fprintf(&b, "… %d older notes not listed (raise limit)\n", total-a.Limit)
	}
	if res.Skipped > 0 {
		refs := make([]string, len(res.Unreadable))
		for i, u := range res.Unreadable {
			refs[i] = u.Ref
		}
		fmt.Fprintf(&b, "(%d unreadable notes skipped: %s)\n", res.Skipped, strings.Join(refs, ", "))
	}
	return Result{Content: b.String(), Summary: Count(total, "note", "notes")}, nil
}

func readNote(ctx context.Context, store *blackboard.Store, a readNoteIn) (Result, error) {
	board, err := boardOf(ctx)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	// The body is streamed: only this page is held, whatever the note's size.
	p, err := store.ReadNotePage(board, a.Ref, a.Offset, a.Limit)
	if err != nil {
		if errors.Is(err, blackboard.ErrNoteNotFound) {
			return ErrorResult("%v: list_notes shows the refs on this board", err), nil
		}
		return ErrorResult("%v", err), nil
	}
	if p.Offset > p.Total {
		return ErrorResult("offset %d is past the end of the body (%d chars)", a.Offset, p.Total), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ref: %s\n", p.Meta.Ref)
	switch p.Handoff.Degraded {
	case blackboard.DegradedV1:
		b.WriteString("[legacy v1 note: the handoff below is synthesised from its summary]\n")
	case blackboard.DegradedPartial, blackboard.DegradedAbsent:
		fmt.Fprintf(&b, "[damaged front matter (%s): the handoff below is what could be read]\n", p.Handoff.Degraded)
	}
	b.WriteString(p.Handoff.Render(0))
	fmt.Fprintf(&b, "\n--- body, chars %d-%d of %d ---\n", p.Offset, p.End, p.Total)
	b.WriteString(p.Text)
	if p.End < p.Total {
		fmt.Fprintf(&b, "\n[more: read_note with offset=%d]", p.End)
	}
	return Result{Content: b.String(), Summary: fmt.Sprintf("%s, %d chars", p.Meta.Ref, p.End-p.Offset)}, nil
}

func contextPack(ctx context.Context, store *blackboard.Store, budget int, w *Workspace, a contextPackIn) (Result, error) {
	board, err := boardOf(ctx)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	pack, err := store.ResolveRefs(board, a.Refs, blackboard.PackOptions{Budget: budget, ArtifactInfo: w.ArtifactInfo})
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	return Result{Content: pack.Text, Summary: fmt.Sprintf("%d inlined, %d unresolved", len(pack.Resolved), len(pack.Unresolved))}, nil
}

// ArtifactInfo describes an artifact id that names a workspace file; it is
// the blackboard's injected ArtifactInfoFn.
func (w *Workspace) ArtifactInfo(id string) (string, bool) {
	if w == nil {
		return "", false
	}
	rel, err := w.Rel(id)
	if err != nil {
		return "", false
	}
	fi, err := w.root.Stat(filepath.Clean(rel))
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%d bytes, modified %s", fi.Size(), fi.ModTime().UTC().Format(time.DateTime)), true
}
