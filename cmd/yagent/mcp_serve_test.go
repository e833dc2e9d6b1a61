package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMCPServeListenAddr pins --http: a bare port listens on 127.0.0.1
// only; an address the person names is kept; anything else is a usage
// error naming the flag.
func TestMCPServeListenAddr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"8765", "127.0.0.1:8765"},
		{":8765", "127.0.0.1:8765"},
		{" 0 ", "127.0.0.1:0"},
		{"0.0.0.0:8765", "0.0.0.0:8765"},
		{"[::1]:8765", "[::1]:8765"},
		{"localhost:8765", "localhost:8765"},
		{"host:", ""},
		{"a:b:c", ""},
	} {
		got, err := listenAddr(tc.in)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("listenAddr(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		var ue *usageError
		if err != nil && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "--http")) {
			t.Errorf("listenAddr(%q): %v; want a usage error naming --http", tc.in, err)
		}
	}
}

// TestMCPServeHTTP runs `yagent mcp serve --http 0`: it listens on
// 127.0.0.1, refuses a foreign Origin with 403 and a missing token with
// 401 and WWW-Authenticate: Bearer; --allow-origin is checked up front.
func TestMCPServeHTTP(t *testing.T) {
	f := kbFactory(t, "")
	for _, args := range [][]string{{"--http", "0", "--allow-origin", "app.example"}, {"--allow-origin", "https://app.example"}} {
		cmd := NewCmdMCPServe(f)
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.ExecuteContext(t.Context())
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--allow-origin") {
			t.Errorf("mcp serve %v: %v; want a usage error naming --allow-origin", args, err)
		}
	}

	pr, pw := io.Pipe()
	f.IO.ErrOut = pw
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		cmd := NewCmdMCPServe(f)
		cmd.SetArgs([]string{"--http", "0", "--allow-origin", "https://app.example"})
		done <- cmd.ExecuteContext(ctx)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("mcp serve --http printed nothing")
	}
	m := regexp.MustCompile(`serving the knowledge base on (http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("mcp serve --http 0 said %q; want it serving on 127.0.0.1", lines.Text())
	}
	go io.Copy(io.Discard, pr)
	for origin, want := range map[string]int{"https://evil.example": http.StatusForbidden, "": http.StatusUnauthorized, "https://app.example": http.StatusUnauthorized} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, m[1], strings.NewReader(`{}`))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || (want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ")) {
			t.Errorf("Origin %q: %d, WWW-Authenticate %q; want %d", origin, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("mcp serve --http after cancel: %v; want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mcp serve --http did not stop")
	}
}
