package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/hooks"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/telemetry"
)

// toolResultCap is the most of one tool result sent to the model.
const toolResultCap = 64 << 10

// Agent is one agent as it runs a turn: its stable system prompt and the
// tools of this turn (already gated, fixed for the whole turn so the
// request prefix stays byte-identical).
type Agent struct {
	Name   string
	System string
	Tools  []*Tool
	Model  string
	// MaxSteps is the step budget: model calls with tools before a last
	// one without (agents.max_steps, agents.subagent_max_steps); at least 1.
	MaxSteps int
	Depth    int
	// Loaded, when set, holds tools brought back during the turn
	// (tool_load): they join the request from the next step on.
	Loaded *Loaded

	defs       []llm.ToolDef
	loadedSeen int
}

// Loaded collects tools loaded during a turn. Safe for concurrent use.
type Loaded struct {
	mu    sync.Mutex
	tools []*Tool
}

// Add loads t; it reports false when it was already there.
func (l *Loaded) Add(t *Tool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if findTool(l.tools, t.Name) != nil {
		return false
	}
	l.tools = append(l.tools, t)
	return true
}

// List returns the loaded tools.
func (l *Loaded) List() []*Tool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Tool(nil), l.tools...)
}

// current returns the turn's tools now: the fixed ones plus what was
// loaded, refreshing the declarations when the set grew.
func (a *Agent) current() []*Tool {
	if a.Loaded == nil {
		return a.Tools
	}
	loaded := a.Loaded.List()
	tools := append(a.Tools[:len(a.Tools):len(a.Tools)], loaded...)
	if len(loaded) != a.loadedSeen {
		a.loadedSeen = len(loaded)
		a.defs = Defs(tools)
	}
	return tools
}

// Loop runs turns. Its fields take the values config resolved (see
// config/defaults.yaml); it has no defaults of its own.
type Loop struct {
	Client llm.Client
	Events Sink
	// Tail builds the transient tail before every model call; nil means
	// no tail.
	Tail func(ctx context.Context) (string, error)
	// TailRole is the role of the tail message, user or system
	// (agents.tail_role; some local chat templates reject late system
	// messages). Needed when Tail is set.
	TailRole llm.Role
	// ParallelTools bounds concurrent tool calls of one answer
	// (agents.parallel_tools); 0 means no bound.
	ParallelTools int
	// StallRepeats ends a step when the same call with the same arguments
	// comes this many times in a row (agents.stall_repeats); 0 turns the
	// check off.
	StallRepeats int
	// Append, when set, is called with every message as it joins the
	// history (user input, assistant answers, tool results), so it can be
	// persisted as it happens. An error aborts the turn.
	Append func(llm.Message) error
	// OnResponse, when set, sees every model response (usage accounting).
	OnResponse func(llm.Response)
	// Fit, when set, keeps every request inside the model's window: it
	// runs before every model call with the history the request will carry
	// and may shrink it (see Fitting). When the provider refuses a request
	// as too long for its window anyway (llm.IsContextOverflow), Fit runs
	// once more with Overflow set and the step is retried once; a second
	// refusal ends the turn. Without Fit, nothing is shrunk or retried.
	Fit func(ctx context.Context, f *Fitting) error
	Now func() time.Time
	// Hooks runs the person's hooks (nil: none) around each tool call
	// (PreToolUse, PostToolUse, PostToolUseFailure; PermissionRequest and
	// Notification through HookAsker) and as the turn would end (Stop, or
	// SubagentStop when HookBase names an agent type: a block forces
	// another round), HookBase being what every hook's input shares
	// (session, transcript, the workspace as cwd, the sub-agent).
	Hooks    *hooks.Runner
	HookBase hooks.Input
}

// Fitting is the history of the next request, as Loop.Fit sees it.
type Fitting struct {
	// Msgs is the conversation the request carries (the transient tail
	// comes after it); this turn's messages start at Msgs[Turn]. Fit may
	// shrink the contents of this turn's messages in place (squeezing old
	// tool outputs: the recorded messages are not changed) or set Msgs and
	// Turn to a shorter history (older rounds compacted into a summary).
	Msgs []llm.Message
	Turn int
	// Prefix estimates the tokens of the request's stable prefix: the
	// system prompt and the tool declarations of this call.
	Prefix int
	// Overflow is the provider's refusal of the previous attempt of this
	// call as too long for the window: the history must get smaller now,
	// or Fit fails.
	Overflow error
	// Tail builds this call's transient tail now (Loop.Tail; "" without
	// one) and the call carries the tail of its last use: Fit calls it
	// once the history is fitted, to bound the whole request. Without a
	// call from Fit, the call builds its tail itself.
	Tail func() (string, error)
}

// Outcome is what a turn produced.
type Outcome struct {
	// Messages are the messages this turn appended to the history, in
	// order (the input first).
	Messages []llm.Message
	// Final is the text of the last assistant message.
	Final string
	// Reason is answer, length (an answer the model's output limit cut),
	// agent_exit or max_steps (or cancelled/error with a non-nil error
	// from Run).
	Reason string
	// Stop is the call that ended the turn (agent_exit), if any.
	Stop *Call
	// Usage totals this turn's requests; LastPrompt is the provider's
	// prompt_tokens of the last response (the anchor of token accounting).
	Usage      UsageEvent
	LastPrompt int
	// Artifacts are what tools reported producing (files written).
	Artifacts []string
	Steps     int
}

// Turn-end reasons.
const (
	ReasonAnswer    = "answer"
	ReasonLength    = "length" // the answer was cut at the model's output limit
	ReasonExit      = "agent_exit"
	ReasonMaxSteps  = "max_steps"
	ReasonCancelled = "cancelled"
	ReasonError     = "error"
)

// ErrEmptyAnswer is a final answer with neither text nor a tool call: it
// answers nothing, so the turn fails rather than succeed silently.
var ErrEmptyAnswer = errors.New("the model's final answer was empty (no text, no tool call): ask again, or try another model")

// truncatedText warns that a final answer was cut at the output limit.
const truncatedText = "warning: the answer was cut at the model's output limit (finish_reason length): it is incomplete"

// wrapUpText is sent when the step budget is spent: one last call without
// tools hands over what was done, so work already paid for is kept.
const wrapUpText = "[yagent] The step budget (%d model calls) is spent. Do not call tools. Hand over now: your findings in full, what is verified, and what is left undone."

func (l *Loop) emit(a *Agent, e Event) {
	if l.Events == nil {
		return
	}
	if l.Now != nil {
		e.Time = l.Now()
	} else {
		e.Time = time.Now()
	}
	e.Agent = a.Name
	e.Depth = a.Depth
	l.Events.Emit(e)
}

// Run runs one turn of agent a: history is the conversation so far (never
// modified), input the new message (usually the user's).
func (l *Loop) Run(ctx context.Context, a *Agent, history []llm.Message, input llm.Message) (*Outcome, error) {
	out := &Outcome{}
	start := time.Now()
	if a.MaxSteps < 1 {
		return out, fmt.Errorf("%s: a step budget of %d model calls: want 1 or more", a.Name, a.MaxSteps)
	}
	if l.Tail != nil && l.TailRole != llm.RoleUser && l.TailRole != llm.RoleSystem {
		return out, fmt.Errorf("%s: tail role %q: want user or system (agents.tail_role)", a.Name, l.TailRole)
	}
	if a.defs == nil {
		a.defs = Defs(a.Tools)
	}
	base := StripTail(history)
	msgs := append(base[:len(base):len(base)], input) // never writes into the caller's array
	turn := len(base)                                 // where this turn's messages start in msgs
	if err := l.append(out, input); err != nil {
		return out, err
	}
	l.emit(a, Event{Type: EventTurnStarted, Text: input.Content})
	stall := &stallCheck{limit: l.StallRepeats}
	var err error
	forced := 0 // rounds Stop hooks forced
	for step := 1; ; step++ {
		out.Steps = step
		wrapUp := step > a.MaxSteps
		if wrapUp {
			note := llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf(wrapUpText, a.MaxSteps)}
			msgs = append(msgs, note)
			if err = l.append(out, note); err != nil {
				break
			}
		}
		var resp llm.Response
		resp, err = l.fitAndCall(ctx, a, &msgs, &turn, step, wrapUp)
		if err != nil {
			break
		}
		out.Usage.Add(l.usageOf(resp.Usage))
		out.LastPrompt = resp.Usage.PromptTokens
		msg := resp.Message
		msg.Role = llm.RoleAssistant
		if wrapUp {
			msg.ToolCalls = nil // asked for none; ignore any that came anyway
		}
		if msg.Content == "" && len(msg.ToolCalls) == 0 {
			// Not recorded: an empty assistant message is no answer, and
			// providers refuse it in a history.
			err = fmt.Errorf("%s: %w", a.Name, ErrEmptyAnswer)
			break
		}
		msgs = append(msgs, msg)
		if err = l.append(out, msg); err != nil {
			break
		}
		if msg.Content != "" {
			out.Final = msg.Content
		}
		if len(msg.ToolCalls) == 0 {
			out.Reason = ReasonAnswer
			if resp.FinishReason == llm.FinishLength {
				out.Reason = ReasonLength
				l.emit(a, Event{Type: EventNotice, Text: truncatedText})
			}
			if wrapUp {
				out.Reason = ReasonMaxSteps
				break
			}
			if more, herr := l.stopHooks(ctx, a, out, forced); herr != nil || more != nil {
				if err = herr; err == nil {
					err = l.force(out, &msgs, *more, &forced)
				}
				if err == nil {
					continue
				}
			}
			break
		}
		var results []llm.Message
		results, err = l.runTools(ctx, a, msg.ToolCalls, stall, out)
		msgs = append(msgs, results...)
		for _, r := range results {
			if aerr := l.append(out, r); aerr != nil && err == nil {
				err = aerr
			}
		}
		if err != nil {
			break
		}
		if out.Stop != nil {
			out.Reason = ReasonExit
			if more, herr := l.stopHooks(ctx, a, out, forced); herr != nil || more != nil {
				if err = herr; err == nil {
					out.Stop, out.Reason = nil, ""
					err = l.force(out, &msgs, *more, &forced)
				}
				if err == nil {
					continue
				}
			}
			break
		}
	}
	if err != nil {
		out.Reason = ReasonError
		if ctx.Err() != nil {
			out.Reason = ReasonCancelled
		}
	}
	total := out.Usage
	total.ElapsedMS = time.Since(start).Milliseconds()
	fin := Event{Type: EventTurnFinished, Reason: out.Reason, Usage: &total}
	if err != nil {
		fin.Error = err.Error()
	}
	l.emit(a, fin)
	return out, err
}

// force adds the message of a round a Stop hook forced to the history.
func (l *Loop) force(out *Outcome, msgs *[]llm.Message, m llm.Message, forced *int) error {
	*forced++
	*msgs = append(*msgs, m)
	return l.append(out, m)
}

func (l *Loop) append(out *Outcome, m llm.Message) error {
	out.Messages = append(out.Messages, m)
	if l.Append != nil {
		if err := l.Append(m); err != nil {
			return fmt.Errorf("record message: %w", err)
		}
	}
	return nil
}

// fitAndCall fits the history to the window (Loop.Fit) and makes the
// step's request; a refusal as too long for the window gets one more fit,
// with the refusal, and one retry.
func (l *Loop) fitAndCall(ctx context.Context, a *Agent, msgs *[]llm.Message, turn *int, step int, wrapUp bool) (llm.Response, error) {
	var overflow error
	for {
		var tail *string // built by Fit, else by the call
		if l.Fit != nil {
			a.current() // the declarations of this call
			f := &Fitting{Msgs: *msgs, Turn: *turn, Overflow: overflow,
				Prefix: llm.EstimateTokens([]llm.Message{{Role: llm.RoleSystem, Content: a.System}}, a.defs),
				Tail: func() (string, error) {
					t, err := l.tail(ctx)
					tail = &t
					return t, err
				}}
			if err := l.Fit(ctx, f); err != nil {
				if overflow != nil {
					return llm.Response{}, fmt.Errorf("%w (%v)", overflow, err)
				}
				return llm.Response{}, fmt.Errorf("%s: model call %d: %w", a.Name, step, err)
			}
			*msgs, *turn = f.Msgs, f.Turn
		}
		resp, err := l.call(ctx, a, *msgs, tail, step, wrapUp)
		if err == nil || l.Fit == nil || !llm.IsContextOverflow(err) {
			return resp, err
		}
		if overflow != nil {
			return resp, fmt.Errorf("%w (the history was compacted once and the request was still too long)", err)
		}
		overflow = err
	}
}

// tail builds the transient tail of a call right now ("" without one).
func (l *Loop) tail(ctx context.Context) (string, error) {
	if l.Tail == nil {
		return "", nil
	}
	t, err := l.Tail(ctx)
	if err != nil {
		return "", fmt.Errorf("build transient tail: %w", err)
	}
	return t, nil
}

// call makes one model request with built, the tail Fit measured, or
// (nil) the tail rebuilt right now.
func (l *Loop) call(ctx context.Context, a *Agent, msgs []llm.Message, built *string, step int, wrapUp bool) (llm.Response, error) {
	if built == nil {
		t, err := l.tail(ctx)
		if err != nil {
			return llm.Response{}, err
		}
		built = &t
	}
	a.current() // picks up tools loaded by the previous step
	req := buildRequest(a, a.defs, msgs, *built, l.TailRole)
	if wrapUp {
		req.ToolChoice = "none"
	}
	req.OnEvent = func(e llm.Event) {
		switch e.Kind {
		case llm.EventText:
			l.emit(a, Event{Type: EventTextDelta, Text: e.Text, Step: step})
		case llm.EventReasoning:
			l.emit(a, Event{Type: EventReasoningDelta, Text: e.Text, Step: step})
		case llm.EventRetry:
			msg := ""
			if e.Err != nil {
				msg = e.Err.Error()
			}
			l.emit(a, Event{Type: EventRetry, Step: step, Error: msg,
				Text: fmt.Sprintf("retrying (%d/%d) in %s", e.Attempt, e.MaxAttempts, e.Wait.Round(time.Millisecond))})
		}
	}
	t0 := time.Now()
	ctx, sp := telemetry.StartChat(ctx, a.Model, providerName(l.Client))
	sp.Content(telemetry.KeyInputMessages, func() string { return messagesJSON(req.Messages) })
	resp, err := l.Client.Stream(ctx, req)
	if err != nil {
		sp.End(err)
		if ctx.Err() != nil {
			return resp, fmt.Errorf("%s: %w", a.Name, ctx.Err())
		}
		return resp, fmt.Errorf("%s: model call %d: %w", a.Name, step, err)
	}
	sp.Chat(resp.Model, resp.FinishReason, resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Usage.CachedTokens, resp.Usage.ReasoningTokens)
	sp.Content(telemetry.KeyOutputMessages, func() string { return messagesJSON([]llm.Message{resp.Message}) })
	sp.End(nil)
	u := l.usageOf(resp.Usage)
	u.ElapsedMS = time.Since(t0).Milliseconds()
	l.emit(a, Event{Type: EventUsage, Step: step, Usage: &u})
	if l.OnResponse != nil {
		l.OnResponse(resp)
	}
	return resp, nil
}

// usageOf is one response's usage as an event, with its cost when the
// client prices its model (budget.Guard: the figure its ledger is
// charged).
func (l *Loop) usageOf(u llm.Usage) UsageEvent {
	e := UsageEvent{Requests: 1, Usage: u}
	if p, ok := l.Client.(interface {
		CallCost(llm.Usage) (float64, bool)
	}); ok {
		if c, priced := p.CallCost(u); priced {
			e.CostUSD = &c
		}
	}
	return e
}

// stallCheck counts identical consecutive calls across answers. Copies
// of a call within one answer count once: the model asked for them side
// by side before it saw any result (four identical delegate(team: X)
// calls start four members), so nothing tells it "the result will not
// change" yet.
type stallCheck struct {
	limit      int
	last       string
	count      int
	answer     int // the answer being run (answered increments it)
	lastAnswer int // the answer that last counted s.last
}

// answered marks the start of the calls of a new answer.
func (s *stallCheck) answered() { s.answer++ }

func (s *stallCheck) see(c llm.ToolCall) int {
	sig := c.Name + "\x00" + canonicalJSON(c.Arguments)
	switch {
	case sig == s.last && s.lastAnswer == s.answer:
		// a copy within the same answer: counted already
	case sig == s.last:
		s.count++
	default:
		s.last, s.count = sig, 1
	}
	s.lastAnswer = s.answer
	return s.count
}

func canonicalJSON(raw string) string {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return raw
	}
	b, _ := json.Marshal(v) // map keys come out sorted
	return string(b)
}

// runTools runs the calls of one answer concurrently (bounded) and returns
// their results in call order. Problems the model can fix become error
// results; only infrastructure failures (and cancellation) return an error.
func (l *Loop) runTools(ctx context.Context, a *Agent, calls []llm.ToolCall, stall *stallCheck, out *Outcome) ([]llm.Message, error) {
	results := make([]Result, len(calls))
	runnable := make([]*Tool, len(calls))
	tools := a.current()
	stall.answered()
	for i, c := range calls {
		t := findTool(tools, c.Name)
		switch {
		case t == nil:
			names := Names(tools)
			slices.Sort(names)
			results[i] = ErrorResult("there is no tool %q in this turn; the tools you have are: %s", c.Name, strings.Join(names, ", "))
		case stall.limit > 0 && !t.Flags.Has(Uneventful) && stall.see(c) >= stall.limit:
			results[i] = ErrorResult("this is call number %d of %s with the same arguments in a row; the result will not change. Use what you have, try something different, or give your answer", stall.count, c.Name)
		default:
			if err := t.validate(json.RawMessage(c.Arguments)); err != nil {
				results[i] = ErrorResult("%s: %v", c.Name, err)
				continue
			}
			runnable[i] = t
		}
	}
	var sem chan struct{} // nil: no bound
	if l.ParallelTools > 0 {
		sem = make(chan struct{}, l.ParallelTools)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i, t := range runnable {
		c := calls[i]
		quiet := t != nil && t.Flags.Has(Quiet)
		l.emit(a, Event{Type: EventToolCall, Tool: &ToolEvent{CallID: c.ID, Name: c.Name, Args: rawOrString(c.Arguments), Quiet: quiet}})
		if t == nil {
			refusedToolSpan(ctx, c, results[i])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ctx.Err() != nil {
				results[i] = ErrorResult("cancelled before it ran")
				return
			}
			if sem != nil {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					results[i] = ErrorResult("cancelled before it ran")
					return
				}
				defer func() { <-sem }()
			}
			tctx, sp := telemetry.StartTool(ctx, c.Name, c.ID)
			sp.Content(telemetry.KeyToolArguments, func() string { return c.Arguments })
			call := &Call{ID: c.ID, Name: c.Name, Args: json.RawMessage(c.Arguments)}
			hctx, call, settled, extra, err := l.preToolUse(tctx, a, t, call)
			var res Result
			switch {
			case err != nil:
			case settled != nil:
				res = *settled
			default:
				var hc *hookCall
				hctx, hc = l.withHookCall(context.WithValue(hctx, runningCallKey{}, call.ID), a, call)
				res, err = safeRun(hctx, t, call)
				extra = append(extra, hc.reasons()...)
			}
			if err == nil {
				res, err = l.postToolUse(tctx, a, call, res, extra)
			}
			endToolSpan(sp, res, err)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("tool %s: %w", c.Name, err)
				}
				mu.Unlock()
				res = ErrorResult("interrupted: %v", err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	msgs := make([]llm.Message, len(calls))
	for i, c := range calls {
		r := results[i]
		content := capContent(r.Content)
		msgs[i] = llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: content}
		out.Artifacts = append(out.Artifacts, r.Artifacts...)
		quiet := runnable[i] != nil && runnable[i].Flags.Has(Quiet)
		l.emit(a, Event{Type: EventToolResult, Tool: &ToolEvent{CallID: c.ID, Name: c.Name, Summary: r.Summary, IsError: r.IsError, Bytes: len(content), Quiet: quiet,
			Diff: r.Diff, Output: r.Output, ExitCode: r.ExitCode}})
		if r.stop && out.Stop == nil {
			out.Stop = &Call{ID: c.ID, Name: c.Name, Args: json.RawMessage(c.Arguments)}
		}
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return msgs, firstErr
}

// runningCallKey carries the id of the model's tool call a tool runs for.
type runningCallKey struct{}

// RunningCall is the id of the model's tool call whose run ctx belongs to
// ("" outside one; a sub-agent's calls have their own): an approval
// question it raises is about that call (yagent acp shows the question on
// the call's tool_call).
func RunningCall(ctx context.Context) string {
	id, _ := ctx.Value(runningCallKey{}).(string)
	return id
}

// safeRun runs a tool, turning a panic into an error result: bad input
// must never crash the loop.
func safeRun(ctx context.Context, t *Tool, c *Call) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = ErrorResult("the %s tool crashed (%v); this is a yagent bug, try another way", t.Name, p), nil
		}
	}()
	return t.Run(ctx, c)
}

func capContent(s string) string {
	if len(s) <= toolResultCap {
		return s
	}
	cut := s[:toolResultCap]
	for len(cut) > 0 && cut[len(cut)-1]&0xC0 == 0x80 {
		cut = cut[:len(cut)-1]
	}
	return cut + fmt.Sprintf("\n… [result cut at %d of %d bytes]", len(cut), len(s))
}

func rawOrString(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
