package webui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/yagent/yagent/blackboard"
)

// The pages are written by Go code, not by html/template: executing any
// text/template makes the linker keep every exported method of every type
// in the binary (the template calls methods by name through reflect), which
// was 21 MB of the stripped yagent binary that every process maps. The
// escaping is html/template's for the contexts these pages use: text and
// quoted attribute values (esc: the same replacements), and URLs in href
// (href: only relative or http(s)/mailto ones, percent-encoded as
// html/template normalises them). Markup is written only as literals here;
// every value goes through esc or href, and the Markdown a page shows is
// goldmark's (safeHTML, raw HTML left out).

// safeHTML is markup that is safe to write as is (rendered Markdown).
type safeHTML string

// pageWriter accumulates a page.
type pageWriter struct{ strings.Builder }

// raw writes markup literals.
func (w *pageWriter) raw(parts ...string) {
	for _, p := range parts {
		w.WriteString(p)
	}
}

// esc escapes text and attribute values as html/template does.
// (A loop, not a strings.Replacer: a package-level value built at start
// would cost every process, the pages are written only by `yagent ui`.)
func esc(s string) string {
	if !strings.ContainsAny(s, "\x00\"&'+<>") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0:
			b.WriteString("\uFFFD")
		case '"':
			b.WriteString("&#34;")
		case '&':
			b.WriteString("&amp;")
		case '\'':
			b.WriteString("&#39;")
		case '+':
			b.WriteString("&#43;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// href makes u safe in a quoted href: a URL with a scheme other than
// http, https or mailto becomes "#ZgotmplZ" (html/template's marker), the
// rest is percent-encoded where a URL may not hold the byte, then escaped.
func href(u string) string {
	if i := strings.IndexByte(u, ':'); i >= 0 && !strings.Contains(u[:i], "/") {
		switch strings.ToLower(u[:i]) {
		case "http", "https", "mailto":
		default:
			return "#ZgotmplZ"
		}
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!#$&*+,/:;=?@[]%", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return esc(b.String())
}

func num(v any) string { return fmt.Sprint(v) }

func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format(time.DateTime)
}

func clock(t time.Time) string { return t.Local().Format("15:04:05.000") }

// short folds s's whitespace and cuts it to n runes.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// writePage writes the layout around the page's content.
func writePage(w *pageWriter, p page) {
	w.raw(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`, esc(p.Title), ` · yagent</title>
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script>
</head>
<body`)
	if p.Events != "" {
		w.raw(` data-events="`, esc(p.Events), `"`)
	}
	w.raw(">\n<header>\n<a class=\"brand\" href=\"/\">yagent</a>\n<nav>")
	for i, c := range p.Crumbs {
		if i > 0 {
			w.raw(" / ")
		}
		w.raw(`<a href="`, href(c.Href), `">`, esc(c.Text), `</a>`)
	}
	w.raw("</nav>\n</header>\n<main>\n")
	switch d := p.Data.(type) {
	case sessionsData:
		d.write(w)
	case transcriptData:
		d.write(w)
	case timelineData:
		d.write(w)
	case boardData:
		d.write(w)
	case noteData:
		d.write(w)
	case batchData:
		d.write(w)
	case notebookData:
		d.write(w)
	case errorData:
		d.write(w, p.Title)
	default:
		panic(fmt.Sprintf("webui: no page for %T", p.Data))
	}
	w.raw("\n</main>\n</body>\n</html>\n")
}

func (d errorData) write(w *pageWriter, title string) {
	w.raw(`<h1>`, num(d.Status), ` · `, esc(title), "</h1>\n", `<p class="error" id="error">`, esc(d.Msg), "</p>\n")
	if d.Back {
		w.raw(`<p><a id="back" href="/">Back to the sessions</a></p>`, "\n")
	}
}

func (d sessionsData) write(w *pageWriter) {
	w.raw("<h1>Sessions</h1>\n<p class=\"muted\">")
	if d.All {
		w.raw(`Every directory. <a href="/">Only `, esc(d.Cwd), `</a>`)
	} else {
		w.raw(`In `, esc(d.Cwd), `. <a href="/?all=1">Every directory</a>`)
	}
	w.raw("</p>\n")
	if len(d.Sessions) == 0 {
		w.raw(`<p class="empty">No sessions here yet`)
		if !d.All {
			w.raw(` — <a href="/?all=1">every directory</a>`)
		}
		w.raw(".</p>\n")
		return
	}
	w.raw(`<table class="list" id="sessions">
<thead><tr><th>updated</th><th>session</th><th>kind</th><th>turns</th><th>title</th><th>views</th></tr></thead>
<tbody>
`)
	for _, s := range d.Sessions {
		sh := href(sessionHref(s.ID))
		w.raw(`<tr data-session="`, esc(s.ID), `" data-kind="`, esc(s.Kind), "\">\n<td>", esc(when(s.Updated)), "</td>\n",
			`<td><a href="`, sh, `">`, esc(s.ID), `</a>`)
		if s.Name != "" {
			w.raw(` <span class="tag">`, esc(s.Name), `</span>`)
		}
		w.raw("</td>\n<td>", esc(s.Kind), "</td>\n<td>", num(s.Turns), "</td>\n<td>", esc(short(s.Title, 80)))
		if d.All {
			w.raw(`<div class="muted">`, esc(s.Cwd), `</div>`)
		}
		w.raw("</td>\n", `<td class="views"><a href="`, sh, `">transcript</a> <a class="timeline" href="`, sh, `/timeline">timeline</a>`)
		if s.Kind == "batch" {
			w.raw(` <a class="batch" href="`, sh, `/batch">batch</a>`)
		}
		if s.HasBoard {
			w.raw(` <a class="board" href="`, href(boardHref(s.BoardID)), `">board</a>`)
		}
		w.raw(` <a href="`, sh, `/notebook">notebook</a></td>`, "\n</tr>\n")
	}
	w.raw("</tbody>\n</table>\n")
}

func (d transcriptData) write(w *pageWriter) {
	in := d.Info
	sh := href(sessionHref(in.ID))
	w.raw(`<h1>`, esc(short(in.Title, 100)), "</h1>\n", `<p class="muted">`, esc(in.Kind), ` · `, esc(in.Model), ` · `, esc(in.Cwd),
		` · <a href="`, sh, `/timeline">timeline</a> · <a href="`, href(boardHref(in.BoardID)), `">board `, esc(in.BoardID),
		`</a> · <a href="`, sh, `/notebook">notebook</a>`)
	if in.Kind == "batch" {
		w.raw(` · <a href="`, sh, `/batch">batch</a>`)
	}
	w.raw(esc(costText(in)), "</p>\n")
	for _, warn := range d.Warnings {
		w.raw(`<p class="warning">`, esc(warn), "</p>\n")
	}
	w.raw("<div id=\"transcript\">\n")
	for _, e := range d.Entries {
		e.write(w)
	}
	w.raw("</div>\n")
}

func (e entry) write(w *pageWriter) {
	switch e.Kind {
	case "turn":
		w.raw(`<h2 class="turn">Turn `, num(e.Turn), ` <span class="muted">`, esc(when(e.Time)), "</span></h2>\n")
	case "user":
		w.raw(`<div class="msg user"><div class="who">you</div><pre>`, esc(e.Text), `</pre>`)
		e.TextCut.write(w)
		w.raw("</div>\n")
	case "assistant":
		w.raw(`<div class="msg assistant"><div class="who">assistant <span class="muted">`, esc(clock(e.Time)), `</span></div>`)
		if e.Reasoning != "" {
			w.raw(`<details class="reasoning"><summary>reasoning</summary><pre>`, esc(e.Reasoning), `</pre>`)
			e.ReasoningCut.write(w)
			w.raw(`</details>`)
		}
		if e.Text != "" {
			w.raw(`<div class="md">`, string(e.HTML), `</div>`)
			e.TextCut.write(w)
		}
		w.raw("\n")
		for _, c := range e.Calls {
			w.raw(`<details class="call"><summary>`, esc(c.Name), ` <span class="muted">`, esc(short(c.Args, 90)), `</span></summary><pre>`, esc(c.Args), `</pre>`)
			c.Cut.write(w)
			w.raw(`</details>`)
		}
		w.raw("</div>\n")
	case "tool":
		name := e.Name
		if name == "" {
			name = "a call"
		}
		w.raw(`<details class="result"><summary>result of `, esc(name), ` <span class="muted">`, esc(short(e.Text, 90)), `</span></summary><pre>`, esc(e.Text), `</pre>`)
		e.TextCut.write(w)
		w.raw("</details>\n")
	case "delegation":
		w.raw(`<div class="delegation status-`, esc(e.Status), `">delegation to <b>`, esc(e.Agent), `</b> `, esc(e.Status))
		if e.Text != "" {
			w.raw(`: `, esc(short(e.Text, 100)))
		}
		if e.NoteHref != "" {
			w.raw(` → <a href="`, href(e.NoteHref), `">`, esc(e.Ref), `</a>`)
		}
		if e.SubHref != "" {
			w.raw(` <a class="sub" href="`, href(e.SubHref), `">(its transcript)</a>`)
		}
		w.raw("</div>\n")
	case "compacted":
		w.raw(`<details class="compacted"><summary>compacted: the history above was summarised</summary><div class="md"><pre>`, esc(e.Text), `</pre></div>`)
		e.TextCut.write(w)
		w.raw("</details>\n")
	case "cleared":
		w.raw("<div class=\"cleared\">history cleared</div>\n")
	case "rewound":
		w.raw("<div class=\"cleared\">rewound to before turn ", num(e.Turn), ": the turns since are not shown (the rollout keeps them)</div>\n")
	case "system":
		w.raw(`<details class="result"><summary>system</summary><pre>`, esc(e.Text), `</pre>`)
		e.TextCut.write(w)
		w.raw("</details>\n")
	}
}

// write says where a text was cut and links its whole; nil writes nothing.
func (c *cutLink) write(w *pageWriter) {
	if c == nil {
		return
	}
	w.raw(`<p class="cut">Cut here: the page shows the first 64 KiB of `, esc(fmtBytes(c.Size)), `. <a href="`, href(c.Href), `">The whole text</a></p>`)
}

func (d timelineData) write(w *pageWriter) {
	w.raw(`<h1>Delegations of `, esc(short(d.Info.Title, 80)), "</h1>\n")
	if len(d.Bars) == 0 {
		w.raw("<p class=\"empty\">This session delegated nothing.</p>\n")
		return
	}
	w.raw(`<p class="muted">`, num(len(d.Bars)), ` delegations over `, esc(fmtDur(d.End.Sub(d.Start))))
	if d.Overlaps > 0 {
		pairs := "pairs"
		if d.Overlaps == 1 {
			pairs = "pair"
		}
		w.raw(`, `, num(d.Overlaps), ` `, pairs, ` in parallel`)
	}
	w.raw(". Hover a bar for its tokens; click it for its note.</p>\n",
		`<svg id="timeline" class="timeline" viewBox="0 0 `, num(d.Width), ` `, num(d.Height), "\" role=\"img\" aria-label=\"delegation timeline\">\n")
	for _, t := range d.Ticks {
		x := num(t.X)
		w.raw(`<line class="tick" x1="`, x, `" y1="18" x2="`, x, `" y2="`, num(d.Height), `"/><text class="tick" x="`, x, `" y="14">`, esc(t.Label), `</text>`)
	}
	w.raw("\n")
	for _, b := range d.Bars {
		w.raw(`<text class="label" x="8" y="`, num(b.LabelY), `">`, esc(short(b.Agent, 14)), ` · `, esc(short(b.Task, 20)), "</text>\n")
		if b.Href != "" {
			w.raw(`<a href="`, href(b.Href), `" class="bar-link">`)
		}
		w.raw(`<rect class="bar status-`, esc(b.Status), `" data-call="`, esc(b.CallID), `" data-agent="`, esc(b.Agent), `" data-status="`, esc(b.Status),
			`" data-ref="`, esc(b.Ref), `" data-start="`, strconv.FormatInt(b.Start.UnixMilli(), 10), `" data-end="`, strconv.FormatInt(b.End.UnixMilli(), 10),
			`" x="`, num(b.X), `" y="`, num(b.Y), `" width="`, num(b.W), `" height="`, num(d.BarH), `" rx="3"><title>`, esc(b.Title), `</title></rect>`)
		if b.Href != "" {
			w.raw(`</a>`)
		}
		w.raw("\n")
	}
	w.raw("</svg>\n", `<ul class="legend"><li class="status-ok">ok</li><li class="status-partial">partial</li><li class="status-error">error</li><li class="status-degraded">degraded</li><li class="status-abandoned">abandoned</li><li class="status-running">running</li></ul>`, "\n")
}

func (d boardData) write(w *pageWriter) {
	w.raw(`<h1>Board `, esc(d.ID), "</h1>\n<h2>The index the model sees</h2>\n")
	if d.Index.Text != "" {
		w.raw(`<pre id="index" class="index">`, esc(d.Index.Text), "</pre>\n",
			`<p class="muted">Rebuilt from disk on every model call, as here: `, num(d.Index.Listed), ` of `, num(d.Index.Total), " notes listed.</p>\n")
	} else {
		w.raw(`<p class="empty" id="index">No index: the board is empty or the index is off (blackboard.index_max_notes).</p>`, "\n")
	}
	w.raw("<h2>Notes</h2>\n")
	if len(d.Notes) > 0 {
		w.raw(`<table class="list" id="notes">
<thead><tr><th>created</th><th>note</th><th>status</th><th>conclusion</th></tr></thead>
<tbody>
`)
		for _, n := range d.Notes {
			st := esc(string(n.Status))
			w.raw(`<tr><td>`, esc(when(n.Created)), `</td><td><a href="`, href(n.Href), `">`, esc(n.Ref), `</a></td><td><span class="status status-`, st, `">`, st,
				`</span></td><td>`, esc(short(n.Conclusion, 140)), `</td></tr>`)
		}
		w.raw("\n</tbody>\n</table>\n")
	} else {
		w.raw("<p class=\"empty\">No notes yet.</p>\n")
	}
	for _, u := range d.Unreadable {
		w.raw(`<p class="warning">unreadable: `, esc(u.Ref), `: `, esc(u.Err), "</p>\n")
	}
	d.writeTasks(w)
}

// writeTasks is the board's task list (issue 30 teams), as `yagent board
// tasks` derives it: each task's title, state, team, claimant (with the
// note that lands for it, linked once it has landed) and what it depends
// on (those not done yet marked waiting).
func (d boardData) writeTasks(w *pageWriter) {
	w.raw("<h2>Tasks</h2>\n")
	if d.TasksErr != "" {
		w.raw(`<p class="warning" id="tasks">the tasks could not be read: `, esc(d.TasksErr), "</p>\n")
		return
	}
	if len(d.Tasks.Tasks) == 0 {
		w.raw(`<p class="empty" id="tasks">No tasks: post_task writes them, team members claim them.</p>`, "\n")
	} else {
		w.raw(`<table class="list" id="tasks">
<thead><tr><th>task</th><th>title</th><th>state</th><th>team</th><th>claimant</th><th>depends on</th></tr></thead>
<tbody>
`)
		for _, t := range d.Tasks.Tasks {
			st := esc(string(t.State))
			w.raw(`<tr data-task="`, esc(t.Ref), `"><td>`, esc(t.Ref), `</td><td>`, esc(short(t.Title, 140)), `</td><td><span class="status status-`, st, `">`, st,
				`</span></td><td>`, esc(t.Team), `</td><td>`)
			switch {
			case t.Claim == nil && t.Assignee != "":
				w.raw(`<span class="muted">for `, esc(t.Assignee), `</span>`)
			case t.Claim == nil:
				w.raw(`<span class="muted">none</span>`)
			case t.State == blackboard.TaskDone || t.State == blackboard.TaskFailed:
				w.raw(esc(t.Claim.Agent), ` → <a href="`, href(noteHref(d.ID, t.Claim.Ref)), `">`, esc(t.Claim.Ref), `</a>`)
			default:
				w.raw(esc(t.Claim.Agent), ` <span class="muted">(its note lands at `, esc(t.Claim.Ref), `)</span>`)
			}
			w.raw(`</td><td>`)
			for i, dep := range t.DependsOn {
				if i > 0 {
					w.raw(", ")
				}
				w.raw(esc(dep))
				if slices.Contains(t.Waiting, dep) {
					w.raw(` <span class="muted">(waiting)</span>`)
				}
			}
			w.raw("</td></tr>")
		}
		w.raw("\n</tbody>\n</table>\n")
	}
	if n := len(d.Tasks.Unreadable); n > 0 {
		w.raw(`<p class="warning">`, num(n), ` task files unreadable: `, esc(strings.Join(d.Tasks.Unreadable, ", ")), "</p>\n")
	}
}

func (d noteData) write(w *pageWriter) {
	w.raw(`<h1>`, esc(d.Meta.Ref), "</h1>\n<table class=\"frontmatter\" id=\"frontmatter\">\n")
	for _, f := range d.Fields {
		w.raw(`<tr><th>`, esc(f.Key), `</th><td>`)
		switch {
		case len(f.List) > 0:
			w.raw(`<ul>`)
			for _, v := range f.List {
				w.raw(`<li>`, esc(v), `</li>`)
			}
			w.raw(`</ul>`)
		case f.Key == "status":
			w.raw(`<span class="status status-`, esc(f.Value), `">`, esc(f.Value), `</span>`)
		default:
			w.raw(esc(f.Value))
		}
		w.raw(`</td></tr>`)
	}
	w.raw("\n</table>\n")
	if d.Partial {
		w.raw(`<p class="warning">This note is larger than board.max_note_bytes: only its beginning is shown (yagent board show pages through it).</p>`, "\n")
	}
	w.raw(`<article class="md" id="body">`, string(d.Body), "</article>\n")
	if d.Patch != "" {
		w.raw("<h2>Change</h2>\n", `<pre class="patch" id="patch">`, esc(d.Patch), "</pre>\n")
		if d.PatchCut {
			w.raw(`<p class="warning">The patch is longer than `, num(MaxShown>>10), ` KiB: only its beginning is shown (yagent changes show `, esc(d.Meta.Ref), ` --board `, esc(d.Board), ` prints it whole).</p>`, "\n")
		}
	}
}

func (d batchData) write(w *pageWriter) {
	w.raw(`<h1>Batch `, esc(d.Info.ID), "</h1>\n", `<p class="muted">plan `, esc(d.Plan), ` · board <a href="`, href(boardHref(d.Info.BoardID)), `">`, esc(d.Info.BoardID),
		`</a> · <span id="live">`)
	if d.Done {
		w.raw("finished")
	} else {
		w.raw("running — live")
	}
	w.raw("</span></p>\n")
	if d.PlanErr != "" {
		w.raw(`<p class="warning">`, esc(d.PlanErr), "</p>\n")
	}
	W, H := num(d.W), num(d.H)
	w.raw(`<svg id="dag" class="dag" width="`, W, `" height="`, H, `" viewBox="0 0 `, W, ` `, H, "\" role=\"img\" aria-label=\"batch plan\">\n")
	for _, e := range d.Edges {
		c, y1, y2 := num(e.C), num(e.Y1), num(e.Y2)
		w.raw(`<path class="edge" d="M`, num(e.X1), ` `, y1, ` C`, c, ` `, y1, ` `, c, ` `, y2, ` `, num(e.X2), ` `, y2, `"/>`)
	}
	w.raw("\n")
	for _, n := range d.Nodes {
		id, st := esc(n.ID), esc(n.Status)
		w.raw(`<a class="node-link" `)
		if n.Href != "" {
			w.raw(`href="`, href(n.Href), `"`)
		}
		x, y, tx := num(n.X), num(n.Y), num(n.TextX)
		w.raw(` data-node="`, id, `"><g class="node status-`, st, `" data-node="`, id, `" data-status="`, st, "\">\n",
			`<rect x="`, x, `" y="`, y, `" width="180" height="48" rx="6"><title>`, esc(n.Agent), `: `, esc(n.Task), esc(onWorker(n.Worker)), "</title></rect>\n",
			`<text class="id" x="`, tx, `" y="`, y, `" dy="19">`, esc(short(n.ID, 22)), "</text>\n",
			`<text class="st" x="`, tx, `" y="`, y, `" dy="37">`, esc(n.Agent), ` · <tspan class="state">`, st)
		if n.Resumed {
			w.raw(` (resumed)`)
		}
		w.raw(esc(onWorker(n.Worker)), "</tspan></text>\n</g></a>\n")
	}
	w.raw("</svg>\n", `<ul class="legend"><li class="status-pending">pending</li><li class="status-running">running</li><li class="status-ok">ok</li><li class="status-partial">partial</li><li class="status-error">error</li><li class="status-skipped">skipped</li><li class="status-abandoned">abandoned</li></ul>`, "\n")
}

func (d notebookData) write(w *pageWriter) {
	w.raw(`<h1>Notebook of `, esc(short(d.Info.Title, 80)), "</h1>\n")
	if len(d.Notes) > 0 {
		w.raw("<div id=\"notebook\">\n")
		for _, n := range d.Notes {
			w.raw(`<section class="booknote"><h2>`, esc(n.Name))
			if n.Pinned {
				w.raw(` <span class="tag">pinned</span>`)
			}
			w.raw(`</h2><p class="muted">`, esc(n.Description), ` · updated `, esc(when(n.Updated)), `</p><div class="md">`, string(n.HTML), `</div></section>`)
		}
		w.raw("\n</div>\n")
	} else {
		w.raw("<p class=\"empty\" id=\"notebook\">The notebook is empty.</p>\n")
	}
	w.raw("<h2>Archive</h2>\n")
	if !d.HasArchive {
		w.raw(`<p class="empty" id="archive">No archived notebook: one is kept when a rebuild replaces the notebook.</p>`, "\n")
		return
	}
	w.raw(`<p class="muted">The notebook as it was before the last rebuild or restore (`, esc(when(d.ArchivedAt)), "); yagent notes restore brings it back.</p>\n<div id=\"archive\">\n")
	for _, n := range d.Archive {
		w.raw(`<details class="booknote"><summary>`, esc(n.Name), ` — `, esc(n.Description), `</summary><div class="md">`, string(n.HTML), `</div></details>`)
	}
	w.raw("\n</div>\n")
}

// onWorker names the River worker running a delegation, "" for none.
func onWorker(name string) string {
	if name == "" {
		return ""
	}
	return " on " + name
}
