package webui

import (
	"bufio"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
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
			[]string{`<th>reason</th><td>ran out of steps</td>`, `<a href="https://example.com">link</a>`}, nil},
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
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("Content-Security-Policy = %q", csp)
			}
			if tc.want != 200 && strings.Contains(b.String(), fx.run.ID()) {
				t.Errorf("a refused request saw a session id:\n%s", b.String())
			}
		})
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
	if err := fx.batch.DelegationFinished(memory.DelegationItem{CallID: "deps", Agent: "explorer", Status: string(blackboard.StatusError)}); err != nil {
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
	d, err := fx.srv.batchState(in, p, nil)
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
	item := func(typ string, ms int, call, status string) memory.Item {
		return memory.Item{Type: typ, Time: at(ms), Delegation: &memory.DelegationItem{CallID: call, Agent: "a-" + call, Status: status, Ref: "x/20261129T100000Z_abcd-1-00000" + call[len(call)-1:]}}
	}
	ro := &memory.Rollout{Meta: memory.SessionMeta{Created: t0}, Items: []memory.Item{
		item(memory.ItemDelegationStarted, 100, "c1", ""),
		item(memory.ItemDelegationStarted, 200, "c2", ""),
		item(memory.ItemDelegationFinished, 500, "c1", "ok"),
		item(memory.ItemDelegationFinished, 900, "c2", "error"),
		item(memory.ItemDelegationStarted, 950, "c3", ""),
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
	f.Add([]byte(`{"type":"session_meta","ts":"2026-11-29T10:00:00Z","meta":{"id":"s","created":"2026-11-29T10:00:00Z"}}
{"type":"delegation_started","ts":"2026-11-29T10:00:01Z","delegation":{"call_id":"a","agent":"x"}}
{"type":"delegation_started","ts":"2026-11-29T10:00:02Z","delegation":{"call_id":"b","agent":"y"}}
{"type":"delegation_finished","ts":"2026-11-29T10:00:00Z","delegation":{"call_id":"b","status":"ok","ref":"y/20261129T100000Z_abcd-1-000001"}}
{"type":"delegation_finished","ts":"2026-11-29T10:00:03Z","delegation":{"call_id":"c","status":"error"}}
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
