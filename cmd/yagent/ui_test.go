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
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/internal/testio"
)

// uiEnv is a home of its own for the ui tests; the workspace is the
// repository (the demo scenario reads it).
type uiEnv struct {
	home, repo string
}

func newUIEnv(t *testing.T) *uiEnv {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return &uiEnv{home: t.TempDir(), repo: repo}
}

func (e *uiEnv) factory(out, errOut io.Writer) *Factory {
	f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	f.Dir = e.repo
	env := map[string]string{"YAGENT_HOME": e.home, "USER": "alice"}
	f.Getenv = func(k string) string { return env[k] }
	return f
}

// run executes one command line in-process and fails the test unless it
// exits 0.
func (e *uiEnv) run(t *testing.T, ctx context.Context, args ...string) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := e.factory(&out, &errOut)
	defer f.Close()
	if code := execute(ctx, f, args); code != 0 {
		t.Fatalf("yagent %s exited %d:\n%s", strings.Join(args, " "), code, errOut.String())
	}
}

// serve starts `yagent ui ARGS` in-process and returns the address it
// printed; the server stops with the test.
func (e *uiEnv) serve(t *testing.T, args ...string) (url string, stderr *testio.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	stderr = &testio.Buffer{}
	f := e.factory(pw, stderr)
	done := make(chan int, 1)
	go func() {
		code := execute(ctx, f, append([]string{"ui"}, args...))
		f.Close()
		pw.Close()
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 130 {
			t.Errorf("yagent ui ended with %d after Ctrl-C; want 130\n%s", code, stderr)
		}
	})
	// No address within a minute fails the test rather than wait for ever.
	stop := time.AfterFunc(time.Minute, func() { pw.CloseWithError(errors.New("nothing printed within a minute")) })
	line, err := bufio.NewReader(pr).ReadString('\n')
	stop.Stop()
	if err != nil {
		t.Fatalf("yagent ui printed no address: %v\n%s", err, stderr)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line), stderr
}

// TestUIServe: `yagent ui` prints an address on 127.0.0.1 with a token;
// the address lets a browser in, the bare server does not; a non-loopback
// --addr works only because it was named, with a warning.
func TestUIServe(t *testing.T) {
	e := newUIEnv(t)
	url, stderr := e.serve(t)
	m := regexp.MustCompile(`^http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})$`).FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("printed %q; want http://127.0.0.1:PORT/?token=<64 hex>", url)
	}
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("a loopback address warned: %s", stderr)
	}
	base := strings.TrimSuffix(url, "/?token="+m[2])
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / without the token = %s; want 401", resp.Status)
	}
	resp, err = http.Get(url) // follows the redirect, but a client without a jar drops the cookie
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Request.URL.RawQuery != "" {
		t.Errorf("the token URL led to %s %s; want the address without the token (then 401 without a cookie jar)", resp.Request.URL, resp.Status)
	}

	_, stderr = e.serve(t, "--addr", "0.0.0.0:0")
	if !strings.Contains(stderr.String(), "warning: ") || !strings.Contains(stderr.String(), "reachable from other machines") {
		t.Errorf("--addr 0.0.0.0:0 did not warn:\n%s", stderr)
	}
}

// findBrowser returns Debian's chromium (or another Chrome) or skips the
// test, saying how to get one; with YAGENT_REQUIRE_BROWSER=1 (CI sets it
// in .ci/run) a missing browser fails instead.
func findBrowser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("YAGENT_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium on PATH and YAGENT_REQUIRE_BROWSER=1: .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("skipping the browser test: no chromium on PATH (apt-get install chromium; CI sets YAGENT_REQUIRE_BROWSER=1 and never skips)")
	return ""
}

// TestUIBrowser drives a real browser (chromium through chromedp) over
// `yagent ui`: the demo session's timeline has two bars that overlap in
// time (the two parallel sub-agents), each opens its note on a click; a
// batch started while the page is open is followed live over server-sent
// events to its end. The timeline's screenshot is README's picture
// (written to docs/ with -update, else to a temp dir).
func TestUIBrowser(t *testing.T) {
	browser := findBrowser(t)
	e := newUIEnv(t)
	e.run(t, t.Context(), "run", "--replay", filepath.Join(e.repo, "testdata/scenarios/demo.yaml"), "How is this repository laid out, and is WriteNote safe?")
	url, stderr := e.serve(t)
	base := url[:strings.Index(url, "/?token=")]

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.WindowSize(1100, 640),
		// Tests run as root in CI containers, where chromium refuses to
		// start inside its own sandbox; the page it loads is ours.
		chromedp.NoSandbox)
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\nyagent ui stderr:\n%s", what, err, stderr)
		}
	}
	attr := func(sel, name string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.AttributeValue(sel, name))
		if err != nil || !v.Exists {
			t.Fatalf("%s of %s: %v (exists %v)", name, sel, err, v.Exists)
		}
		return v.Value
	}

	// The printed address, then the demo session's timeline.
	do("open the printed address", chromedp.Navigate(url), chromedp.WaitVisible("#sessions"))
	timeline := attr(`tr[data-kind="run"] a.timeline`, "href")
	do("open the timeline", chromedp.Navigate(base+timeline), chromedp.WaitVisible("#timeline"))

	// Two bars overlapping on screen: the parallel sub-agents.
	type box struct {
		Call, Agent, Status, Href string
		X, W                      float64
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[[]box](`[...document.querySelectorAll("rect.bar")].map(r => {
		const b = r.getBoundingClientRect();
		return {Call: r.dataset.call, Agent: r.dataset.agent, Status: r.dataset.status, Href: r.closest("a") ? r.closest("a").getAttribute("href") : "", X: b.left, W: b.width};
	})`))
	if err != nil {
		t.Fatalf("measure the bars: %v", err)
	}
	if len(bars) != 2 {
		t.Fatalf("the demo timeline has %d bars; want 2: %+v", len(bars), bars)
	}
	a, b := bars[0], bars[1]
	if !(a.X < b.X+b.W && b.X < a.X+a.W) || a.W < 2 || b.W < 2 {
		t.Errorf("the two sub-agents' bars do not overlap on screen: %+v", bars)
	}
	shot, err := chromedp.Run(ctx, chromedp.Screenshot("main"))
	if err != nil {
		t.Fatalf("screenshot the timeline: %v", err)
	}
	saveScreenshot(t, shot)

	// A click on each bar opens its note.
	for _, bar := range bars {
		do("click the bar of "+bar.Agent,
			chromedp.Navigate(base+timeline), chromedp.WaitVisible("#timeline"),
			chromedp.Click(`rect.bar[data-call="`+bar.Call+`"]`, chromedp.NodeVisible),
			chromedp.WaitVisible("#frontmatter"))
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		fm, err := chromedp.Run(ctx, chromedp.Text("#frontmatter"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(loc, bar.Href) || bar.Href == "" {
			t.Errorf("the bar of %s led to %s; want its note %s", bar.Agent, loc, bar.Href)
		}
		if !strings.Contains(fm, bar.Agent) || !strings.Contains(fm, "ok") {
			t.Errorf("the note of %s says:\n%s", bar.Agent, fm)
		}
	}

	// A batch started now, followed live to its end.
	batchDone := make(chan int, 1)
	var batchErr testio.Buffer
	go func() {
		f := e.factory(io.Discard, &batchErr)
		defer f.Close()
		batchDone <- execute(t.Context(), f, []string{"batch", "--replay", filepath.Join(e.repo, "webui/testdata/live-batch-scenario.yaml"),
			filepath.Join(e.repo, "webui/testdata/live-batch.yaml")})
	}()
	batchHref := ""
	for start := time.Now(); batchHref == ""; {
		do("look for the batch", chromedp.Navigate(base+"/"), chromedp.WaitVisible("#sessions"))
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('tr[data-kind="batch"] a.batch').length`))
		switch {
		case err != nil:
			t.Fatal(err)
		case n > 0:
			batchHref = attr(`tr[data-kind="batch"] a.batch`, "href")
		case time.Since(start) > 20*time.Second:
			t.Fatalf("the batch session never showed up:\n%s", batchErr.String())
		default:
			time.Sleep(50 * time.Millisecond)
		}
	}
	do("follow the batch", chromedp.Navigate(base+batchHref), chromedp.WaitVisible("#dag"), chromedp.WaitVisible(`body[data-done="true"]`))
	states, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("g.node")].map(g => g.dataset.node + "=" + g.dataset.status)`))
	if err != nil {
		t.Fatal(err)
	}
	seen, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]bool](`window.yagentSeen || {}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(states, " "), "packages=ok deps=ok summary=ok"; got != want {
		t.Errorf("the batch ended as %s; want %s", got, want)
	}
	if !seen["running"] || !seen["ok"] {
		t.Errorf("the page was told of %v; want it to have followed the run (running, then ok)", seen)
	}
	if code := <-batchDone; code != 0 {
		t.Errorf("the batch exited %d:\n%s", code, batchErr.String())
	}
}

// saveScreenshot keeps README's picture: docs/ui-timeline.png with
// -update, a temp dir otherwise (the test never writes the tree unasked).
func saveScreenshot(t *testing.T, png []byte) {
	t.Helper()
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("the screenshot is not a PNG (%d bytes)", len(png))
	}
	path := filepath.Join(t.TempDir(), "ui-timeline.png")
	if updating() {
		path = filepath.Join("..", "..", "docs", "ui-timeline.png")
		if len(png) > 200<<10 {
			t.Fatalf("the screenshot is %d KB; README's picture must stay under 200 KB", len(png)>>10)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d KB)", path, len(png)>>10)
}
