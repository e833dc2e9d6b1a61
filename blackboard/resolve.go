package blackboard

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxContextRefs is how many refs a context pack resolves; the rest are
// reported as dropped.
const MaxContextRefs = 10

// ArtifactInfoFn describes an artifact id (e.g. a file's size and whether it
// still exists). It is injected so this package never imports artifact code.
type ArtifactInfoFn func(id string) (info string, ok bool)

// PackOptions bound a context pack.
type PackOptions struct {
	// Budget is the rune budget of the inlined text
	// (blackboard.context_pack_chars); 0 means no limit.
	Budget int
	// ArtifactInfo, when set, annotates each artifact of an inlined note.
	ArtifactInfo ArtifactInfoFn
}

// ContextPack is the full text of the notes a delegation was pointed at.
// Refs are emphasis, not admission: every note is discoverable from the
// index anyway; a pack only inlines some in full.
type ContextPack struct {
	Text       string
	Resolved   []NoteMeta
	Unresolved []string // refs that name nothing on the board
	Dropped    []string // refs beyond MaxContextRefs
	Truncated  bool     // some bodies were cut to an excerpt to fit Budget
}

// ResolveRefs resolves refs on board and inlines the notes. A ref is
// "{agent}/{stem}" or a bare agent name meaning that agent's newest note;
// either spelling of an agent ("agent:repo", "repo_agent") works. At most
// MaxContextRefs distinct refs are resolved. Over budget, every note keeps an
// excerpt rather than some being dropped.
func (s *Store) ResolveRefs(board string, refs []string, opts PackOptions) (ContextPack, error) {
	var pack ContextPack
	if !s.Enabled() {
		return pack, ErrDisabled
	}
	if len(refs) == 0 {
		return pack, nil
	}
	dir, err := s.boardDir(board)
	if err != nil {
		return pack, err
	}
	// An oversized note inlines only the start of its body: no more than
	// the budget can hold.
	excerptBytes := s.maxNoteBytes
	if opts.Budget > 0 {
		excerptBytes = min(excerptBytes, int64(opts.Budget)*utf8.UTFMax)
	}
	seen := map[string]bool{}    // refs as given
	inlined := map[string]bool{} // canonical refs, so two spellings inline once
	var notes []*Note
	for _, raw := range refs {
		ref := strings.TrimSpace(raw)
		if ref == "" || seen[ref] {
			continue
		}
		seen[ref] = true
		if len(notes)+len(pack.Unresolved) >= MaxContextRefs {
			pack.Dropped = append(pack.Dropped, ref)
			continue
		}
		n, err := s.resolveRef(board, dir, ref, excerptBytes)
		if err != nil || n == nil {
			pack.Unresolved = append(pack.Unresolved, ref)
			continue
		}
		if inlined[n.Meta.Ref] {
			continue
		}
		inlined[n.Meta.Ref] = true
		notes = append(notes, n)
		pack.Resolved = append(pack.Resolved, n.Meta)
	}
	pack.Text, pack.Truncated = renderPack(notes, pack, opts)
	return pack, nil
}

func (s *Store) resolveRef(board, dir, ref string, excerptBytes int64) (*Note, error) {
	if !strings.Contains(ref, "/") {
		return s.resolveAgentRef(board, dir, ref, excerptBytes)
	}
	r, err := ParseNoteRef(ref)
	if err != nil {
		return nil, err
	}
	return s.readNoteUpTo(dir, noteFile{agent: r.Agent, name: r.Stem + ".md"}, excerptBytes)
}

// resolveAgentRef resolves a bare agent name to its newest readable note,
// through ListNotesByAgent, the one normalisation exit.
func (s *Store) resolveAgentRef(board, dir, agent string, excerptBytes int64) (*Note, error) {
	res, err := s.ListNotesByAgent(board, agent)
	if err != nil {
		return nil, err
	}
	if len(res.Notes) == 0 {
		return nil, nil
	}
	m := res.Notes[0]
	return s.readNoteUpTo(dir, noteFile{agent: m.Agent, name: m.Stem + ".md"}, excerptBytes)
}

func renderPack(notes []*Note, pack ContextPack, opts PackOptions) (string, bool) {
	if len(notes) == 0 && len(pack.Unresolved) == 0 && len(pack.Dropped) == 0 {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[context pack] %d notes inlined in full (the board index lists the rest)", len(notes))
	if len(pack.Unresolved) > 0 {
		fmt.Fprintf(&b, "; unresolved: %d (%s)", len(pack.Unresolved), strings.Join(pack.Unresolved, ", "))
	}
	if len(pack.Dropped) > 0 {
		fmt.Fprintf(&b, "; over the limit of %d, not inlined: %s", MaxContextRefs, strings.Join(pack.Dropped, ", "))
	}
	heads := make([]string, len(notes))
	fixed := 0
	for i, n := range notes {
		heads[i] = renderPackHead(n, opts.ArtifactInfo)
		fixed += utf8.RuneCountInString(heads[i])
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = MaxRenderRunes
	}
	// Share the room left after the heads equally; a note shorter than its
	// share gives the rest back to the others.
	room := budget - fixed - utf8.RuneCountInString(b.String())
	shares := fairShares(notes, room)
	truncated := false
	for i, n := range notes {
		b.WriteString("\n\n")
		b.WriteString(heads[i])
		body := n.Body
		switch total := utf8.RuneCountInString(body); {
		case n.partial:
			body = excerpt(body, shares[i])
			body += fmt.Sprintf("\n[excerpt: %d chars of a %d-byte note; read_note %s pages the rest]", utf8.RuneCountInString(body), n.Meta.BodySize, n.Meta.Ref)
			truncated = true
		case total > shares[i]:
			body = excerpt(body, shares[i]) + fmt.Sprintf("\n[excerpt: %d of %d chars; read_note %s for the rest]", shares[i], total, n.Meta.Ref)
			truncated = true
		}
		b.WriteString(body)
	}
	return b.String(), truncated
}

func renderPackHead(n *Note, info ArtifactInfoFn) string {
	h := *n.Handoff
	if info != nil && len(h.Artifacts) > 0 {
		arts := make([]string, len(h.Artifacts))
		for i, a := range h.Artifacts {
			if desc, ok := info(a); ok {
				arts[i] = a + " (" + desc + ")"
			} else {
				arts[i] = a + " (missing)"
			}
		}
		h.Artifacts = arts
	}
	return "=== " + n.Meta.Ref + "\n" + h.Render(0) + "\n---\n"
}

// fairShares splits room runes among the bodies: each gets at most what it
// needs, leftovers go to the longer ones, and each gets at least
// minExcerpt runes so no note disappears.
func fairShares(notes []*Note, room int) []int {
	const minExcerpt = 200
	need := make([]int, len(notes))
	shares := make([]int, len(notes))
	open := 0
	for i, n := range notes {
		need[i] = utf8.RuneCountInString(n.Body)
		open++
	}
	for open > 0 && room > 0 {
		each := room / open
		if each == 0 {
			break
		}
		for i := range notes {
			if shares[i] >= need[i] {
				continue
			}
			give := min(each, need[i]-shares[i])
			shares[i] += give
			room -= give
			if shares[i] >= need[i] {
				open--
			}
		}
	}
	for i := range shares {
		shares[i] = max(shares[i], min(need[i], minExcerpt))
	}
	return shares
}

// excerpt keeps the first n runes of s, cut at a line end when one is near.
func excerpt(s string, n int) string {
	cut := truncateRunes(s, n+1)
	cut = strings.TrimSuffix(cut, "…")
	if i := strings.LastIndexByte(cut, '\n'); i > len(cut)*3/4 {
		cut = cut[:i]
	}
	return cut
}
