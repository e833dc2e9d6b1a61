package llmtest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// problem is one validation failure at a path into the YAML document, such
// as []any{"steps", 2, "fault", "kind"}.
type problem struct {
	path []any
	msg  string
}

func (p problem) format(root *yaml.Node) string {
	at := pathString(p.path)
	if line := lineOf(root, p.path); line > 0 {
		return fmt.Sprintf("line %d: %s: %s", line, at, p.msg)
	}
	return at + ": " + p.msg
}

var (
	identRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	refRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}`) })
	roles    = []string{"system", "user", "assistant", "tool"}
	finishes = []string{"stop", "length", "tool_calls", "content_filter", "function_call", "error"}
	kinds    = []string{FaultStatus, FaultSlowFirstByte, FaultCutStream}
)

// validate reports every problem of sc, in document order.
func (sc *Scenario) validate() []problem {
	var ps []problem
	add := func(msg string, path ...any) { ps = append(ps, problem{path, msg}) }
	if len(sc.Steps) == 0 {
		add("no steps: a scenario needs at least one", "steps")
	}
	ids := map[string]int{}
	captured := map[string]bool{}
	for i, st := range sc.Steps {
		if st.ID == "" {
			continue
		}
		if j, dup := ids[st.ID]; dup {
			add(fmt.Sprintf("duplicate id %q (first used by steps[%d])", st.ID, j), "steps", i, "id")
			continue
		}
		ids[st.ID] = i
	}
	for _, st := range sc.Steps {
		for name := range st.Capture {
			captured[name] = true
		}
	}
	for i := range sc.Steps {
		ps = append(ps, sc.Steps[i].validate(i, ids, captured)...)
	}
	return ps
}

func (st *Step) validate(i int, ids map[string]int, captured map[string]bool) []problem {
	var ps []problem
	add := func(msg string, path ...any) { ps = append(ps, problem{append([]any{"steps", i}, path...), msg}) }
	if r := st.Match.LastRole; r != "" && !slices.Contains(roles, r) {
		add(fmt.Sprintf("unknown role %q (want %s)", r, strings.Join(roles, ", ")), "match", "last_role")
	}
	if st.Match.Wait < 0 || (st.Match.Wait > 0 && st.Match.After == "") {
		add("wait needs after (the step to wait for) and a positive duration", "match", "wait")
	}
	if a := st.Match.After; a != "" {
		if j, ok := ids[a]; !ok {
			add(fmt.Sprintf("no step has id %q", a), "match", "after")
		} else if j == i {
			add("a step cannot wait for itself", "match", "after")
		}
	}
	for _, name := range sortedKeys(st.Capture) {
		if !identRe().MatchString(name) {
			add(fmt.Sprintf("capture name %q is not an identifier ([A-Za-z_][A-Za-z0-9_]*)", name), "capture", name)
		}
		if _, err := regexp.Compile(st.Capture[name]); err != nil {
			add(fmt.Sprintf("bad regexp: %v", err), "capture", name)
		}
	}
	switch {
	case st.Times != nil && *st.Times < 0:
		add("times must be 0 (unlimited) or more", "times")
	case st.Times != nil && *st.Times > 0 && st.Repeat:
		add("times and repeat: true contradict each other; keep one", "times")
	}
	if st.Latency < 0 {
		add("latency must not be negative", "latency")
	}
	if st.ChunkDelay < 0 {
		add("chunk_delay must not be negative", "chunk_delay")
	}
	if f := st.Reply.FinishReason; f != "" && !slices.Contains(finishes, f) {
		add(fmt.Sprintf("unknown finish_reason %q (want %s)", f, strings.Join(finishes, ", ")), "reply", "finish_reason")
	}
	refs := func(s string, path ...any) {
		for _, m := range refRe().FindAllStringSubmatch(s, -1) {
			if !captured[m[1]] {
				add(fmt.Sprintf("${%s} is never captured: add it to some step's capture", m[1]), path...)
			}
		}
	}
	if r := st.Reply; r.Raw != "" && (r.Text != "" || r.Reasoning != "" || len(r.ToolCalls) > 0 || r.FinishReason != "") {
		add("raw is a whole recorded answer: drop text, reasoning, tool_calls and finish_reason", "reply", "raw")
	}
	refs(st.Reply.Text, "reply", "text")
	for j, tc := range st.Reply.ToolCalls {
		at := []any{"reply", "tool_calls", j}
		if tc.Name == "" {
			add("tool call without a name", at...)
		}
		switch {
		case tc.ArgumentsRaw != nil && tc.Arguments.Kind != 0:
			add("give arguments or arguments_raw, not both", append(at, "arguments_raw")...)
		case tc.ArgumentsRaw != nil:
			refs(*tc.ArgumentsRaw, append(at, "arguments_raw")...)
		case tc.Arguments.Kind != 0:
			if _, err := nodeJSON(&tc.Arguments, nil); err != nil {
				add(err.Error(), append(at, "arguments")...)
			}
			walkScalars(&tc.Arguments, func(s string) { refs(s, append(at, "arguments")...) })
		}
	}
	if u := st.Usage; u != nil {
		for name, v := range map[string]*int{"prompt_tokens": u.PromptTokens, "cached_tokens": u.CachedTokens, "completion_tokens": u.CompletionTokens} {
			if v != nil && *v < 0 {
				add("must not be negative", "usage", name)
			}
		}
		if u.PromptTokens != nil && u.CachedTokens != nil && *u.CachedTokens > *u.PromptTokens {
			add("cached_tokens exceeds prompt_tokens", "usage", "cached_tokens")
		}
	}
	if st.Fault != nil {
		ps = append(ps, st.Fault.validate(i)...)
	}
	return ps
}

func (f *Fault) validate(i int) []problem {
	var ps []problem
	add := func(msg string, path ...any) {
		ps = append(ps, problem{append([]any{"steps", i, "fault"}, path...), msg})
	}
	if !slices.Contains(kinds, f.Kind) {
		add(fmt.Sprintf("unknown fault kind %q (want %s)", f.Kind, strings.Join(kinds, ", ")), "kind")
		return ps
	}
	if f.Times != nil && *f.Times < 0 {
		add("times must be 0 (always) or more", "times")
	}
	only := func(field string, set bool, kind string) {
		if set && f.Kind != kind {
			add(fmt.Sprintf("%s applies only to kind %s", field, kind), field)
		}
	}
	only("status", f.Status != 0, FaultStatus)
	only("code", f.Code != "", FaultStatus)
	only("message", f.Message != "", FaultStatus)
	only("retry_after", f.RetryAfter != 0, FaultStatus)
	only("echo_request", f.EchoRequest, FaultStatus)
	only("delay", f.Delay != 0, FaultSlowFirstByte)
	only("after_bytes", f.AfterBytes != 0, FaultCutStream)
	only("graceful", f.Graceful, FaultCutStream)
	switch f.Kind {
	case FaultStatus:
		if f.Status < 400 || f.Status > 599 {
			add(fmt.Sprintf("status %d is not an HTTP error (400-599)", f.Status), "status")
		}
		if f.RetryAfter < 0 {
			add("retry_after must not be negative", "retry_after")
		}
	case FaultSlowFirstByte:
		if f.Delay <= 0 {
			add("slow_first_byte needs a positive delay, e.g. 3s", "delay")
		}
	case FaultCutStream:
		if f.AfterBytes < 0 {
			add("after_bytes must not be negative", "after_bytes")
		}
	}
	return ps
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func pathString(path []any) string {
	var b strings.Builder
	for _, el := range path {
		switch v := el.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", v)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(v)
		}
	}
	if b.Len() == 0 {
		return "scenario"
	}
	return b.String()
}
