package webui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
)

func sessionHref(id string) string { return "/s/" + url.PathEscape(id) }
func boardHref(id string) string   { return "/b/" + url.PathEscape(id) }

// noteHref links a note by its ref ({agent}/{stem}) on a board.
func noteHref(board, ref string) string {
	r, err := blackboard.ParseNoteRef(ref)
	if err != nil || board == "" {
		return ""
	}
	return boardHref(board) + "/n/" + url.PathEscape(r.Agent) + "/" + url.PathEscape(r.Stem)
}

func sessionCrumbs(in memory.Info) []crumb {
	return []crumb{{"/", "sessions"}, {sessionHref(in.ID), in.ID}}
}

type sessionsData struct {
	All      bool
	Cwd      string
	Sessions []sessionRow
}

// sessionRow is a session as listed; HasBoard is false until a note has
// landed on its board (no link into a 404).
type sessionRow struct {
	memory.Info
	HasBoard bool
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	all := s.o.All || r.URL.Query().Get("all") == "1"
	list, err := s.o.Sessions.List(r.Context(), memory.ListOptions{Cwd: s.o.Cwd, All: all, Limit: 500})
	if err != nil {
		s.fail(w, "list sessions", err)
		return
	}
	d := sessionsData{All: all, Cwd: s.o.Cwd}
	for _, in := range list {
		d.Sessions = append(d.Sessions, sessionRow{Info: in, HasBoard: blackboard.CheckBoardID(in.BoardID) == nil && s.o.Board.BoardExists(in.BoardID)})
	}
	s.render(w, http.StatusOK, page{Title: "Sessions", Crumbs: []crumb{{"/", "sessions"}}, Data: d})
}

// session finds the session a URL names and reads its rollout.
func (s *Server) session(w http.ResponseWriter, r *http.Request) (memory.Info, *memory.Rollout, bool) {
	id := r.PathValue("id")
	in, err := s.o.Sessions.Get(r.Context(), id)
	if err != nil {
		s.fail(w, "session "+id, err)
		return memory.Info{}, nil, false
	}
	ro, err := memory.LoadRolloutBounded(in.Rollout, MaxShown)
	if err != nil {
		s.fail(w, "session "+id, err)
		return memory.Info{}, nil, false
	}
	return in, ro, true
}

// MaxShown bounds every text a page shows: a longer one (a 100 MB message)
// is cut there, with a link to its whole text (rawText), so what a page
// costs does not grow with what a model wrote.
const MaxShown = 64 << 10

// cutLink points at the whole text of a string a page shows cut.
type cutLink struct {
	Href string
	Size int64 // bytes in the rollout
}

// cutLinks are the links to the whole texts of the strings of it that the
// bounded read cut, by path ("message.content").
func cutLinks(id string, it memory.Item) map[string]*cutLink {
	if len(it.Cut) == 0 {
		return nil
	}
	out := map[string]*cutLink{}
	for _, c := range it.Cut {
		out[c.Path] = &cutLink{Href: rawHref(id, it.Line, c.Path), Size: c.Size}
	}
	return out
}

func rawHref(id string, line int, path string) string {
	return fmt.Sprintf("%s/raw/%d?field=%s", sessionHref(id), line, url.QueryEscape(path))
}

// rawText serves one string of a session's rollout whole, as plain text
// (/s/{id}/raw/{line}?field=message.content): the text a page cut. It is
// streamed from the file, never held in memory.
func (s *Server) rawText(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in, err := s.o.Sessions.Get(r.Context(), id)
	if err != nil {
		s.fail(w, "session "+id, err)
		return
	}
	line, err := strconv.Atoi(r.PathValue("line"))
	field := r.URL.Query().Get("field")
	if field == "" {
		field = "message.content"
	}
	if err != nil || line < 2 {
		s.notFound(w, fmt.Sprintf("Session %s has no line %q.", id, r.PathValue("line")))
		return
	}
	tw := &textWriter{w: w}
	_, err = memory.CopyString(tw, in.Rollout, line, field)
	switch {
	case tw.started:
		// A failure past the first byte can only cut the answer short.
	case errors.Is(err, memory.ErrNoString):
		s.notFound(w, fmt.Sprintf("Session %s has no text %s on line %d.", id, field, line))
	case err != nil:
		s.fail(w, "session "+id, err)
	default:
		tw.start() // an empty text
	}
}

// textWriter answers plain text once the first byte is ready, so that a
// text not found is still an error page.
type textWriter struct {
	w       http.ResponseWriter
	started bool
}

func (t *textWriter) start() {
	t.started = true
	t.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	t.w.Header().Set("X-Content-Type-Options", "nosniff")
	t.w.WriteHeader(http.StatusOK)
}

func (t *textWriter) Write(b []byte) (int, error) {
	if !t.started {
		t.start()
	}
	return t.w.Write(b)
}

// entry is one line of a transcript.
type entry struct {
	Kind      string // turn, user, assistant, tool, delegation, compacted, cleared
	Time      time.Time
	Reasoning string
	Turn      int
	HTML      safeHTML
	Text      string
	Calls     []call
	Name      string // the tool a result answers
	Ref       string
	NoteHref  string
	Status    string
	Agent     string
	// SubHref is the sub-agent's own transcript.
	SubHref string
	// TextCut and ReasoningCut link the whole text when the page cut it.
	TextCut, ReasoningCut *cutLink
}

type call struct {
	ID, Name, Args string
	Cut            *cutLink // the whole arguments, when cut
}

type transcriptData struct {
	Info     memory.Info
	Entries  []entry
	Warnings []string
}

func (s *Server) transcriptPage(w http.ResponseWriter, r *http.Request) {
	in, ro, ok := s.session(w, r)
	if !ok {
		return
	}
	names := map[string]string{}
	var out []entry
	for _, it := range memory.Live(ro.Items) { // rewound turns are not shown
		switch it.Type {
		case event.Rewound:
			out = append(out, entry{Kind: "rewound", Time: it.Time, Turn: it.Turn})
		case event.TurnStarted:
			out = append(out, entry{Kind: "turn", Time: it.Time, Turn: it.Turn})
		case event.Message:
			if it.Message != nil {
				out = append(out, s.messageEntry(in.ID, it, names))
			}
		case event.DelegationStarted, event.DelegationFinished:
			if d := it.Delegation; d != nil {
				e := entry{Kind: "delegation", Time: it.Time, Agent: d.Agent, Status: d.Status, Ref: d.Ref, NoteHref: noteHref(in.BoardID, d.Ref), Text: d.Task}
				if d.SubSession != "" {
					e.SubHref = sessionHref(d.SubSession)
				}
				if it.Type == event.DelegationStarted {
					e.Status = "started"
				}
				out = append(out, e)
			}
		case event.Compacted:
			if it.Compaction != nil {
				out = append(out, entry{Kind: "compacted", Time: it.Time, Text: it.Compaction.Summary, TextCut: cutLinks(in.ID, it)["compacted.summary"]})
			}
		case event.Cleared:
			out = append(out, entry{Kind: "cleared", Time: it.Time})
		}
	}
	s.render(w, http.StatusOK, page{Title: "Transcript " + in.ID, Crumbs: sessionCrumbs(in),
		Data: transcriptData{Info: in, Entries: out, Warnings: ro.Warnings}})
}

func (s *Server) messageEntry(id string, it memory.Item, names map[string]string) entry {
	m := it.Message
	cut := cutLinks(id, it)
	e := entry{Kind: string(m.Role), Time: it.Time, Text: m.Content, Reasoning: m.Reasoning,
		TextCut: cut["message.content"], ReasoningCut: cut["message.reasoning"]}
	switch m.Role {
	case llm.RoleAssistant:
		e.HTML = s.markdown(m.Content)
		for i, c := range m.ToolCalls {
			names[c.ID] = c.Name
			cc := call{ID: c.ID, Name: c.Name, Cut: cut[fmt.Sprintf("message.tool_calls.%d.arguments", i)]}
			if cc.Args = prettyJSON(c.Arguments); cc.Cut != nil {
				cc.Args = c.Arguments // cut JSON does not parse: shown as it is
			}
			e.Calls = append(e.Calls, cc)
		}
	case llm.RoleTool:
		e.Name = names[m.ToolCallID]
	}
	return e
}

// prettyJSON indents JSON arguments; anything else stays as it came.
func prettyJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return s
	}
	return string(b)
}

type boardData struct {
	ID    string
	Index blackboard.Index
	Notes []noteRow
	// Unreadable are notes that could not be listed.
	Unreadable []blackboard.Unreadable
	// Tasks are the board's team tasks with their derived state (issue
	// 30: `yagent board tasks`' list); TasksErr says why they could not
	// be read (the notes still show).
	Tasks    blackboard.TaskList
	TasksErr string
}

type noteRow struct {
	blackboard.NoteMeta
	Href string
}

// checkBoard refuses a board id that is not one (path-escaping, changed
// by sanitising) or names no board on disk.
func (s *Server) checkBoard(id string) error {
	if err := blackboard.CheckBoardID(id); err != nil {
		return err
	}
	if !s.o.Board.BoardExists(id) {
		return fmt.Errorf("%w %q (no note has landed on it)", blackboard.ErrNoBoard, id)
	}
	return nil
}

func (s *Server) boardPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("board")
	if err := s.checkBoard(id); err != nil {
		s.fail(w, "board "+id, err)
		return
	}
	list, err := s.o.Board.ListNotes(id, blackboard.ListOptions{})
	if err != nil {
		s.fail(w, "board "+id, err)
		return
	}
	idx, err := s.o.Board.BuildIndex(id, s.o.Index)
	if err != nil {
		s.fail(w, "index of board "+id, err)
		return
	}
	d := boardData{ID: id, Index: idx, Unreadable: list.Unreadable}
	if d.Tasks, err = s.o.Board.Tasks(id); err != nil {
		d.TasksErr = err.Error()
	}
	for _, m := range list.Notes {
		d.Notes = append(d.Notes, noteRow{NoteMeta: m, Href: noteHref(id, m.Ref)})
	}
	s.render(w, http.StatusOK, page{Title: "Board " + id, Crumbs: []crumb{{"/", "sessions"}, {boardHref(id), "board " + id}}, Data: d})
}

type field struct {
	Key   string
	Value string
	List  []string
}

type noteData struct {
	Board   string
	Meta    blackboard.NoteMeta
	Fields  []field
	Body    safeHTML
	Partial bool
	// Patch is the note's change as a diff, at most MaxShown of it
	// (PatchCut: there is more); "" when it carries none.
	Patch    string
	PatchCut bool
}

func (s *Server) notePage(w http.ResponseWriter, r *http.Request) {
	board := r.PathValue("board")
	ref := r.PathValue("agent") + "/" + r.PathValue("stem")
	if err := s.checkBoard(board); err != nil {
		s.fail(w, "board "+board, err)
		return
	}
	if _, err := blackboard.ParseNoteRef(ref); err != nil {
		s.fail(w, "note "+ref, err)
		return
	}
	d := noteData{Board: board}
	var h *blackboard.Handoff
	n, err := s.o.Board.ReadNote(board, ref)
	switch {
	case errors.Is(err, blackboard.ErrNoteTooLarge):
		var meta blackboard.NoteMeta
		if meta, h, err = s.o.Board.ReadHandoff(board, ref); err != nil {
			s.fail(w, "note "+ref, err)
			return
		}
		pg, err := s.o.Board.ReadNotePage(board, ref, 0, 64<<10)
		if err != nil {
			s.fail(w, "note "+ref, err)
			return
		}
		d.Meta, d.Body, d.Partial = meta, s.markdown(pg.Text), true
	case err != nil:
		s.fail(w, "note "+ref+" on board "+board, err)
		return
	default:
		d.Meta, h, d.Body = n.Meta, n.Handoff, s.markdown(n.Body)
	}
	d.Fields = handoffFields(h)
	if d.Meta.Change != nil {
		if p, err := s.o.Board.ReadPatch(board, ref); err == nil {
			d.Patch, d.PatchCut = string(p), len(p) > MaxShown
			if d.PatchCut {
				d.Patch = strings.ToValidUTF8(d.Patch[:MaxShown], "")
			}
		}
	}
	s.render(w, http.StatusOK, page{Title: "Note " + d.Meta.Ref,
		Crumbs: []crumb{{"/", "sessions"}, {boardHref(board), "board " + board}, {noteHref(board, d.Meta.Ref), d.Meta.Ref}}, Data: d})
}

// handoffFields is the front matter as table rows, in the order a note
// file has them, the person's own keys last.
func handoffFields(h *blackboard.Handoff) []field {
	if h == nil {
		return nil
	}
	out := []field{
		{Key: "status", Value: string(h.Status)},
		{Key: "agent", Value: h.Agent},
		{Key: "task", Value: h.Task},
		{Key: "conclusion", Value: h.Conclusion},
	}
	if h.Reason != "" {
		out = append(out, field{Key: "reason", Value: h.Reason})
	}
	out = append(out, field{Key: "facts", List: h.Facts}, field{Key: "artifacts", List: h.Artifacts})
	if !h.Created.IsZero() {
		out = append(out, field{Key: "created", Value: h.Created.Format(time.RFC3339)})
	}
	if h.Key != "" {
		out = append(out, field{Key: "key", Value: h.Key})
	}
	if h.Session != "" {
		out = append(out, field{Key: "session", Value: h.Session})
	}
	if h.Supersedes != "" {
		out = append(out, field{Key: "supersedes", Value: h.Supersedes})
	}
	if c := h.Change; c != nil {
		out = append(out, field{Key: "change", Value: fmt.Sprintf("%s, %s, %d files +%d -%d", c.State, c.Branch, len(c.Files), c.Insertions, c.Deletions)},
			field{Key: "files", List: c.Files})
	}
	out = append(out, usageFields(h)...)
	if h.Degraded != blackboard.DegradedNone {
		out = append(out, field{Key: "degraded (on read)", Value: string(h.Degraded)})
	}
	for _, k := range h.Extra.Keys() {
		var v any
		if _, err := h.Extra.Get(k, &v); err != nil {
			out = append(out, field{Key: k, Value: "(unreadable: " + err.Error() + ")"})
			continue
		}
		if b, err := json.Marshal(v); err == nil {
			if s, ok := v.(string); ok {
				out = append(out, field{Key: k, Value: s})
			} else {
				out = append(out, field{Key: k, Value: string(b)})
			}
		}
	}
	return out
}

type notebookData struct {
	Info       memory.Info
	Notes      []bookNote
	Archive    []bookNote
	ArchivedAt time.Time
	HasArchive bool
}

type bookNote struct {
	notebook.Note
	HTML safeHTML
}

func (s *Server) notebookPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in, err := s.o.Sessions.Get(r.Context(), id)
	if err != nil {
		s.fail(w, "session "+id, err)
		return
	}
	book := notebook.Open(s.o.Sessions.DB, in.ID, s.o.Notes)
	notes, err := book.List(r.Context())
	if err != nil {
		s.fail(w, "notebook of "+in.ID, err)
		return
	}
	archived, at, has, err := book.Archived(r.Context())
	if err != nil {
		s.fail(w, "notebook archive of "+in.ID, err)
		return
	}
	d := notebookData{Info: in, ArchivedAt: at, HasArchive: has}
	for _, n := range notes {
		d.Notes = append(d.Notes, bookNote{Note: n, HTML: s.markdown(n.Body)})
	}
	for _, n := range archived {
		d.Archive = append(d.Archive, bookNote{Note: n, HTML: s.markdown(n.Body)})
	}
	s.render(w, http.StatusOK, page{Title: "Notebook " + in.ID,
		Crumbs: append(sessionCrumbs(in), crumb{sessionHref(in.ID) + "/notebook", "notebook"}), Data: d})
}

// tokens totals a session's usage events.
type tokens struct{ Prompt, Cached, Completion, Requests int }

func (t tokens) String() string {
	return fmt.Sprintf("%d prompt (%d cached) + %d completion tokens in %d requests", t.Prompt, t.Cached, t.Completion, t.Requests)
}

// sessionTokens reads a (sub-agent) session's rollout and totals its
// usage; a session that cannot be read counts nothing.
func (s *Server) sessionTokens(r *http.Request, id string) tokens {
	var t tokens
	in, err := s.o.Sessions.Get(r.Context(), id)
	if err != nil {
		return t
	}
	ro, err := memory.LoadRolloutBounded(in.Rollout, MaxShown)
	if err != nil {
		return t
	}
	for _, it := range ro.Items {
		if it.Type == event.Usage && it.Usage != nil {
			t.Prompt += it.Usage.PromptTokens
			t.Cached += it.Usage.CachedTokens
			t.Completion += it.Usage.CompletionTokens
			t.Requests += it.Usage.Requests
		}
	}
	return t
}
