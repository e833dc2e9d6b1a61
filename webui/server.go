package webui

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/memory"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options are what the server reads from and how it lets people in.
type Options struct {
	Sessions *memory.Store
	Board    *blackboard.Store
	// Index bounds the board index as the model got it
	// (blackboard.index_max_notes, blackboard.index_line_chars).
	Index blackboard.IndexOptions
	Notes config.Notes
	// Cwd is the directory whose sessions the first page lists; All lists
	// every directory's.
	Cwd string
	All bool
	// Token is the access token (NewToken); empty lets nobody in.
	Token string
	// Hosts are Host names allowed besides loopback and the literal
	// address (the host named in --addr).
	Hosts []string
	// Poll is how often a live batch is re-read (0: 250ms).
	Poll time.Duration
	Now  func() time.Time
}

// Server serves the pages.
type Server struct {
	o     Options
	pages map[string]*template.Template
	md    goldmark.Markdown
	mux   *http.ServeMux
}

var pageNames = []string{"sessions", "transcript", "timeline", "board", "note", "batch", "notebook", "error"}

// New builds a server over opts.
func New(opts Options) (*Server, error) {
	if opts.Sessions == nil || opts.Board == nil {
		return nil, errors.New("webui: Sessions and Board are required")
	}
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{o: opts, pages: map[string]*template.Template{}, mux: http.NewServeMux(),
		// GitHub-flavoured Markdown; raw HTML in a note is left out and
		// dangerous links are dropped (goldmark's default, not WithUnsafe).
		md: goldmark.New(goldmark.WithExtensions(extension.GFM))}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("webui: parse template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	static, _ := fs.Sub(staticFS, "static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", s.sessionsPage)
	s.mux.HandleFunc("GET /s/{id}", s.transcriptPage)
	s.mux.HandleFunc("GET /s/{id}/timeline", s.timelinePage)
	s.mux.HandleFunc("GET /s/{id}/batch", s.batchPage)
	s.mux.HandleFunc("GET /s/{id}/batch/events", s.batchEvents)
	s.mux.HandleFunc("GET /s/{id}/notebook", s.notebookPage)
	s.mux.HandleFunc("GET /s/{id}/raw/{line}", s.rawText)
	s.mux.HandleFunc("GET /b/{board}", s.boardPage)
	s.mux.HandleFunc("GET /b/{board}/n/{agent}/{stem}", s.notePage)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.notFound(w, fmt.Sprintf("There is no page at %s.", r.URL.Path))
	})
	return s, nil
}

// Handler is the server behind its guard.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// Serve answers on ln until ctx ends, then shuts down (open event streams
// end with ctx too).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-done
	return nil
}

// page is what every template gets.
type page struct {
	Title  string
	Crumbs []crumb
	// Events, when set, is the event stream the page follows.
	Events string
	Data   any
}

type crumb struct{ Href, Text string }

func (s *Server) render(w http.ResponseWriter, status int, name string, p page) {
	var buf bytes.Buffer
	if err := s.pages[name].Execute(&buf, p); err != nil {
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// refuse answers a guard refusal as a small page (no links into the data).
func (s *Server) refuse(w http.ResponseWriter, status int, msg string) {
	s.render(w, status, "error", page{Title: http.StatusText(status), Data: errorData{Status: status, Msg: msg}})
}

type errorData struct {
	Status int
	Msg    string
	Back   bool
}

// notFound is the 404 page: what was not found, and the way back.
func (s *Server) notFound(w http.ResponseWriter, msg string) {
	s.render(w, http.StatusNotFound, "error", page{Title: "Not found", Data: errorData{Status: http.StatusNotFound, Msg: msg, Back: true}})
}

// fail answers an error reading the stores: a missing thing is a 404, the
// rest a 500 that says what could not be read.
func (s *Server) fail(w http.ResponseWriter, what string, err error) {
	switch {
	case errors.Is(err, memory.ErrNoSession), errors.Is(err, memory.ErrAmbiguousSession),
		errors.Is(err, blackboard.ErrNoBoard), errors.Is(err, blackboard.ErrBadBoardID),
		errors.Is(err, blackboard.ErrBadRef), errors.Is(err, blackboard.ErrNoteNotFound):
		s.notFound(w, fmt.Sprintf("%s: %v.", what, err))
	default:
		s.render(w, http.StatusInternalServerError, "error", page{Title: "Error",
			Data: errorData{Status: http.StatusInternalServerError, Msg: fmt.Sprintf("%s: %v", what, err), Back: true}})
	}
}

// markdown renders Markdown to HTML (raw HTML left out).
func (s *Server) markdown(src string) template.HTML {
	var buf bytes.Buffer
	if err := s.md.Convert([]byte(src), &buf); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	return template.HTML(buf.String()) // #nosec: goldmark escapes; raw HTML is omitted
}

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.Local().Format(time.DateTime)
	},
	"clock": func(t time.Time) string { return t.Local().Format("15:04:05.000") },
	"dur": func(d time.Duration) string {
		switch {
		case d < time.Second:
			return fmt.Sprintf("%dms", d.Milliseconds())
		case d < time.Minute:
			return fmt.Sprintf("%.1fs", d.Seconds())
		}
		return d.Round(time.Second).String()
	},
	"short": func(s string, n int) string {
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > n {
			return string(r[:n-1]) + "…"
		}
		return s
	},
	"join": strings.Join,
	"bytes": func(n int64) string {
		switch {
		case n >= 1<<20:
			return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
		case n >= 1<<10:
			return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
		}
		return fmt.Sprintf("%d bytes", n)
	},
}
