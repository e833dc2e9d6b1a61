package director

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
)

// squeezeKeep is how many of the turn's newest tool outputs stay whole.
const squeezeKeep = 3

// fitter keeps one agent's requests inside its model's window: the
// director's turns and every sub-agent's run have one (Loop.Fit). Before
// every call it measures the request with the session's one measure and
//   - past turn_squeeze_percent of the compaction threshold, shrinks the
//     turn's older tool outputs (in the request only);
//   - when the request would still cross the threshold, or the provider
//     refused it as too long, compacts older rounds of the running turn
//     into a summary — memory.Compact, the summariser of between-turn
//     compaction, mid-turn — keeping the newest rounds whole;
//   - when the summary fails, keeps the history and shrinks harder (one
//     notice);
//   - never sends a request larger than the window: the whole request —
//     prefix, history and the call's transient tail — is bounded, by the
//     session's measure and by the estimate of what is sent, after the
//     hardest squeeze; the error names each part's size and the key.
//
// The transient tail (the [state] block with the notebook, the board
// index) is never in the history it works on: it is rebuilt for each call,
// by the fitter (Fitting.Tail) once the history is fitted.
type fitter struct {
	sess       *memory.Session
	agent      string // who runs the turn, for notices
	key        string // the model's name under models:, for messages
	source     string // the configuration file the window comes from
	window     int    // the model's context window: the wall
	threshold  int    // where compaction fires; 0 = compaction off
	squeezePct int    // context.turn_squeeze_percent; 0 = never
	compact    func(ctx context.Context, keepTokens int) (memory.CompactResult, error)
	notice     func(string)

	squeezed      int  // tool outputs shrunk in this turn (the [state] line)
	summaryFailed bool // a summary failed in this turn: noticed once, not tried again
	measure       int  // the measure of the request being sent (the [window] line)
}

// fit implements agents.Loop.Fit.
func (ft *fitter) fit(ctx context.Context, f *agents.Fitting) error {
	if ft.window > 0 && f.Prefix >= ft.window {
		return ft.prefixError(f.Prefix)
	}
	measure := func() int { return ft.sess.MeasureHistory(f.Msgs, func() int { return f.Prefix }) }
	m := measure()
	squeezeDue := func() bool { return ft.threshold > 0 && ft.squeezePct > 0 && m*100 >= ft.threshold*ft.squeezePct }
	keepWhole := func() int {
		if ft.summaryFailed {
			return 1 // no compaction for the rest of this turn: squeeze harder
		}
		return squeezeKeep
	}
	if squeezeDue() {
		ft.squeezed += squeeze(f.Msgs[f.Turn:], keepWhole())
		m = measure()
	}
	compacted := false
	if ft.threshold > 0 && !ft.summaryFailed && (m >= ft.threshold || f.Overflow != nil) {
		// Keep whole at most half the room the history has below the
		// threshold; after a refusal only the newest round (the measure
		// was wrong, or the window setting is).
		keep := (ft.threshold - (m - memory.HistoryTokens(f.Msgs))) / 2
		if f.Overflow != nil {
			keep = 0
		}
		res, err := ft.compact(ctx, max(keep, 0))
		switch {
		case err == nil:
			compacted = true
			ts := ft.sess.TurnStart()
			_, base, _ := ft.sess.Memory()
			f.Msgs, f.Turn = ft.sess.History(), 1+max(ts-base, 0) // the summary, then what was kept
			ft.notice(fmt.Sprintf("%s: compacted %d older messages of this turn into a summary", ft.agent, res.Replaced))
			m = measure()
			if squeezeDue() {
				ft.squeezed += squeeze(f.Msgs[f.Turn:], keepWhole())
				m = measure()
			}
		case errors.Is(err, memory.ErrNothingToCompact):
		case ctx.Err() != nil:
			return err
		default:
			ft.summaryFailed = true
			ft.notice(fmt.Sprintf("warning: %s: %v; shrinking this turn's older tool outputs harder instead", ft.agent, err))
		}
	}
	// The hard bound is on the whole request: the measure, and the estimate
	// of what is sent — prefix, history and this call's transient tail
	// (built now, after the history is fitted: its [window] line shows m).
	ft.measure = m
	tail, err := ft.tail(f)
	if err != nil {
		return err
	}
	over := func() bool { return ft.window > 0 && max(m, f.Prefix+memory.HistoryTokens(f.Msgs)+tail) > ft.window }
	// The harder squeeze: every output but the newest, then all of them.
	shrunk := false
	for _, keep := range []int{1, 0} {
		if !(over() ||
			f.Overflow != nil && !compacted && !shrunk ||
			ft.summaryFailed && m >= ft.threshold) { // a summary failed: compaction is on
			break
		}
		n := squeeze(f.Msgs[f.Turn:], keep)
		ft.squeezed += n
		shrunk = shrunk || n > 0
		m = measure()
	}
	if f.Overflow != nil && !compacted && !shrunk {
		return errors.New("nothing is left to compact or shrink")
	}
	if shrunk {
		// The tail says how many outputs were shrunk: built again.
		ft.measure = m
		if tail, err = ft.tail(f); err != nil {
			return err
		}
	}
	if over() {
		history := memory.HistoryTokens(f.Msgs)
		return fmt.Errorf("%s's next request would carry about %d tokens (system prompt and tool declarations %d, conversation %d, transient tail %d), more than the context window of %d (models.%s.context_window), even after compacting this turn and shrinking its tool outputs; it was not sent: raise models.%s.context_window if the model has more, or split the task",
			ft.agent, max(m, f.Prefix+history+tail), f.Prefix, history, tail, ft.window, ft.key, ft.key)
	}
	ft.sess.Sending(f.Msgs)
	return nil
}

// tail builds the call's transient tail (Fitting.Tail) and returns its
// tokens: the one message it adds to the request, 0 without one.
func (ft *fitter) tail(f *agents.Fitting) (int, error) {
	if f.Tail == nil {
		return 0, nil
	}
	t, err := f.Tail()
	if err != nil || t == "" {
		return 0, err
	}
	return llm.EstimateTokens([]llm.Message{{Role: llm.RoleUser, Content: t}}, nil), nil
}

// prefixError says that the window cannot hold even the stable prefix: a
// configuration error, named by its key.
func (ft *fitter) prefixError(prefix int) error {
	return &config.Error{File: ft.source, Key: "models." + ft.key + ".context_window",
		Msg: fmt.Sprintf("%d tokens is smaller than the stable prefix of %s's requests (system prompt and tool declarations: about %d tokens): set it to the model's real context window",
			ft.window, ft.agent, prefix)}
}

// squeeze shrinks the tool outputs of a turn but the newest keep, in
// place, and returns how many it shrank. Only the request is affected: the
// rollout keeps every output whole.
func squeeze(turn []llm.Message, keep int) int {
	var tools []int
	for i, m := range turn {
		if m.Role == llm.RoleTool {
			tools = append(tools, i)
		}
	}
	n := 0
	for _, i := range tools[:max(len(tools)-keep, 0)] {
		m := &turn[i]
		if len(m.Content) <= 400 { // a shrunk output is shorter: never shrunk twice
			continue
		}
		m.Content = fmt.Sprintf("[shrunk to save room: %d bytes; first line: %s] — run the call again if you need it", len(m.Content), firstLine(m.Content))
		n++
	}
	return n
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 160 {
		line = line[:160] + "…"
	}
	return line
}

// newFitter builds the fitter of a turn on sess, run by agent on the model
// named model ("" = the default) with the compaction budget of kind.
func (d *Director) newFitter(sess *memory.Session, agent, model, kind string) *fitter {
	cfg := d.app.Config
	key, window := d.windowOf(model)
	ft := &fitter{sess: sess, agent: agent, key: key, source: configSource(cfg), window: window,
		threshold: int(float64(window) * cfg.Context.CompactBudgetFor(kind)), squeezePct: cfg.Context.TurnSqueezePercent,
		notice: d.notice}
	ft.compact = func(ctx context.Context, keepTokens int) (memory.CompactResult, error) {
		o, err := d.compactOptions()
		if err != nil {
			return memory.CompactResult{}, err
		}
		o.MidTurn, o.KeepTokens = true, keepTokens
		if !d.sessionHooks(sess) {
			return memory.Compact(ctx, sess, o)
		}
		d.preCompact(ctx, "auto")
		res, err := memory.Compact(ctx, sess, o)
		d.compacted(ctx, err)
		return res, err
	}
	return ft
}

// windowOf returns the key under models: that serves a model name ("" and
// names that are not keys: the default) and its context window.
func (d *Director) windowOf(model string) (key string, window int) {
	key = "default"
	if _, ok := d.app.Config.Models[model]; ok {
		key = model
	}
	return key, d.app.Config.Models[key].ContextWindow
}

// compactOptions are the summariser's: context.summary_model ("" = the
// session's model) and its window. Between turns and mid-turn alike.
func (d *Director) compactOptions() (memory.CompactOptions, error) {
	cfg := d.app.Config.Context
	client, model, err := d.app.Client(cfg.SummaryModel)
	if err != nil {
		return memory.CompactOptions{}, err
	}
	_, window := d.windowOf(cfg.SummaryModel)
	return memory.CompactOptions{Client: client, Model: model, Window: window, KeepTurns: cfg.KeepRecentTurns}, nil
}

// configSource names the configuration file a person edits: the last one
// read, else the defaults.
func configSource(cfg *config.Config) string {
	if n := len(cfg.Sources); n > 0 {
		return cfg.Sources[n-1]
	}
	return "configuration (defaults)"
}
