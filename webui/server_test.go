package webui

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/memory"
)

// TestPages renders every page of the fixture and checks what it must
// show (structure, not layout).
func TestPages(t *testing.T) {
	fx := newFixture(t)
	c := fx.client(t)
	run, board := fx.run.ID(), fx.run.BoardID()
	cases := []struct {
		name, path string
		want       []string // substrings, in order
		wantNot    []string
	}{
		{"sessions of this directory", "/",
			[]string{`id="sessions"`, `data-session="` + run + `"`, `href="/s/` + run + `/timeline"`, `href="/b/` + board + `"`, `href="/s/` + run + `/notebook"`},
			[]string{fx.other.ID(), `data-kind="subagent"`}},
		{"sessions of every directory", "/?all=1",
			[]string{`data-session="` + fx.other.ID() + `"`, `/other`},
			[]string{`href="/b/` + fx.other.ID() + `"`}}, // no note landed on its board: no link into a 404
		{"a batch session links its batch view", "/?all=1", []string{`href="/s/` + fx.batch.ID() + `/batch"`}, nil},
		{"transcript: calls and results folded", "/s/" + run,
			[]string{`<pre>How is this repo laid out?</pre>`, `I'll split this in <strong>two</strong>.`,
				`<details class="call"><summary>delegate`, `&#34;agent&#34;: &#34;explorer&#34;`,
				`delegation to <b>explorer</b> started`, `<a class="sub" href="/s/`, `delegation to <b>explorer</b> ok → <a href="` + noteURL(board, fx.refA) + `">`,
				`<details class="result"><summary>result of delegate`, `<details class="reasoning"><summary>reasoning</summary><pre>Both notes agree.</pre>`, `The module is <strong>tidy</strong>.`}, nil},
		{"timeline: a bar per delegation", "/s/" + run + "/timeline",
			[]string{`2 delegations`, `1 pair in parallel`, `<a href="` + noteURL(board, fx.refA) + `" class="bar-link"><rect class="bar status-ok" data-call="call_a"`,
				`1200 prompt (200 cached) &#43; 34 completion tokens in 1 requests`, `class="bar status-partial" data-call="call_b"`}, nil},
		{"board: the index the model saw and the notes", "/b/" + board,
			[]string{`<pre id="index" class="index">[board index · board ` + board + `] 3 of 3 notes`, `- ` + fx.refB + ` [partial] Atomic; names unique.`,
				`href="` + noteURL(board, fx.refA) + `"`}, nil},
		{"note: front matter as a table, body from Markdown", noteURL(board, fx.refA),
			[]string{`id="frontmatter"`, `<th>status</th><td><span class="status status-ok">ok</span>`, `<th>conclusion</th><td>Six packages, cmd is thin.</td>`,
				`<li>module github.com/yagent/yagent</li>`, `<h1>Package map</h1>`, `<li>cmd/yagent — thin</li>`},
			[]string{`<script>alert`}},
		{"note: a person's own front matter keys", noteURL(board, "person/20261129T100000Z_abcd-1-000001"),
			[]string{`<th>tags</th><td>[&#34;release&#34;,&#34;v1&#34;]</td>`, `<th>owner</th><td>alice</td>`}, nil},
		{"note: reason and links", noteURL(board, fx.refB),
			[]string{`<th>reason</th><td>ran out of steps</td>`, `<th>supersedes</th><td>` + fx.refA + `</td>`, `<a href="https://example.com">link</a>`}, nil},
		{"note: the sub-agent session holding its history", noteURL(board, fx.refA), []string{`<th>session</th><td>` + fx.subA + `</td>`}, nil},
		{"transcript: the session's cost, from the budget ledger", "/s/" + run, []string{` · cost $0.0123</p>`}, nil},
		{"note: the delegation's usage and cost", noteURL(board, fx.refA),
			[]string{`<th>usage</th><td>1 requests · prompt 1200 (cached 200) · completion 34 · $0.0042</td>`}, nil},
		{"notebook and its archive", "/s/" + run + "/notebook",
			[]string{`id="notebook"`, `<h2>goal</h2>`, `Ship <strong>v1</strong>.`, `id="archive"`, `old-goal — the goal before`, `Ship v0.`}, nil},
		{"batch: the plan's DAG with each delegation's state", "/s/" + fx.batch.ID() + "/batch",
			[]string{`data-events="/s/` + fx.batch.ID() + `/batch/events"`, `running — live`, `<path class="edge"`,
				`<g class="node status-ok" data-node="packages"`, `<g class="node status-running" data-node="deps"`, `<g class="node status-pending" data-node="summary"`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, c, fx.ts.URL+tc.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d:\n%s", tc.path, code, body)
			}
			rest := body
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("GET %s: missing (or out of order) %q in:\n%s", tc.path, w, body)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.wantNot {
				if strings.Contains(body, w) {
					t.Errorf("GET %s: has %q; it must not", tc.path, w)
				}
			}
		})
	}
	// Two edges run into summary, one from each dependency.
	_, body := get(t, c, fx.ts.URL+"/s/"+fx.batch.ID()+"/batch")
	if n := strings.Count(body, `<path class="edge"`); n != 2 {
		t.Errorf("batch DAG has %d edges; want 2 (packages→summary, deps→summary)", n)
	}
}

// TestNotFound: a URL naming an unknown session, board or note is a 404
// page that says what was not found and links back.
func TestNotFound(t *testing.T) {
	fx := newFixture(t)
	c := fx.client(t)
	board := fx.run.BoardID()
	for _, tc := range []struct{ path, want string }{
		{"/s/nosuch", `session nosuch: no such session`},
		{"/s/nosuch/timeline", `no such session`},
		{"/s/nosuch/notebook", `no such session`},
		{"/s/nosuch/batch", `no such session`},
		{"/s/nosuch/batch/events", `no such session`},
		{"/s/" + fx.run.ID() + "/batch", `is a run session, not a batch run`},
		{"/b/nosuch", `board nosuch: no such board &#34;nosuch&#34; (no note has landed on it)`},
		{"/b/..%2Fetc", `invalid board id`},
		{"/b/" + board + "/n/explorer/20000101T000000Z_abcd-1-000001", `no such note on this board`},
		{"/b/" + board + "/n/explorer/not-a-stem", `bad note ref`},
		{"/b/nosuch/n/explorer/20000101T000000Z_abcd-1-000001", `no such board`},
		{"/nothing/here", `There is no page at /nothing/here`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, body := get(t, c, fx.ts.URL+tc.path)
			if code != http.StatusNotFound {
				t.Fatalf("GET %s = %d; want 404\n%s", tc.path, code, body)
			}
			if !strings.Contains(body, tc.want) {
				t.Errorf("GET %s: the page does not say %q:\n%s", tc.path, tc.want, body)
			}
			if !strings.Contains(body, `<a id="back" href="/">Back to the sessions</a>`) {
				t.Errorf("GET %s: no link back:\n%s", tc.path, body)
			}
		})
	}
}

// TestGuard: the token in the URL once sets a cookie (and leaves the
// address); without either nothing is shown; a foreign Host or Origin is
// refused even with the cookie (DNS rebinding); only GET and HEAD.
func TestGuard(t *testing.T) {
	fx := newFixture(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	port := fx.ts.Listener.Addr().String()[strings.LastIndex(fx.ts.Listener.Addr().String(), ":")+1:]
	cookie := &http.Cookie{Name: "yagent_ui_" + port, Value: testToken}
	fx.srv.o.Hosts = []string{"yagent-box.lan"}

	// The token: 303 to the same page without it, and the cookie.
	resp, err := noRedirect.Get(fx.ts.URL + "/s/" + fx.run.ID() + "?token=" + testToken + "&x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/s/"+fx.run.ID()+"?x=1" {
		t.Errorf("token URL = %s, Location %q; want 303 to /s/%s?x=1", resp.Status, resp.Header.Get("Location"), fx.run.ID())
	}
	checkSecurityHeaders(t, resp.Header)
	cs := resp.Cookies()
	if len(cs) != 1 || cs[0].Name != cookie.Name || cs[0].Value != testToken || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteLaxMode {
		t.Errorf("token URL set cookies %+v; want one HttpOnly SameSite=Lax %s", cs, cookie.Name)
	}

	for _, tc := range []struct {
		name   string
		method string
		path   string
		host   string
		origin string
		cookie *http.Cookie
		want   int
		says   string
	}{
		{name: "no token, no cookie", path: "/", want: 401, says: "Open the address yagent ui printed"},
		{name: "wrong token", path: "/?token=nope", want: 403, says: "not this server"},
		{name: "wrong cookie", path: "/", cookie: &http.Cookie{Name: cookie.Name, Value: "nope"}, want: 401},
		{name: "another server's cookie", path: "/", cookie: &http.Cookie{Name: "yagent_ui_1", Value: testToken}, want: 401},
		{name: "cookie", path: "/", cookie: cookie, want: 200},
		{name: "cookie, event stream", path: "/s/" + fx.batch.ID() + "/batch", cookie: cookie, want: 200},
		{name: "localhost Host", path: "/", host: "localhost:" + port, cookie: cookie, want: 200},
		{name: "foreign Host", path: "/", host: "evil.example:" + port, cookie: cookie, want: 403, says: "DNS-rebinding guard"},
		// Names that only look like localhost are someone else's (a
		// rebinding attacker's page would carry exactly such a Host).
		{name: "look-alike localhost.evil.example", path: "/", host: "localhost.evil.example:" + port, cookie: cookie, want: 403, says: "DNS-rebinding guard"},
		{name: "look-alike localhostx", path: "/", host: "localhostx:" + port, cookie: cookie, want: 403},
		{name: "look-alike evil-localhost", path: "/", host: "evil-localhost:" + port, cookie: cookie, want: 403},
		{name: "look-alike evillocalhost", path: "/", host: "evillocalhost:" + port, cookie: cookie, want: 403},
		{name: "look-alike localhost.evil.", path: "/", host: "localhost.evil.:" + port, cookie: cookie, want: 403},
		{name: "look-alike x.localhost.evil.example", path: "/", host: "x.localhost.evil.example:" + port, cookie: cookie, want: 403},
		// RFC 6761: localhost and every name under it are this machine.
		{name: "a name under localhost", path: "/", host: "app.localhost:" + port, cookie: cookie, want: 200},
		{name: "LOCALHOST, fully qualified", path: "/", host: "LOCALHOST.:" + port, cookie: cookie, want: 200},
		// Literal addresses: loopback ones are this machine, any other is
		// not (only the one the request came in on: TestGuardLiteralAddress).
		{name: "another loopback address", path: "/", host: "127.0.0.2:" + port, cookie: cookie, want: 200},
		{name: "IPv6 loopback", path: "/", host: "[::1]:" + port, cookie: cookie, want: 200},
		{name: "IPv4-mapped loopback", path: "/", host: "[::ffff:127.0.0.1]:" + port, cookie: cookie, want: 200},
		{name: "a private address", path: "/", host: "10.1.2.3:" + port, cookie: cookie, want: 403, says: "DNS-rebinding guard"},
		{name: "a LAN address", path: "/", host: "192.168.1.2:" + port, cookie: cookie, want: 403},
		{name: "a public address", path: "/", host: "203.0.113.7", cookie: cookie, want: 403},
		{name: "the unspecified address", path: "/", host: "0.0.0.0:" + port, cookie: cookie, want: 403},
		{name: "the IPv6 unspecified address", path: "/", host: "[::]:" + port, cookie: cookie, want: 403},
		{name: "an IPv4-mapped foreign address", path: "/", host: "[::ffff:10.1.2.3]:" + port, cookie: cookie, want: 403},
		{name: "an IPv6 address", path: "/", host: "[2001:db8::1]:" + port, cookie: cookie, want: 403},
		{name: "a host named in --addr", path: "/", host: "yagent-box.lan:" + port, cookie: cookie, want: 200},
		{name: "the literal address it came in on", path: "/", host: fx.ts.Listener.Addr().String(), cookie: cookie, want: 200},
		{name: "foreign Host with the token", path: "/?token=" + testToken, host: "evil.example", want: 403, says: "DNS-rebinding guard"},
		{name: "own Origin", path: "/", origin: fx.ts.URL, cookie: cookie, want: 200},
		{name: "foreign Origin", path: "/", origin: "http://evil.example", cookie: cookie, want: 403, says: "Origin"},
		{name: "null Origin", path: "/", origin: "null", cookie: cookie, want: 403},
		{name: "POST", method: "POST", path: "/", cookie: cookie, want: 405, says: "read-only"},
		{name: "HEAD", method: "HEAD", path: "/", cookie: cookie, want: 200},
		{name: "static assets need the cookie too", path: "/static/app.js", want: 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = "GET"
			}
			req, _ := http.NewRequestWithContext(t.Context(), method, fx.ts.URL+tc.path, nil)
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.cookie != nil {
				req.AddCookie(tc.cookie)
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b strings.Builder
			bufio.NewReader(resp.Body).WriteTo(&b)
			if resp.StatusCode != tc.want {
				t.Fatalf("%s %s = %d; want %d\n%s", method, tc.path, resp.StatusCode, tc.want, b.String())
			}
			if tc.says != "" && !strings.Contains(b.String(), tc.says) {
				t.Errorf("%s %s: the page does not say %q:\n%s", method, tc.path, tc.says, b.String())
			}
			checkSecurityHeaders(t, resp.Header)
			if tc.want == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q; want GET, HEAD", resp.Header.Get("Allow"))
			}
			if tc.want != 200 && strings.Contains(b.String(), fx.run.ID()) {
				t.Errorf("a refused request saw a session id:\n%s", b.String())
			}
		})
	}
}

// checkSecurityHeaders: every answer of the view — a page, a refusal, a
// redirect — carries the same headers: a strict Content-Security-Policy
// (nothing inline, no framing, no foreign connections), no MIME sniffing,
// no Referer (the address may carry the token), no framing for browsers
// without CSP, and nothing kept in caches.
func checkSecurityHeaders(t *testing.T, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("Content-Security-Policy = %q; want %s", csp, d)
		}
	}
	if strings.Contains(csp, "unsafe-") {
		t.Errorf("Content-Security-Policy = %q allows unsafe code", csp)
	}
	for k, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
		"Cache-Control":          "no-store",
	} {
		if got := h.Values(k); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %q; want %q", k, got, want)
		}
	}
}

// TestGuardLiteralAddress: a server reachable at an address other than
// loopback (--addr 0.0.0.0 or a LAN address) accepts as Host the literal
// address the request came in on — it cannot be rebound — and no other
// literal address.
func TestGuardLiteralAddress(t *testing.T) {
	fx := newFixture(t)
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}
	cookie := &http.Cookie{Name: "yagent_ui_8080", Value: testToken}
	for _, tc := range []struct {
		host string
		want int
	}{
		{"192.0.2.10:8080", 200},
		{"192.0.2.10", 200},
		{"[::ffff:192.0.2.10]:8080", 200},
		{"192.0.2.11:8080", 403},
		{"10.1.2.3:8080", 403},
		{"[2001:db8::10]:8080", 403},
		{"localhost:8080", 200},
		{"evil.example:8080", 403},
	} {
		req := httptest.NewRequestWithContext(context.WithValue(t.Context(), http.LocalAddrContextKey, net.Addr(local)), "GET", "/", nil)
		req.Host = tc.host
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		fx.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Host %s on %s = %d; want %d\n%s", tc.host, local, rec.Code, tc.want, rec.Body)
		}
		checkSecurityHeaders(t, rec.Header())
	}
}

// TestGuardEmptyHostAndToken: an empty Host is never this machine, not
// even when a host named in --addr is empty (--addr :8080 names none);
// and a server without a token lets nobody in, not even a browser whose
// cookie is empty too.
func TestGuardEmptyHostAndToken(t *testing.T) {
	fx := newFixture(t)
	port := fx.ts.Listener.Addr().String()[strings.LastIndex(fx.ts.Listener.Addr().String(), ":")+1:]
	fx.srv.o.Hosts = []string{""}
	raw := func(t *testing.T, req string) string {
		t.Helper()
		conn, err := net.DialTimeout("tcp", fx.ts.Listener.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(conn)
		return string(b)
	}
	if got := raw(t, "GET / HTTP/1.1\r\nHost: \r\nCookie: yagent_ui_"+port+"="+testToken+"\r\nConnection: close\r\n\r\n"); !strings.HasPrefix(got, "HTTP/1.1 403 ") {
		t.Errorf("an empty Host with the cookie got:\n%s", got)
	}
	if got := raw(t, "GET / HTTP/1.0\r\nCookie: yagent_ui_"+port+"="+testToken+"\r\n\r\n"); !strings.HasPrefix(got, "HTTP/1.0 403 ") {
		t.Errorf("no Host (HTTP/1.0) with the cookie got:\n%s", got)
	}

	fx.srv.o.Hosts = nil
	fx.srv.o.Token = ""
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []*http.Cookie{nil, {Name: "yagent_ui_" + port, Value: ""}, {Name: "yagent_ui_" + port, Value: testToken}} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", fx.ts.URL+"/", nil)
		if c != nil {
			req.AddCookie(c)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a server without a token answered cookie %v with %s; want 401", c, resp.Status)
		}
	}
	for _, tok := range []string{testToken, "x"} {
		resp, err := noRedirect.Get(fx.ts.URL + "/?token=" + tok)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
			t.Errorf("a server without a token answered ?token=%s with %s and cookies %v; want 403, none", tok, resp.Status, resp.Cookies())
		}
	}
}

// TestBatchEvents follows a batch over server-sent events while the run
// goes on: the state changes arrive as they are recorded, the stream ends
// once every delegation has ended, and skipped dependants count as ended.
func TestBatchEvents(t *testing.T) {
	fx := newFixture(t)
	c := fx.client(t)
	resp, err := c.Get(fx.ts.URL + "/s/" + fx.batch.ID() + "/batch/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	events := make(chan stateMsg)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m stateMsg
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Errorf("bad event %q: %v", data, err)
				}
				events <- m
			}
		}
	}()
	next := func() stateMsg {
		t.Helper()
		select {
		case m, ok := <-events:
			if !ok {
				t.Fatal("the stream ended early")
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no event in 10s")
		}
		return stateMsg{}
	}
	statuses := func(m stateMsg) string {
		var s []string
		for _, n := range m.Nodes {
			s = append(s, n.ID+"="+n.Status)
		}
		return strings.Join(s, " ")
	}
	if got, want := statuses(next()), "packages=ok deps=running summary=pending"; got != want {
		t.Fatalf("first event: %s; want %s", got, want)
	}
	// deps fails: summary depends on it, so it is skipped and the run is over.
	if err := fx.batch.DelegationFinished(event.DelegationEvent{CallID: "deps", Agent: "explorer", Status: string(blackboard.StatusError)}); err != nil {
		t.Fatal(err)
	}
	m := next()
	if got, want := statuses(m), "packages=ok deps=error summary=skipped"; got != want || !m.Done {
		t.Fatalf("after deps failed: %s (done %v); want %s, done", got, m.Done, want)
	}
	if _, ok := <-events; ok {
		t.Error("the stream went on after the run was done")
	}
	// A finished batch page follows nothing.
	_, body := get(t, c, fx.ts.URL+"/s/"+fx.batch.ID()+"/batch")
	if strings.Contains(body, "data-events=") || !strings.Contains(body, `<span id="live">finished</span>`) {
		t.Errorf("a finished batch page still follows events:\n%s", body)
	}
}

// TestBatchProcessGone: a batch whose process is gone is done; what never
// started is not_started, what was running abandoned.
func TestBatchProcessGone(t *testing.T) {
	fx := newFixture(t)
	in := fx.batch.Info()
	// Let the session go; the lock file still names this process, so name
	// a dead one.
	fx.batch.Close()
	mkfile(t, memory.LockPath(in.Rollout), `{"pid": 2147483646, "since": "2026-11-29T10:00:00Z"}`)
	_, p, err := planOf(in)
	if err != nil {
		t.Fatal(err)
	}
	d, err := fx.srv.batchState(t.Context(), in, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range d.Nodes {
		got = append(got, n.ID+"="+n.Status)
	}
	if want := "packages=ok deps=abandoned summary=not_started"; strings.Join(got, " ") != want || !d.Done {
		t.Errorf("batch of a dead process: %v (done %v); want %s, done", got, d.Done, want)
	}
}

// TestTimelineParallelBars: two delegations that overlap in time get bars
// that overlap horizontally, in start order, one row each; a running one
// reaches now.
func TestTimelineParallelBars(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	item := func(typ event.Type, ms int, call, status string) memory.Item {
		return memory.Item{Event: event.Event{Type: typ, Time: at(ms), Delegation: &event.DelegationEvent{CallID: call, Agent: "a-" + call, Status: status, Ref: "x/20261129T100000Z_abcd-1-00000" + call[len(call)-1:]}}}
	}
	ro := &memory.Rollout{Meta: event.SessionEvent{Created: t0}, Items: []memory.Item{
		item(event.DelegationStarted, 100, "c1", ""),
		item(event.DelegationStarted, 200, "c2", ""),
		item(event.DelegationFinished, 500, "c1", "ok"),
		item(event.DelegationFinished, 900, "c2", "error"),
		item(event.DelegationStarted, 950, "c3", ""),
	}}
	d := buildTimeline(memory.Info{BoardID: "b"}, ro, at(1100))
	if len(d.Bars) != 3 {
		t.Fatalf("%d bars; want 3", len(d.Bars))
	}
	b1, b2, b3 := d.Bars[0], d.Bars[1], d.Bars[2]
	if !(b1.X < b2.X && b2.X < b1.X+b1.W) {
		t.Errorf("bars of parallel delegations do not overlap: [%.1f, %.1f] and [%.1f, %.1f]", b1.X, b1.X+b1.W, b2.X, b2.X+b2.W)
	}
	if b3.X < b2.X+b2.W {
		t.Errorf("a delegation started after the others ended overlaps them: %.1f < %.1f", b3.X, b2.X+b2.W)
	}
	if !b3.Running || !b3.End.Equal(at(1100)) || b3.X+b3.W != tlWidth-tlRight {
		t.Errorf("running bar: %+v; want it to reach now, the right edge", b3)
	}
	if b1.Y >= b2.Y || b2.Y >= b3.Y {
		t.Errorf("rows out of start order: %v %v %v", b1.Y, b2.Y, b3.Y)
	}
	if d.Overlaps != 1 || b1.Status != "ok" || b2.Status != "error" || b1.Href != "/b/b/n/x/20261129T100000Z_abcd-1-000001" {
		t.Errorf("overlaps %d, statuses %s %s, href %s", d.Overlaps, b1.Status, b2.Status, b1.Href)
	}
}

// TestNewToken: 256 random bits, hex, fresh every time.
func TestNewToken(t *testing.T) {
	a, b := NewToken(), NewToken()
	if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" || a == b {
		t.Errorf("NewToken = %q, then %q; want two different 64-digit hex strings", a, b)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0": true, "localhost:8080": true, "[::1]:80": true, "127.1.2.3:9": true, "app.localhost:1": true,
		"0.0.0.0:80": false, ":80": false, "[::]:80": false, "192.168.1.2:80": false, "example.com:80": false, "nonsense": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v; want %v", addr, got, want)
		}
	}
}

// TestStaticAssetsEmbedded: the CSS and the script are served from the
// binary (no build step), with their types.
func TestStaticAssetsEmbedded(t *testing.T) {
	fx := newFixture(t)
	c := fx.client(t)
	for path, re := range map[string]string{"/static/style.css": `rect\.status-ok`, "/static/app.js": `EventSource`} {
		code, body := get(t, c, fx.ts.URL+path)
		if code != 200 || !regexp.MustCompile(re).MatchString(body) {
			t.Errorf("GET %s = %d, %d bytes", path, code, len(body))
		}
	}
}

// FuzzTimeline: whatever a rollout holds (rollouts come from disk and are
// never trusted), the timeline and the batch DAG lay out inside their
// pictures: no bar left of its axis or past the right edge, none thinner
// than the minimum, no panic.
func FuzzTimeline(f *testing.F) {
	// Version 1 and version 2 rollouts.
	f.Add([]byte(`{"type":"session_meta","ts":"2026-11-29T10:00:00Z","meta":{"id":"s","created":"2026-11-29T10:00:00Z"}}
{"type":"delegation_started","ts":"2026-11-29T10:00:01Z","delegation":{"call_id":"a","agent":"x"}}
{"type":"delegation_started","ts":"2026-11-29T10:00:02Z","delegation":{"call_id":"b","agent":"y"}}
{"type":"delegation_finished","ts":"2026-11-29T10:00:00Z","delegation":{"call_id":"b","status":"ok","ref":"y/20261129T100000Z_abcd-1-000001"}}
{"type":"delegation_finished","ts":"2026-11-29T10:00:03Z","delegation":{"call_id":"c","status":"error"}}
`))
	f.Add([]byte(`{"type":"session_meta","time":"2026-11-29T10:00:00Z","agent":"","depth":0,"session":{"id":"s","created":"2026-11-29T10:00:00Z","version":2}}
{"type":"delegation_started","time":"2026-11-29T10:00:01Z","agent":"","depth":0,"delegation":{"call_id":"a","agent":"x"}}
{"type":"delegation_finished","time":"2026-11-29T09:59:00Z","agent":"","depth":0,"delegation":{"call_id":"a","agent":"x","status":"ok"}}
`))
	now := time.Date(2026, 11, 29, 10, 0, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		ro, err := memory.ParseRollout("fuzz", data)
		if err != nil {
			return
		}
		d := buildTimeline(memory.Info{BoardID: "b"}, ro, now)
		for _, b := range d.Bars {
			if b.X < tlLabel-1e-6 || b.X+b.W > tlWidth-tlRight+tlMinBar+1e-6 || b.W < tlMinBar || b.X != b.X {
				t.Fatalf("bar %+v is outside the picture [%v, %v]", b, tlLabel, tlWidth-tlRight)
			}
		}
		bd := batchData{}
		for _, b := range d.Bars {
			bd.Nodes = append(bd.Nodes, node{ID: b.CallID, Deps: []string{b.Agent, b.Ref}})
		}
		bd.layout()
		for _, n := range bd.Nodes {
			if n.X < 0 || n.Y < 0 || n.X+dagNodeW > bd.W+1e-6 || n.Y+dagNodeH > bd.H+1e-6 {
				t.Fatalf("node %+v is outside the DAG's %vx%v", n, bd.W, bd.H)
			}
		}
	})
}

// TestBatchRunningOnWorker: a --queue batch's delegation that River runs
// now shows as running with its worker (read from the queue's job table),
// though the rollout has not recorded its start.
func TestBatchRunningOnWorker(t *testing.T) {
	fx := newFixture(t)
	fx.srv.o.Running = func(_ context.Context, board string) (map[string]string, error) {
		if board != fx.batch.Info().BoardID {
			t.Errorf("read the running jobs of board %s", board)
		}
		return map[string]string{"summary": "db-host:4242"}, nil
	}
	in := fx.batch.Info()
	_, p, err := planOf(in)
	if err != nil {
		t.Fatal(err)
	}
	d, err := fx.srv.batchState(t.Context(), in, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range d.Nodes {
		got = append(got, n.ID+"="+n.Status+onWorker(n.Worker))
	}
	if want := "packages=ok deps=running summary=running on db-host:4242"; strings.Join(got, " ") != want {
		t.Errorf("batch state %v; want %s", got, want)
	}
	_, body := get(t, fx.client(t), fx.ts.URL+"/s/"+in.ID+"/batch")
	if !strings.Contains(body, "running on db-host:4242") {
		t.Errorf("the batch page does not name the worker:\n%s", body)
	}
}

// TestBoardTasks: the board page lists the board's team tasks as `yagent
// board tasks` derives them — title (escaped), state, team, claimant with
// the note that lands for it (linked once landed), depends_on with the
// ones not done marked waiting — read-only and only behind the guard.
func TestBoardTasks(t *testing.T) {
	fx := newFixture(t)
	board := fx.run.BoardID()
	st := fx.board
	post := func(task blackboard.Task) string {
		t.Helper()
		task, err := st.PostTask(board, task)
		if err != nil {
			t.Fatal(err)
		}
		return task.Ref
	}
	claim := func(task, agent string) string {
		t.Helper()
		ref := blackboard.Ref{Agent: agent, Stem: st.NewStem()}.String()
		res, err := st.ClaimTask(board, task, blackboard.Claim{Agent: agent, Session: "s-" + agent, Ref: ref})
		if err != nil || !res.Won {
			t.Fatalf("claim %s: %+v, %v", task, res, err)
		}
		return ref
	}
	t1 := post(blackboard.Task{Title: "Split <the> store", Team: "db"})
	done := claim(t1, "worker")
	r, _ := blackboard.ParseNoteRef(done)
	if _, err := st.WriteNote(board, blackboard.NewNote{Stem: r.Stem, Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "worker", Task: t1, Conclusion: "split"}}); err != nil {
		t.Fatal(err)
	}
	t2 := post(blackboard.Task{Title: "Migrate the rows", Team: "db", DependsOn: []string{t1}})
	held := claim(t2, "coder")
	t3 := post(blackboard.Task{Title: "Drop the old table", Team: "db", DependsOn: []string{t1, t2}})
	post(blackboard.Task{Title: "Review it", Team: "db", Assignee: "reviewer"})

	c := fx.client(t)
	code, body := get(t, c, fx.ts.URL+"/b/"+board)
	if code != http.StatusOK {
		t.Fatalf("GET board = %d:\n%s", code, body)
	}
	want := []string{`<h2>Tasks</h2>`, `id="tasks"`,
		`<tr data-task="` + t1 + `"><td>` + t1 + `</td><td>Split &lt;the&gt; store</td><td><span class="status status-done">done</span></td><td>db</td><td>worker → <a href="` + noteURL(board, done) + `">` + done + `</a></td><td></td></tr>`,
		`<tr data-task="` + t2 + `">`, `Migrate the rows`, `status-claimed">claimed<`, `coder <span class="muted">(its note lands at ` + held + `)</span>`, `<td>` + t1 + `</td>`,
		`<tr data-task="` + t3 + `">`, `Drop the old table`, `status-open">open<`, `<span class="muted">none</span>`, t1 + `, ` + t2 + ` <span class="muted">(waiting)</span>`,
		`Review it`, `<span class="muted">for reviewer</span>`}
	rest := body
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("board page: missing (or out of order) %q in:\n%s", w, body)
		}
		rest = rest[i+len(w):]
	}
	if strings.Contains(body, t1+` <span class="muted">(waiting)`) {
		t.Errorf("a done dependency is marked waiting:\n%s", body)
	}
	// Behind the guard: no cookie, no tasks.
	code, body = get(t, &http.Client{}, fx.ts.URL+"/b/"+board)
	if code != http.StatusUnauthorized || strings.Contains(body, "Migrate the rows") {
		t.Errorf("GET board without the cookie = %d, shows the tasks: %v", code, strings.Contains(body, "Migrate the rows"))
	}
}
