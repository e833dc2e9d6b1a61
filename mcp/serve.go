package mcp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client speaking MCP on in and out, with the tools
// token reaches (ServerForToken's errors as they are), until the client
// leaves or ctx ends (a signal: how clients stop a stdio server, Claude
// Code with SIGTERM) — both nil.
func (g *Gateway) ServeStdio(ctx context.Context, token string, in io.Reader, out io.Writer) error {
	s, err := g.ServerForToken(ctx, token)
	if err != nil {
		return err
	}
	err = s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if ctx.Err() != nil || err == nil || isEOF(err) {
		return nil // the client left, or stopped the server
	}
	return err
}

// nopWriteCloser keeps stdout open when the transport closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// isEOF reports whether err is the client closing its end.
func isEOF(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "EOF") || errors.Is(err, sdk.ErrConnectionClosed))
}

// ServeHTTP serves HTTPHandler (the endpoint and its resource metadata)
// on ln until ctx ends — then it stops within five seconds and returns
// nil: a signal is how a server is meant to stop.
func (g *Gateway) ServeHTTP(ctx context.Context, ln net.Listener) error {
	h := g.HTTPHandler()
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, h)
	mux.Handle(MetadataPath, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shut)
}
