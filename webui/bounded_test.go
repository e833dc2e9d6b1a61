package webui

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"hash"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/yagent/yagent/memory"
)

// hugeLen is the length of the message TestTranscriptBounded plants.
const hugeLen = 100 << 20

// hugeChunk is one piece of the huge message, as written in the rollout
// (JSON-escaped) and as decoded.
const (
	hugeChunkJSON = `0123456789 \"abcdef\" <ghi> \u00e9\n`
	hugeChunkText = "0123456789 \"abcdef\" <ghi> é\n"
)

// smallLen is the length of the baseline's message: over the page's cut
// (64 KiB), so its page has the same parts as the huge one's.
const smallLen = 100 << 10

// plantHuge appends to a closed session's rollout a tool result of about
// size bytes, written in pieces (the test never holds it), and returns
// the SHA-256 of its decoded text and its length.
func plantHuge(t *testing.T, rollout string, size int64) (sum []byte, n int64) {
	t.Helper()
	f, err := os.OpenFile(rollout, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	h := sha256.New()
	fmt.Fprint(w, `{"type":"message","ts":"2026-11-29T10:00:09Z","message":{"role":"tool","tool_call_id":"call_x","content":"`)
	for n < size {
		w.WriteString(hugeChunkJSON)
		h.Write([]byte(hugeChunkText))
		n += int64(len(hugeChunkText))
	}
	w.WriteString("THE END\"}}\n")
	h.Write([]byte("THE END"))
	n += int64(len("THE END"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return h.Sum(nil), n
}

// sink is a ResponseWriter that keeps nothing but a count, a hash and
// the first bytes of the body.
type sink struct {
	header http.Header
	status int
	n      int64
	h      hash.Hash
	head   []byte
}

func newSink() *sink { return &sink{header: http.Header{}, h: sha256.New()} }

func (s *sink) Header() http.Header { return s.header }
func (s *sink) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}
func (s *sink) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	s.n += int64(len(b))
	s.h.Write(b)
	if len(s.head) < 1<<20 {
		s.head = append(s.head, b[:min(len(b), 1<<20-len(s.head))]...)
	}
	return len(b), nil
}

// serve runs one request through the guarded handler, as a browser holding
// the cookie, and returns what it answered and the bytes the process
// allocated meanwhile.
func serve(t *testing.T, h http.Handler, path string) (*sink, uint64) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "localhost"
	req.AddCookie(&http.Cookie{Name: "yagent_ui", Value: testToken})
	out := newSink()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.ServeHTTP(out, req)
	runtime.ReadMemStats(&after)
	return out, after.TotalAlloc - before.TotalAlloc
}

// TestTranscriptBounded pins that a page's cost does not grow with what a
// model wrote: a session holding a 100 MB message renders in well under a
// megabyte, the message cut at 64 KiB with a link, and allocates at most
// 8 MiB more than the same page of a session whose message is 100 KiB
// (the baseline, measured in the same run: what a page costs besides the
// message is not this test's; before the cut, 475 MB); the link answers
// the whole text, as plain text with nosniff, streamed (at most 8 MiB more
// than the baseline's link), behind the same guard as every page.
func TestTranscriptBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB rollout")
	}
	fx := newFixture(t)
	s, err := fx.st.Create(t.Context(), memory.CreateOptions{Kind: memory.KindRun, Cwd: "/w", Model: "m", Title: "huge"})
	if err != nil {
		t.Fatal(err)
	}
	id, rollout := s.ID(), s.Info().Rollout
	s.Close()
	sum, size := plantHuge(t, rollout, hugeLen)
	small, err := fx.st.Create(t.Context(), memory.CreateOptions{Kind: memory.KindRun, Cwd: "/w", Model: "m", Title: "small"})
	if err != nil {
		t.Fatal(err)
	}
	smallID, smallRollout := small.ID(), small.Info().Rollout
	small.Close()
	plantHuge(t, smallRollout, smallLen)
	h := fx.srv.Handler()
	mib := func(n uint64) float64 { return float64(n) / (1 << 20) }

	basePage, baseAlloc := serve(t, h, "/s/"+smallID)
	page, alloc := serve(t, h, "/s/"+id)
	body := string(page.head)
	t.Logf("page: %d bytes, %.1f MiB allocated (%.1f MiB with a %d KiB message)", page.n, mib(alloc), mib(baseAlloc), smallLen>>10)
	if basePage.status != http.StatusOK {
		t.Fatalf("GET /s/%s = %d: %.300s", smallID, basePage.status, basePage.head)
	}
	if page.status != http.StatusOK {
		t.Fatalf("GET /s/%s = %d: %.300s", id, page.status, body)
	}
	if page.n > 256<<10 {
		t.Errorf("the page is %d bytes; want it bounded (64 KiB of the message and the rest of the page)", page.n)
	}
	if alloc > baseAlloc+8<<20 {
		t.Errorf("one request allocated %.1f MiB for a %d MiB message, %.1f MiB for a %d KiB one; want at most 8 MiB more", mib(alloc), hugeLen>>20, mib(baseAlloc), smallLen>>10)
	}
	if !strings.Contains(body, html.EscapeString(hugeChunkText[:20])) || strings.Contains(body, "THE END") {
		t.Errorf("the page does not show the message's beginning, or shows its end")
	}
	m := regexp.MustCompile(`<p class="cut">[^<]*of (\S+ MiB)\. <a href="([^"]+)">`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no link to the whole text on the page:\n%.2000s", body[strings.Index(body, `id="transcript"`):])
	}
	href := html.UnescapeString(m[2])

	baseRaw, baseAlloc := serve(t, h, strings.Replace(href, id, smallID, 1))
	raw, alloc := serve(t, h, href)
	t.Logf("raw: %d bytes, %.1f MiB allocated (%d bytes, %.1f MiB for the small message)", raw.n, mib(alloc), baseRaw.n, mib(baseAlloc))
	if baseRaw.status != http.StatusOK || baseRaw.n < smallLen {
		t.Fatalf("GET %s = %d, %d bytes; want the small message whole", strings.Replace(href, id, smallID, 1), baseRaw.status, baseRaw.n)
	}
	if raw.status != http.StatusOK || raw.n != size || string(raw.h.Sum(nil)) != string(sum) {
		t.Fatalf("GET %s = %d, %d bytes; want 200 and the whole %d bytes, unchanged", href, raw.status, raw.n, size)
	}
	if ct, ns := raw.header.Get("Content-Type"), raw.header.Get("X-Content-Type-Options"); ct != "text/plain; charset=utf-8" || ns != "nosniff" {
		t.Errorf("Content-Type %q, X-Content-Type-Options %q; want plain text, nosniff", ct, ns)
	}
	if alloc > baseAlloc+8<<20 {
		t.Errorf("the whole text allocated %.1f MiB, %.1f MiB for a %d KiB message; want it streamed (at most 8 MiB more)", mib(alloc), mib(baseAlloc), smallLen>>10)
	}

	// The same guard as every page: no cookie, another Host, another Origin.
	for name, mod := range map[string]func(*http.Request){
		"no cookie":    func(r *http.Request) { r.Header.Del("Cookie") },
		"foreign host": func(r *http.Request) { r.Host = "evil.example" },
		"cross origin": func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") },
	} {
		req := httptest.NewRequest(http.MethodGet, href, nil)
		req.Host = "localhost"
		req.AddCookie(&http.Cookie{Name: "yagent_ui", Value: testToken})
		mod(req)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK || strings.Contains(rec.Body.String(), "0123456789") {
			t.Errorf("%s: GET %s = %d; want a refusal showing nothing", name, href, rec.Code)
		}
	}
	for _, bad := range []string{"/s/" + id + "/raw/1", "/s/" + id + "/raw/x", "/s/" + id + "/raw/3?field=message.reasoning", "/s/nope/raw/3"} {
		if out, _ := serve(t, h, bad); out.status != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", bad, out.status)
		}
	}
}
