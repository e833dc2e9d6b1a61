package llmtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/llm"
)

// answer is everything decided about one chat request while the lock was
// held; writing it happens without the lock.
type answer struct {
	step       int // -1 when no step answers
	status     int
	errBody    *errorBody
	retryAfter time.Duration
	fault      string
	delay      time.Duration
	chunkDelay time.Duration
	cutAfter   int // body bytes before the answer stops; -1 = never
	graceful   bool
	stream     bool
	usageChunk bool
	id         string
	model      string
	created    int64
	text       string
	calls      []wireToolCall
	finish     string
	usage      wireUsage
	wire       string
	reasoning  string
	raw        string // a recorded answer, served verbatim
	encrypted  bool   // the request asked for reasoning.encrypted_content
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	s.handle(w, r, decodeChatRequest, "a chat completion")
}

func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	s.handle(w, r, decodeResponsesRequest, "a Responses API")
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request, decode func([]byte) (*chatRequest, error), what string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad_body", "llmtest: read request body: "+err.Error())
		return
	}
	req, err := decode(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad_json", "llmtest: request body is not "+what+" request: "+err.Error())
		return
	}
	if !s.awaitAfter(r.Context(), req) {
		return
	}
	a := s.plan(r, req, body)
	if !wait(r.Context(), a.delay) {
		return // the client gave up, or the server is closing
	}
	if a.fault == FaultSlowFirstByte {
		// The client waited out the slow start: this is the step's answer.
		// It is counted before the first byte so the client cannot see the
		// answer before the step is used up.
		s.mu.Lock()
		s.steps[a.step].served++
		s.mu.Unlock()
	}
	s.write(w, r, a)
}

var agentRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[agent:([^\]\s]+)\]`) })

// agentOf reads the agent marker of the first system message.
func agentOf(msgs []llm.Message) string {
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			if sub := agentRe().FindStringSubmatch(m.Content); sub != nil {
				return sub[1]
			}
			return ""
		}
	}
	return ""
}

// plan records the request, picks the step that answers it and renders the
// answer, all under the lock so concurrent requests see steps used up in
// arrival order.
func (s *Server) plan(r *http.Request, req *chatRequest, body []byte) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.reqs) + 1
	msgs := req.messages()
	rec := Recorded{
		N: n, Path: r.URL.Path, URL: r.URL.RequestURI(), Body: body, Agent: agentOf(msgs), Messages: msgs, Tools: req.toolNames(),
		Stream: req.Stream, Time: s.opts.now(), Model: req.Model, Header: r.Header.Clone(),
	}
	a := answer{
		step: -1, status: http.StatusOK, cutAfter: -1, stream: req.Stream,
		usageChunk: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
		id:         fmt.Sprintf("chatcmpl-llmtest-%d", n), model: req.Model, created: rec.Time.Unix(),
		wire: req.wire, encrypted: slices.Contains(req.Include, "reasoning.encrypted_content"),
	}
	if req.wire == wireResponses {
		a.id = fmt.Sprintf("resp_llmtest_%d", n)
	}
	defer func() {
		rec.Status = a.status
		s.reqs = append(s.reqs, rec)
	}()
	if len(s.opts.models) > 0 && !slices.Contains(s.opts.models, req.Model) && !slices.ContainsFunc(s.opts.cards, func(c ModelCard) bool { return c.ID == req.Model }) {
		a.status, a.errBody = http.StatusNotFound, newErrorBody("invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model))
		return a
	}
	a.step = s.match(req, msgs, rec.Agent)
	if a.step < 0 {
		rec.Unmatched = true
		msg := "llmtest: no step matches " + describe(rec)
		a.status, a.errBody = http.StatusBadRequest, newErrorBody("invalid_request_error", "llmtest_no_match", msg)
		if s.opts.replay {
			// A person at a replay typed past its script: say that, not
			// a provider's complaint about parameters.
			a.errBody = newErrorBody("invalid_request_error", ReplayEnded,
				"the scripted replay has no step for this request: its scenario has ended (a scripted model, not a live LLM); to go on, run without --replay with a model configured")
		}
		if s.opts.logf != nil {
			s.opts.logf("%s", msg)
		}
		return a
	}
	st, ss := &s.sc.Steps[a.step], &s.steps[a.step]
	rec.StepID = st.label(a.step)
	s.capture(ss, msgs)
	a.delay, a.chunkDelay = st.Latency, st.ChunkDelay
	if st.Stream != nil && !*st.Stream {
		a.stream = false
	}
	if f := st.Fault; f != nil && (f.limit() == 0 || ss.faulted < f.limit()) {
		ss.faulted++
		a.fault, rec.Fault = f.Kind, f.Kind
		switch f.Kind {
		case FaultStatus:
			a.status, a.errBody, a.retryAfter = f.Status, faultBody(f), f.RetryAfter
			if f.EchoRequest {
				a.errBody.Error.Message += "; the request was " + echoRequest(r)
			}
			return a
		case FaultSlowFirstByte:
			a.delay += f.Delay
		case FaultCutStream:
			a.cutAfter, a.graceful = f.AfterBytes, f.Graceful
		}
	} else {
		ss.served++
	}
	s.render(&a, st, req, rec.Agent, n)
	rec.PromptTokens = a.usage.PromptTokens
	return a
}

// awaitAfter holds a request while the step that would answer it waits
// for its after step (Match.Wait); false when
// the client gave up or the server is closing.
func (s *Server) awaitAfter(ctx context.Context, req *chatRequest) bool {
	msgs := req.messages()
	agent := agentOf(msgs)
	var deadline time.Time
	for {
		s.mu.Lock()
		d := s.held(req, msgs, agent)
		s.mu.Unlock()
		if d == 0 {
			return true
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(d)
		}
		if time.Now().After(deadline) {
			return true // answered (or refused) as it stands
		}
		if !wait(ctx, 10*time.Millisecond) {
			return false
		}
	}
}

// held is the Wait of a step that would answer the request but for its
// unanswered after step, and comes (in file order) before any step that
// answers it now; 0 if none.
func (s *Server) held(req *chatRequest, msgs []llm.Message, agent string) time.Duration {
	now := s.match(req, msgs, agent)
	if now < 0 {
		now = len(s.sc.Steps)
	}
	for i := range now {
		st := &s.sc.Steps[i]
		if st.Match.Wait <= 0 || st.Match.After == "" || s.served(st.Match.After) {
			continue
		}
		if lim := st.limit(); lim > 0 && s.steps[i].served >= lim {
			continue
		}
		m := st.Match
		m.After = ""
		if s.accepts(&m, req, msgs, agent) {
			return st.Match.Wait
		}
	}
	return 0
}

// match returns the first step, in file order, that is not used up and
// whose matchers all accept the request; -1 if none.
func (s *Server) match(req *chatRequest, msgs []llm.Message, agent string) int {
	for i := range s.sc.Steps {
		st := &s.sc.Steps[i]
		if lim := st.limit(); lim > 0 && s.steps[i].served >= lim {
			continue
		}
		if s.accepts(&st.Match, req, msgs, agent) {
			return i
		}
	}
	return -1
}

// TailPrefix starts yagent's transient tail, the state message appended
// after the history of every request. last_role and last_contains look past
// it, at the last message of the conversation itself; contains and capture
// see it like any other message.
const TailPrefix = "[yagent:transient]"

// ReplayEnded is the error code a replay (WithReplay) answers a request
// no step matches with: the person went past the script.
const ReplayEnded = "replay_ended"

func (s *Server) accepts(m *Match, req *chatRequest, msgs []llm.Message, agent string) bool {
	var last llm.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.RoleAssistant && strings.HasPrefix(msgs[i].Content, TailPrefix) {
			continue
		}
		last = msgs[i]
		break
	}
	switch {
	case m.Agent != "" && m.Agent != agent,
		m.Contains != "" && !anyContains(msgs, m.Contains),
		m.NotContains != "" && anyContains(msgs, m.NotContains),
		m.LastContains != "" && !strings.Contains(last.Content, m.LastContains),
		m.LastRole != "" && string(last.Role) != m.LastRole,
		m.HasTool != "" && !slices.Contains(req.toolNames(), m.HasTool),
		m.After != "" && !s.served(m.After):
		return false
	}
	return true
}

func (s *Server) served(id string) bool {
	for i := range s.sc.Steps {
		if s.sc.Steps[i].ID == id {
			return s.steps[i].served > 0
		}
	}
	return false
}

func anyContains(msgs []llm.Message, sub string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, sub) {
			return true
		}
		for _, tc := range m.ToolCalls {
			if strings.Contains(tc.Arguments, sub) {
				return true
			}
		}
	}
	return false
}

// capture runs the step's regexps over the messages, newest first; the
// latest match wins. A regexp with a group captures its first group.
func (s *Server) capture(ss *stepState, msgs []llm.Message) {
	for _, c := range ss.captures {
	search:
		for i := len(msgs) - 1; i >= 0; i-- {
			texts := []string{msgs[i].Content}
			for _, tc := range msgs[i].ToolCalls {
				texts = append(texts, tc.Arguments)
			}
			for j := len(texts) - 1; j >= 0; j-- {
				all := c.re.FindAllStringSubmatch(texts[j], -1)
				if len(all) == 0 {
					continue
				}
				m := all[len(all)-1]
				v := m[0]
				if len(m) > 1 {
					v = m[1]
				}
				s.captured[c.name] = v
				break search
			}
		}
	}
}

// subst replaces ${name} with captured values; unknown names stay as they
// are, so a missing capture shows in the answer.
func (s *Server) subst(text string) string {
	if !strings.Contains(text, "${") {
		return text
	}
	return refRe().ReplaceAllStringFunc(text, func(ref string) string {
		if v, ok := s.captured[ref[2:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}

func (s *Server) render(a *answer, st *Step, req *chatRequest, agent string, n int) {
	a.raw = st.Reply.Raw
	a.text = s.subst(st.Reply.Text)
	a.reasoning = s.subst(st.Reply.Reasoning)
	replyBytes := len(a.text) + len(a.reasoning) + len(a.raw)
	for j, tc := range st.Reply.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", n, j)
		}
		args := "{}"
		switch {
		case tc.ArgumentsRaw != nil:
			args = s.subst(*tc.ArgumentsRaw)
		case tc.Arguments.Kind != 0:
			args, _ = nodeJSON(&tc.Arguments, s.subst) // validated by Parse
		}
		a.calls = append(a.calls, wireToolCall{ID: id, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: args}})
		replyBytes += len(tc.Name) + len(args)
	}
	a.finish = st.Reply.FinishReason
	if a.finish == "" {
		a.finish = "stop"
		if len(a.calls) > 0 {
			a.finish = "tool_calls"
		}
	}
	a.usage = s.usage(st.Usage, req, agent, replyBytes)
	if a.reasoning != "" {
		a.usage.CompletionTokensDetails = &struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		}{(len(a.reasoning) + 3) / 4}
	}
}
