package webui

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/markdown"
	"github.com/yagent/yagent/memory"
)

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
	// Running, when set, reads the workers running a board's delegations
	// now, by delegation id (queue.RunningReader over queue.dsn: the
	// worker with its attempt's step and last tool): a live --queue
	// batch's running jobs show with them.
	Running func(ctx context.Context, board string) (map[string]string, error)
}

// Server serves the pages.
type Server struct {
	o   Options
	mux *http.ServeMux
	// Options.Running is read at most once a second per board.
	runMu   sync.Mutex
	runSeen map[string]runningAt
}

type runningAt struct {
	at      time.Time
	workers map[string]string
}

// runningWorkers returns the workers running board's delegations by id,
// nil without a queue or when it cannot be read.
func (s *Server) runningWorkers(ctx context.Context, board string) map[string]string {
	if s.o.Running == nil {
		return nil
	}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if r, ok := s.runSeen[board]; ok && time.Since(r.at) < time.Second {
		return r.workers
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	m, _ := s.o.Running(ctx, board)
	if s.runSeen == nil {
		s.runSeen = map[string]runningAt{}
	}
	s.runSeen[board] = runningAt{time.Now(), m}
	return m
}

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
	s := &Server{o: opts, mux: http.NewServeMux()}
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

// Announce prints the address to open (with its token) on out, warns on
// errOut when it is reachable from other machines, then serves on ln until
// ctx ends or timeout (0: none) has passed; a cancelled ctx is an error
// (yagent ui stopped). addr is what ln was asked for.
func (s *Server) Announce(ctx context.Context, ln net.Listener, addr string, timeout time.Duration, out, errOut io.Writer) error {
	hosts, token := s.o.Hosts, s.o.Token
	shown := ln.Addr().String()
	if !IsLoopback(shown) {
		fmt.Fprintf(errOut, "warning: %s is reachable from other machines over plain HTTP: anyone who sees the address with its token can read your sessions; prefer the default 127.0.0.1\n", shown)
		shown = ShownAddr(addr, shown, hosts)
	}
	fmt.Fprintf(out, "http://%s/?token=%s\n", shown, token)
	fmt.Fprintln(errOut, "yagent ui: open the address above in a browser (read-only); Ctrl-C stops")
	sctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if err := s.Serve(sctx, ln); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("yagent ui stopped: %w", err)
	}
	return nil
}

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

// page is what every page is written from (render.go).
type page struct {
	Title  string
	Crumbs []crumb
	// Events, when set, is the event stream the page follows.
	Events string
	Data   any
}

type crumb struct{ Href, Text string }

func (s *Server) render(w http.ResponseWriter, status int, p page) {
	var pw pageWriter
	writePage(&pw, p)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, pw.String())
}

// refuse answers a guard refusal as a small page (no links into the data).
func (s *Server) refuse(w http.ResponseWriter, status int, msg string) {
	s.render(w, status, page{Title: http.StatusText(status), Data: errorData{Status: status, Msg: msg}})
}

type errorData struct {
	Status int
	Msg    string
	Back   bool
}

// notFound is the 404 page: what was not found, and the way back.
func (s *Server) notFound(w http.ResponseWriter, msg string) {
	s.render(w, http.StatusNotFound, page{Title: "Not found", Data: errorData{Status: http.StatusNotFound, Msg: msg, Back: true}})
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
		s.render(w, http.StatusInternalServerError, page{Title: "Error",
			Data: errorData{Status: http.StatusInternalServerError, Msg: fmt.Sprintf("%s: %v", what, err), Back: true}})
	}
}

// markdown renders GitHub-flavoured Markdown to HTML, raw HTML left out
// and dangerous links emptied (internal/markdown).
func (s *Server) markdown(src string) safeHTML {
	return safeHTML(markdown.HTML(src)) // #nosec: text is escaped; raw HTML is omitted
}

// Hosts are the names, besides loopback ones, that a server listening on
// addr (host:port) answers to: the name the person gave, or this
// machine's name when it listens on every interface.
func Hosts(addr string) []string {
	host, _, _ := net.SplitHostPort(addr)
	var hosts []string
	if ip := net.ParseIP(host); ip == nil {
		hosts = append(hosts, host) // the name the person gave
	} else if ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			hosts = append(hosts, name)
		}
	}
	return hosts
}

// ShownAddr is the address to give a person for a server asked to listen
// on addr and listening on listening: the name they gave, or on every
// interface the machine's name (hosts, from Hosts), with the real port.
func ShownAddr(addr, listening string, hosts []string) string {
	host, _, _ := net.SplitHostPort(addr)
	_, port, _ := net.SplitHostPort(listening)
	switch ip := net.ParseIP(host); {
	case ip == nil || !ip.IsUnspecified():
		return net.JoinHostPort(host, port)
	case len(hosts) > 0: // every interface: the machine's name reaches it
		return net.JoinHostPort(hosts[0], port)
	}
	return listening
}
