package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// argPiece is the size of the pieces tool-call arguments are streamed in:
// small and odd, so JSON tokens are split across chunks as real models do.
const argPiece = 7

// write sends the answer, its delay already waited. It stops early when the
// client goes away.
func (s *Server) write(w http.ResponseWriter, r *http.Request, a answer) {
	ctx := r.Context()
	if a.status != http.StatusOK {
		if a.retryAfter > 0 {
			w.Header().Set("Retry-After-Ms", strconv.FormatInt(a.retryAfter.Milliseconds(), 10))
			w.Header().Set("Retry-After", strconv.Itoa(int((a.retryAfter+time.Second-1)/time.Second)))
		}
		writeJSON(w, a.status, a.errBody)
		return
	}
	if !a.stream {
		body := a.body()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		writeBody(w, body, a.cutAfter, a.graceful)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush(w)
	sent := 0
	for i, ev := range a.events() {
		if i > 0 && !wait(ctx, a.chunkDelay) {
			return
		}
		if a.cutAfter >= 0 && sent+len(ev) > a.cutAfter {
			writeBody(w, ev, a.cutAfter-sent, a.graceful)
			return
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		flush(w)
		sent += len(ev)
	}
}

// writeBody writes body, or when cut >= 0 only its first cut bytes, then
// ends the response early (graceful) or drops the connection mid-answer.
func writeBody(w http.ResponseWriter, body []byte, cut int, graceful bool) {
	if cut < 0 {
		_, _ = w.Write(body)
		return
	}
	_, _ = w.Write(body[:min(cut, len(body))])
	flush(w)
	if graceful {
		return
	}
	panic(http.ErrAbortHandler) // net/http closes the connection without ending the body
}

func flush(w http.ResponseWriter) {
	_ = http.NewResponseController(w).Flush()
}

// wait sleeps for d unless ctx ends first; it reports whether it slept.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// events renders the answer as SSE events, in OpenAI's order: role, text
// deltas, tool-call deltas (name first, arguments in pieces), the finish
// reason, the usage chunk when asked for, then [DONE].
func (a *answer) events() [][]byte {
	switch {
	case a.raw != "":
		return a.rawEvents()
	case a.wire == wireResponses:
		return a.responsesEvents()
	}
	var evs [][]byte
	add := func(d delta, finish *string) {
		evs = append(evs, a.event(chunk{Choices: []chunkChoice{{Delta: d, FinishReason: finish}}}))
	}
	empty := ""
	add(delta{Role: "assistant", Content: &empty}, nil)
	for _, piece := range words(a.reasoning) {
		add(delta{ReasoningContent: piece}, nil)
	}
	for _, piece := range words(a.text) {
		add(delta{Content: &piece}, nil)
	}
	for j, tc := range a.calls {
		add(delta{ToolCalls: []toolDelta{{Index: j, ID: tc.ID, Type: "function", Function: fnDelta{Name: tc.Function.Name}}}}, nil)
		for _, piece := range pieces(tc.Function.Arguments, argPiece) {
			add(delta{ToolCalls: []toolDelta{{Index: j, Function: fnDelta{Arguments: piece}}}}, nil)
		}
	}
	finish := a.finish
	add(delta{}, &finish)
	if a.usageChunk {
		u := a.usage
		evs = append(evs, a.event(chunk{Choices: []chunkChoice{}, Usage: &u}))
	}
	return append(evs, []byte("data: [DONE]\n\n"))
}

func (a *answer) event(c chunk) []byte {
	c.ID, c.Object, c.Created, c.Model = a.id, "chat.completion.chunk", a.created, a.model
	var b bytes.Buffer
	b.WriteString("data: ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(c) // ends with a newline
	b.WriteByte('\n')
	return b.Bytes()
}

// rawEvents serves a recorded answer: SSE text as it is, or one JSON event
// per line as data lines (named events on the Responses API). A chat
// stream ends with [DONE] even when the recording does not.
func (a *answer) rawEvents() [][]byte {
	var evs [][]byte
	if strings.Contains(a.raw, "data:") {
		for block := range strings.SplitSeq(strings.ReplaceAll(a.raw, "\r\n", "\n"), "\n\n") {
			if block = strings.TrimSpace(block); block != "" {
				evs = append(evs, []byte(block+"\n\n"))
			}
		}
	} else {
		for line := range strings.SplitSeq(a.raw, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			ev := "data: " + line + "\n\n"
			if a.wire == wireResponses {
				var head struct {
					Type string `json:"type"`
				}
				if json.Unmarshal([]byte(line), &head) == nil && head.Type != "" {
					ev = "event: " + head.Type + "\n" + ev
				}
			}
			evs = append(evs, []byte(ev))
		}
	}
	if a.wire == wireChat && (len(evs) == 0 || !bytes.Contains(evs[len(evs)-1], []byte("[DONE]"))) {
		evs = append(evs, []byte("data: [DONE]\n\n"))
	}
	return evs
}

// body is a non-streamed answer.
func (a *answer) body() []byte {
	switch {
	case a.raw != "":
		return []byte(a.raw)
	case a.wire == wireResponses:
		body, _ := json.Marshal(a.responseObject("completed"))
		return body
	}
	body, _ := json.Marshal(a.completion())
	return body
}

func (a *answer) completion() completion {
	msg := completionMessage{Role: "assistant", ToolCalls: a.calls, ReasoningContent: a.reasoning}
	if a.text != "" || len(a.calls) == 0 {
		text := a.text
		msg.Content = &text
	}
	return completion{
		ID: a.id, Object: "chat.completion", Created: a.created, Model: a.model,
		Choices: []completionChoice{{Message: msg, FinishReason: a.finish}},
		Usage:   a.usage,
	}
}

// words splits text into word-sized deltas, each word with the spaces that
// follow it, so the pieces concatenate back to text.
func words(text string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// pieces splits s into pieces of at most n bytes on rune boundaries.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		cut := min(n, len(s))
		for cut < len(s) && cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			_, cut = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

func newErrorBody(typ, code, msg string) *errorBody {
	var e errorBody
	e.Error.Type, e.Error.Code, e.Error.Message = typ, code, msg
	return &e
}

// faultBody is the error a status fault answers with: the code and message
// a real provider would send for that status, unless the step sets them.
func faultBody(f *Fault) *errorBody {
	typ, code, msg := "invalid_request_error", "", http.StatusText(f.Status)
	switch {
	case f.Status == http.StatusTooManyRequests:
		typ, code, msg = "requests", "rate_limit_exceeded", "Rate limit reached for requests."
	case f.Status == http.StatusUnauthorized:
		code, msg = "invalid_api_key", "Incorrect API key provided."
	case f.Status == http.StatusNotFound:
		code, msg = "model_not_found", "The model does not exist or you do not have access to it."
	case f.Status >= 500:
		typ, code, msg = "server_error", "server_error", "The server had an error while processing your request."
	}
	if f.Code != "" {
		code = f.Code
	}
	if f.Message != "" {
		msg = f.Message
	}
	return newErrorBody(typ, code, fmt.Sprintf("%s (llmtest fault)", msg))
}

// echoRequest is what a careless gateway says back about a request: its
// URL and its headers (but the usual ones: Accept*, Content-*, User-Agent,
// X-Stainless-*, which would push the rest past a one-line message).
func echoRequest(r *http.Request) string {
	parts := []string{r.Method + " " + r.URL.RequestURI()}
	for _, h := range sortedKeys(r.Header) {
		if strings.HasPrefix(h, "Accept") || strings.HasPrefix(h, "Content-") || h == "User-Agent" || strings.HasPrefix(h, "X-Stainless") {
			continue
		}
		parts = append(parts, h+": "+strings.Join(r.Header[h], ", "))
	}
	return strings.Join(parts, "; ")
}

func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeJSON(w, status, newErrorBody(typ, code, msg))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// limit is how many requests the fault spoils; 0 means all of them.
func (f *Fault) limit() int {
	if f.Times == nil {
		return 1
	}
	return *f.Times
}
