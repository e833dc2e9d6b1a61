package llm_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// A provider replay (testdata/providers/*.txtar) is one tool-calling turn
// against a recorded provider: the recorded first answer (a streamed tool
// call) is served to the real client, the tool result goes back, and the
// second request — what yagent sends back to that provider — is checked.
// The archive's comment cites where the recording comes from.
//
//	-- config --     provider, api and the model's escape hatches (YAML)
//	-- response1 --  the recorded first answer: JSON events, one per line, or SSE
//	-- result --     the tool result sent back for every call
//	-- response2 --  the second answer (optional: a one-request replay)
//	-- refuse --     optional: how the provider refuses a request, one rule per line:
//	                 CONDITION => STATUS BODY, CONDITION one of "has FIELD" (a top-level
//	                 field is present), "FIELD contains TEXT" (its JSON does), "ROLE after
//	                 ROLE" (a message right after another), "ROLE without FIELD" (a message
//	                 lacks the field)
//	-- expect --     checks, one per line:  ROOT.PATH = JSON | ROOT.PATH absent | ROOT.PATH ~ TEXT
//
// Every replay runs twice: with the provider named (models.<name>.provider)
// and without, at a plain local port whose provider nobody can guess, where
// the client adapts from the endpoint's answers (adapt.go). A check
// prefixed "named: " or "unnamed: " holds in that run only; the archive's
// comment says why.
//
// Roots: request1, request2 (the bodies the provider accepted), header1,
// header2 (request headers by name), url1, url2 (the request URI),
// response1, response2 ({"message": …, "finish_reason": …, "usage": …} as
// Stream returned them), error1, error2 (the error text, when the call
// failed), retries1, retries2 (how many retries the call announced),
// refused (how many requests the refuse rules turned away).
type replay struct {
	Provider        string            `yaml:"provider"`
	API             string            `yaml:"api"`
	APIVersion      string            `yaml:"api_version"`
	ReasoningEffort string            `yaml:"reasoning_effort"`
	ExtraBody       map[string]any    `yaml:"extra_body"`
	ExtraHeaders    map[string]string `yaml:"extra_headers"`
	DropParams      []string          `yaml:"drop_params"`
	Tools           []string          `yaml:"tools"`
	MaxRetries      int               `yaml:"max_retries"`
	// Turns 1 makes one Stream call: response2 then answers its retry.
	Turns int `yaml:"turns"`
}

// replayTool is the schema every replay declares its tools with: it has
// what some providers refuse (additionalProperties, a ["string","null"]
// type list), so schema shaping shows in request1.
const replayTool = `{"type":"object","properties":{"location":{"type":"string","description":"The location"},"unit":{"type":["string","null"],"enum":["celsius","fahrenheit",null]}},"required":["location"],"additionalProperties":false}`

const replayTail = "[yagent:transient] Current state, rebuilt for this call only; it is not part of the conversation.\n\n[window] 120000 tokens left"

func TestProviderReplays(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "providers", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no replays under testdata/providers (%v)", err)
	}
	covered := map[string]bool{}
	passed := map[bool]int{}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ar.Comment), "Source:") {
			t.Errorf("%s: the comment must cite the recording (a line with Source:)", f)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		var cfg replay
		if err := yaml.Unmarshal(section(t, ar, "config"), &cfg); err != nil {
			t.Fatalf("%s: config: %v", f, err)
		}
		covered[cfg.Provider] = true
		t.Run(name, func(t *testing.T) {
			for _, named := range []bool{true, false} {
				if t.Run(replayMode(named), func(t *testing.T) { runReplay(t, ar, cfg, named) }) {
					passed[named]++
				}
			}
		})
	}
	// Before the client adapted (adapt.go), 10 of the 19 passed unnamed.
	t.Logf("recorded provider cases passing: %d of %d with the provider named, %d of %d without", passed[true], len(files), passed[false], len(files))
	for _, p := range llm.ProviderNames() {
		if !covered[p] {
			t.Errorf("provider %s has no replay under testdata/providers", p)
		}
	}
}

func section(t *testing.T, ar *txtar.Archive, name string) []byte {
	t.Helper()
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func replayMode(named bool) string {
	if named {
		return "named"
	}
	return "unnamed"
}

func runReplay(t *testing.T, ar *txtar.Archive, cfg replay, named bool) {
	r1, r2 := string(section(t, ar, "response1")), string(section(t, ar, "response2"))
	steps := []llmtest.Step{{ID: "first", Reply: llmtest.Reply{Raw: r1}}}
	if r2 != "" {
		steps = append(steps, llmtest.Step{ID: "second", Reply: llmtest.Reply{Raw: r2}})
	}
	srv := llmtest.New(&llmtest.Scenario{Name: t.Name(), Steps: steps}, llmtest.WithLogf(t.Logf))
	t.Cleanup(srv.Close)
	base, refused := srv.URL(), new(atomic.Int64)
	if rules := parseRefusals(t, string(section(t, ar, "refuse"))); len(rules) > 0 {
		base = refusingProxy(t, base, rules, refused)
	}
	provider := cfg.Provider
	if !named {
		provider = ""
	}
	c := newClient(t, base, func(ec *llm.EndpointConfig) {
		ec.Provider, ec.API, ec.APIVersion, ec.ReasoningEffort = provider, cfg.API, cfg.APIVersion, cfg.ReasoningEffort
		ec.ExtraBody, ec.ExtraHeaders, ec.DropParams = cfg.ExtraBody, cfg.ExtraHeaders, cfg.DropParams
		ec.MaxRetries = cfg.MaxRetries
	})
	var tools []llm.ToolDef
	for _, name := range cfg.Tools {
		tools = append(tools, llm.ToolDef{Name: name, Description: "Get the weather in a location.", Parameters: json.RawMessage(replayTool)})
	}
	tail := llm.Message{Role: llm.RoleUser, Content: replayTail, Transient: true}
	history := []llm.Message{
		{Role: llm.RoleSystem, Content: "[agent:director] You are a helpful assistant."},
		{Role: llm.RoleUser, Content: "What is the weather in San Francisco?"},
	}
	if !named && c.Profile().Name != llm.ProviderGeneric {
		t.Fatalf("unnamed run at %s guessed provider %s; want none guessed", base, c.Profile().Name)
	}
	roots := map[string]any{}
	call := func(n int) (llm.Response, bool) {
		var ev events
		msgs := append(slices.Clip(history), tail)
		resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs, Tools: tools, OnEvent: ev.add})
		k := strconv.Itoa(n)
		roots["retries"+k] = float64(len(ev.of(llm.EventRetry)))
		if err != nil {
			roots["error"+k] = err.Error()
		} else {
			checkEventsMatch(t, n, &ev, resp)
			roots["response"+k] = jsonValue(t, struct {
				Message      llm.Message `json:"message"`
				FinishReason string      `json:"finish_reason"`
				Usage        llm.Usage   `json:"usage"`
			}{resp.Message, resp.FinishReason, resp.Usage})
		}
		return resp, err == nil
	}
	resp, ok := call(1)
	if ok && r2 != "" && cfg.Turns != 1 {
		// The answer goes through JSON as the rollout stores it: what is
		// sent back must survive a resume.
		var stored llm.Message
		raw, _ := json.Marshal(resp.Message)
		if err := json.Unmarshal(raw, &stored); err != nil {
			t.Fatal(err)
		}
		history = append(history, stored)
		for _, tc := range stored.ToolCalls {
			history = append(history, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: strings.TrimSpace(string(section(t, ar, "result")))})
		}
		call(2)
	}
	for i, rec := range srv.Requests() {
		k := strconv.Itoa(i + 1)
		roots["request"+k] = jsonValue(t, json.RawMessage(rec.Body))
		roots["url"+k] = rec.URL
		h := map[string]any{}
		for name := range rec.Header {
			h[name] = rec.Header.Get(name)
		}
		roots["header"+k] = h
	}
	roots["refused"] = float64(refused.Load())
	checkExpectations(t, string(section(t, ar, "expect")), roots, named)
}

// refusal is one rule of a replay's refuse section.
type refusal struct {
	field       string // "has FIELD", "FIELD contains TEXT"
	contains    string
	role, after string // "ROLE after ROLE"
	lacks       string // "ROLE without FIELD"
	status      int
	body        string
}

func parseRefusals(t *testing.T, text string) []refusal {
	t.Helper()
	var rules []refusal
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cond, answer, ok := strings.Cut(line, " => ")
		status, body, ok2 := strings.Cut(answer, " ")
		code, err := strconv.Atoi(status)
		if !ok || !ok2 || err != nil {
			t.Fatalf("refuse: %q: want CONDITION => STATUS BODY", line)
		}
		r := refusal{status: code, body: body}
		if f, ok := strings.CutPrefix(cond, "has "); ok {
			r.field = f
		} else if f, text, ok := strings.Cut(cond, " contains "); ok {
			r.field, r.contains = f, text
		} else if role, f, ok := strings.Cut(cond, " without "); ok {
			r.role, r.lacks = role, f
		} else if a, b, ok := strings.Cut(cond, " after "); ok {
			r.role, r.after = a, b
		} else {
			t.Fatalf("refuse: %q: want has FIELD, FIELD contains TEXT, ROLE after ROLE or ROLE without FIELD", cond)
		}
		rules = append(rules, r)
	}
	return rules
}

// refusingProxy stands in front of the scripted server at base as the
// provider's request validator: a request a rule matches is answered
// with the rule's status and body and counted, never reaching the server.
func refusingProxy(t *testing.T, base string, rules []refusal, refused *atomic.Int64) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	path := u.Path
	u.Path = ""
	forward := httputil.NewSingleHostReverseProxy(u)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rule := range rules {
			if rule.matches(body) {
				refused.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(rule.status)
				io.WriteString(w, rule.body)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	return proxy.URL + path
}

func (r refusal) matches(body []byte) bool {
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || json.Unmarshal(body, &req) != nil {
		return false
	}
	if r.field != "" {
		raw, ok := fields[r.field]
		return ok && strings.Contains(string(raw), r.contains)
	}
	role := func(i int) string { return strings.Trim(string(req.Messages[i]["role"]), `"`) }
	for i := range req.Messages {
		if _, has := req.Messages[i][r.lacks]; r.lacks != "" && role(i) == r.role && !has {
			return true
		}
		if r.after != "" && i > 0 && role(i) == r.role && role(i-1) == r.after {
			return true
		}
	}
	return false
}

// checkEventsMatch pins, for every replay, that the answer's text is
// exactly what was streamed as text and its reasoning exactly what was
// streamed as reasoning (since the last retry, which voids what came
// before): reasoning never reaches the answer.
func checkEventsMatch(t *testing.T, n int, ev *events, resp llm.Response) {
	t.Helper()
	var text, reasoning strings.Builder
	for _, e := range ev.list() {
		switch e.Kind {
		case llm.EventText:
			text.WriteString(e.Text)
		case llm.EventReasoning:
			reasoning.WriteString(e.Text)
		case llm.EventRetry:
			text.Reset()
			reasoning.Reset()
		}
	}
	if text.String() != resp.Message.Content {
		t.Errorf("request %d: streamed text %q; answer %q", n, text.String(), resp.Message.Content)
	}
	if reasoning.String() != resp.Message.Reasoning {
		t.Errorf("request %d: streamed reasoning %q; kept %q", n, reasoning.String(), resp.Message.Reasoning)
	}
}

func jsonValue(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkExpectations checks every line of expect that holds in this run:
// lines prefixed "named: " or "unnamed: " hold in that run only.
func checkExpectations(t *testing.T, expect string, roots map[string]any, named bool) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(expect))
	sc.Buffer(nil, 1<<20)
	checked := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, replayMode(!named)+": ") {
			continue // a check of the other run
		}
		line = strings.TrimPrefix(line, replayMode(named)+": ")
		checked++
		if err := checkOne(line, roots); err != nil {
			t.Errorf("%s\n\t%v", line, err)
		}
	}
	if checked == 0 {
		t.Error("the replay checks nothing: add lines to its expect section")
	}
}

func checkOne(line string, roots map[string]any) error {
	path, op, arg := line, "", ""
	for _, o := range []string{" = ", " ~ "} {
		if p, a, ok := strings.Cut(line, o); ok {
			path, op, arg = p, strings.TrimSpace(o), a
			break
		}
	}
	if op == "" {
		p, ok := strings.CutSuffix(line, " absent")
		if !ok {
			return fmt.Errorf("bad expectation: want PATH = JSON, PATH ~ TEXT or PATH absent")
		}
		path, op = p, "absent"
	}
	got, found := lookupPath(roots, path)
	switch op {
	case "absent":
		if found {
			return fmt.Errorf("present: %s", show(got))
		}
	case "=":
		var want any
		if err := json.Unmarshal([]byte(arg), &want); err != nil {
			return fmt.Errorf("expected value is not JSON: %v", err)
		}
		if !found {
			return fmt.Errorf("absent")
		}
		if show(got) != show(want) {
			return fmt.Errorf("got %s", show(got))
		}
	case "~":
		s, ok := got.(string)
		if !found || !ok || !strings.Contains(s, arg) {
			return fmt.Errorf("got %s", show(got))
		}
	}
	return nil
}

// lookupPath walks dot-separated keys and array indexes. A header name may
// contain dots no more than a JSON key may.
func lookupPath(roots map[string]any, path string) (any, bool) {
	var cur any = roots
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func show(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
