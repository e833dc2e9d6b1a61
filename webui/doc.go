// Package webui serves `yagent ui`: a local, read-only web view of the
// sessions of a directory, a session's transcript, its delegation
// timeline, its board (notes and the exact index the model saw), a batch
// run's plan with live state over server-sent events, and the notebook.
//
// Everything is read from what yagent already stores — rollouts, session
// rows, board notes, the notebook — and nothing is written: the pages take
// no lock and change no file, so they can watch a run that is going on.
//
// Access: the server answers only GET and HEAD; a request needs the
// per-process token (in the URL once, as ?token=…, which sets a cookie
// and redirects to the URL without it) or that cookie; a Host that is
// neither loopback, nor the literal address the request came in on, nor a
// host the caller named (Options.Hosts), and an Origin that is not the
// page's own, are refused (the DNS-rebinding guard). Pages are written by
// Go code (render.go) with html/template's escaping, not by html/template:
// executing a template makes the linker keep every exported method of
// every type in the yagent binary (21 MB of its 70 MB). The static assets
// are embedded: there is no build step.
package webui
