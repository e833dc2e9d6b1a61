package llmtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Scenario is a script of answers. Build one with Load or Parse, which
// validate it; a Scenario built in Go is validated by New.
type Scenario struct {
	Name  string `yaml:"name"`
	Steps []Step `yaml:"steps"`
	// Path is the file the scenario was loaded from ("" when parsed from
	// bytes); a replay names it.
	Path string `yaml:"-"`
}

// Step answers the requests it matches.
type Step struct {
	ID      string            `yaml:"id"`
	Match   Match             `yaml:"match"`
	Capture map[string]string `yaml:"capture"` // name → regexp over the request's messages
	Reply   Reply             `yaml:"reply"`
	// Stream false answers with one JSON body even when the client asked
	// for a stream. Default true.
	Stream *bool `yaml:"stream"`
	// Times is how many requests the step answers; absent means 1, 0 means
	// unlimited (as does Repeat).
	Times    *int `yaml:"times"`
	Repeat   bool `yaml:"repeat"`
	Optional bool `yaml:"optional"` // never reported as pending
	// Latency delays the first byte of every answer of this step.
	Latency time.Duration `yaml:"latency"`
	// ChunkDelay pauses between stream chunks (a slow model).
	ChunkDelay time.Duration `yaml:"chunk_delay"`
	Usage      *Usage        `yaml:"usage"`
	Fault      *Fault        `yaml:"fault"`
}

// Match selects requests; every field given must accept, an empty Match
// accepts any request.
type Match struct {
	Agent        string `yaml:"agent"`         // first system message contains "[agent:<Agent>]"
	Contains     string `yaml:"contains"`      // some message content or tool-call arguments contain it
	LastContains string `yaml:"last_contains"` // the last message's content contains it
	LastRole     string `yaml:"last_role"`
	HasTool      string `yaml:"has_tool"`     // the request declares this tool
	NotContains  string `yaml:"not_contains"` // no message content or arguments contain it
	After        string `yaml:"after"`        // the step with this id has answered
	// Wait, with After, holds a request that this step would answer but
	// for its After step until that step has answered, for up to Wait:
	// a request racing a slower one (a sub-agent's first answer) is then
	// answered in the order the scenario means, whatever the load.
	Wait time.Duration `yaml:"wait"`
}

// Reply is the answer. Text and tool arguments may use ${name} for values
// captured so far.
type Reply struct {
	Text string `yaml:"text"`
	// Reasoning is streamed before the text as the model's reasoning:
	// reasoning_content deltas on Chat Completions, a reasoning item (a
	// summary and encrypted content) on the Responses API.
	Reasoning    string     `yaml:"reasoning"`
	ToolCalls    []ToolCall `yaml:"tool_calls"`
	FinishReason string     `yaml:"finish_reason"` // default tool_calls when calls are present, else stop
	// Raw is a recorded answer served verbatim: one JSON event per line
	// (each sent as an SSE data line; on the Responses API with its event
	// name), or SSE text with its own "data:" lines. A chat stream gets
	// "data: [DONE]" when the recording lacks it. It excludes the fields
	// above.
	Raw string `yaml:"raw"`
}

// ToolCall is a scripted call. Arguments is YAML sent as JSON (key order
// kept); ArgumentsRaw is sent byte for byte, malformed on purpose if need be.
type ToolCall struct {
	ID           string    `yaml:"id"` // default call_<request>_<index>
	Name         string    `yaml:"name"`
	Arguments    yaml.Node `yaml:"arguments"`
	ArgumentsRaw *string   `yaml:"arguments_raw"`
}

// Usage overrides the computed token counts; absent fields stay computed.
type Usage struct {
	PromptTokens     *int `yaml:"prompt_tokens"`
	CachedTokens     *int `yaml:"cached_tokens"`
	CompletionTokens *int `yaml:"completion_tokens"`
}

// Fault kinds.
const (
	FaultStatus        = "status"          // an HTTP error with an OpenAI-shaped body
	FaultSlowFirstByte = "slow_first_byte" // wait Delay, then answer normally
	FaultCutStream     = "cut_stream"      // stop the answer after AfterBytes body bytes
)

// Fault makes a step misbehave for its first Times requests (absent: 1,
// 0: always) before it answers normally. Faulted requests do not use up the
// step's Times, so "429 then success" is one step.
type Fault struct {
	Kind       string        `yaml:"kind"`
	Status     int           `yaml:"status"`
	Code       string        `yaml:"code"`    // default by status, e.g. rate_limit_exceeded
	Message    string        `yaml:"message"` // default by status
	RetryAfter time.Duration `yaml:"retry_after"`
	Times      *int          `yaml:"times"`
	Delay      time.Duration `yaml:"delay"`
	AfterBytes int           `yaml:"after_bytes"`
	// Graceful ends a cut stream as a finished HTTP response (a proxy that
	// gave up) instead of dropping the connection: the client sees a clean
	// end of body without a finish reason or [DONE].
	Graceful bool `yaml:"graceful"`
	// EchoRequest makes a status fault's message repeat the request's
	// headers (credentials included) and URL, as careless gateways do:
	// what a client must never show.
	EchoRequest bool `yaml:"echo_request"`
}

// Load reads and validates the scenario file at path.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	sc, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	sc.Path = path
	return sc, nil
}

// Parse decodes and validates a scenario. Decoding is strict (unknown fields
// are errors); every error names the input, the line and the field. name is
// used in errors and as the default Scenario.Name.
func Parse(data []byte, name string) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, scenarioError(name, yamlErrors(err, nil))
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, scenarioError(name, []string{"empty scenario: want name and steps"})
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		return nil, scenarioError(name, yamlErrors(err, &root))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, scenarioError(name, []string{"more than one YAML document: keep one scenario per file"})
	}
	if problems := sc.validate(); len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.format(&root)
		}
		return nil, scenarioError(name, msgs)
	}
	if sc.Name == "" {
		sc.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	return &sc, nil
}

func scenarioError(name string, msgs []string) error {
	errs := make([]error, len(msgs))
	for i, m := range msgs {
		errs[i] = fmt.Errorf("parse scenario %s: %s", name, m)
	}
	return errors.Join(errs...)
}
