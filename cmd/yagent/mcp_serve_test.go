package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
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

// TestMCPServeStdioStops: `yagent mcp serve` on stdio stops with exit 0
// and nothing on stderr both ways a client ends it — closing its stdin,
// and SIGTERM (Claude Code's way); SIGTERM once exited 130 with "context
// canceled" (issue 31 item 7).
func TestMCPServeStdioStops(t *testing.T) {
	bin := yagentBinary(t)
	home := t.TempDir()
	env := append(os.Environ(), "YAGENT_HOME="+home, "YAGENT_NOTES_ROOT=")
	create := exec.Command(bin, "kb", "token", "create", "--name", "client", "--read")
	create.Env = env
	out, err := create.Output()
	if err != nil {
		t.Fatalf("kb token create: %v", err)
	}
	env = append(env, "YAGENT_KB_TOKEN="+strings.TrimSpace(string(out)))
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	for _, how := range []string{"stdin closed", "SIGTERM"} {
		cmd := exec.Command(bin, "mcp", "serve")
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(stdin, initialize); err != nil {
			t.Fatal(err)
		}
		if !bufio.NewScanner(stdout).Scan() {
			t.Fatalf("%s: no answer to initialize; stderr: %s", how, stderr.String())
		}
		go io.Copy(io.Discard, stdout)
		if how == "SIGTERM" {
			err = cmd.Process.Signal(syscall.SIGTERM)
		} else {
			err = stdin.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil || stderr.Len() > 0 {
				t.Errorf("%s: %v, stderr %q; want exit 0 and nothing said", how, err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%s: mcp serve did not stop in 30 s; stderr: %s", how, stderr.String())
		}
	}
}
