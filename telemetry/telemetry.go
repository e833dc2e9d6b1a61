// Package telemetry exports traces of yagent's runs over OTLP/HTTP, shaped
// by the OpenTelemetry GenAI semantic conventions: a turn is
// "invoke_agent director", each model call "chat {model}", each tool call
// "execute_tool {name}", each delegation "invoke_agent {agent}", a batch
// "batch {plan}".
//
// It is off unless an endpoint is configured (telemetry.endpoint or the
// standard OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
// Off, Setup starts nothing and every helper returns at once after one
// atomic load: the hooks in the turn loop cost nothing. The spans are
// recorded and encoded here (trace.go, otlp.go), not by the OpenTelemetry
// SDK, which linked into yagent was initialised by every process, traces
// on or off (trace.go says what was kept and what was dropped). On, spans go through a bounded batch queue; an export that fails
// is dropped, never retried, and said once at exit, so a dead collector never
// slows or fails a run. Prompts, outputs and tool arguments are recorded
// only with telemetry.log_content.
//
// The installed tracer is process-wide (Setup installs it, Shutdown removes
// it), as OpenTelemetry's own global is: a test that installs one must not
// run in parallel with tests that make spans.
package telemetry

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options are the resolved telemetry settings (see Resolve).
type Options struct {
	// Endpoint is the full OTLP/HTTP traces URL
	// (http://host:4318/v1/traces); "" turns telemetry off.
	Endpoint string
	// Source names where Endpoint came from (an environment variable or
	// telemetry.endpoint), for messages.
	Source  string
	Headers map[string]string
	// LogContent records prompts, answers, tasks and tool arguments and
	// results as span attributes.
	LogContent bool
	// ExportTimeout bounds one export; ShutdownTimeout bounds the last
	// flush at exit (0 = do not wait: what is queued is dropped).
	ExportTimeout   time.Duration
	ShutdownTimeout time.Duration
	// QueueSize bounds the spans waiting for export; more are dropped.
	QueueSize   int
	ServiceName string
	Version     string
	// Resource are more attributes of the resource (OTEL_RESOURCE_ATTRIBUTES);
	// service.name and service.version win over them.
	Resource map[string]string
	// Stderr receives the one notice about dropped traces, at Shutdown.
	Stderr io.Writer
}

// batchTimeout is how long a finished span waits for its batch: spans
// reach the collector within about a second, and a dead collector is
// known (its first export failed or timed out) long before a run of real
// model calls ends, so the exit does not wait for it.
const batchTimeout = time.Second

// state is what the hooks see while telemetry is on.
type state struct {
	tracer  *tracer
	content bool
}

var cur atomic.Pointer[state]

// On reports whether spans are being recorded.
func On() bool { return cur.Load() != nil }

// Telemetry is a running exporter; Shutdown flushes and stops it.
type Telemetry struct {
	tp      *tracer
	exp     *noticeExporter
	timeout time.Duration
	st      *state
	down    sync.Once
}

// Setup starts exporting when opts has an endpoint and installs the tracer
// the hooks use. With no endpoint it returns nil and initialises nothing;
// (*Telemetry)(nil).Shutdown is a no-op.
func Setup(ctx context.Context, opts Options) (*Telemetry, error) {
	if opts.Endpoint == "" {
		return nil, nil
	}
	// A failed export is dropped, never retried: retries would hold the
	// queue (and the exit) for tens of seconds.
	exp := newOTLPExporter(opts.Endpoint, opts.Headers, opts.ExportTimeout)
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if opts.QueueSize < 1 {
		opts.QueueSize = 2048
	}
	nexp := &noticeExporter{exp: exp, w: stderr, endpoint: opts.Endpoint}
	tp := newTracer(nexp, resourceOf(opts), opts.QueueSize, min(512, opts.QueueSize), opts.ExportTimeout)
	t := &Telemetry{tp: tp, exp: nexp, timeout: opts.ShutdownTimeout,
		st: &state{tracer: tp, content: opts.LogContent}}
	cur.Store(t.st)
	return t, nil
}

// Shutdown uninstalls the tracer and flushes what is queued, waiting at
// most the shutdown timeout (not at all when the last export failed: the
// collector is down); a second call does nothing. It returns no error:
// traces are never worth failing a run for; what is lost is said once on
// stderr.
func (t *Telemetry) Shutdown(ctx context.Context) {
	if t == nil {
		return
	}
	t.down.Do(func() { t.shutdown(ctx) })
}

func (t *Telemetry) shutdown(ctx context.Context) {
	cur.CompareAndSwap(t.st, nil)
	wait := t.timeout
	if t.exp.failed.Load() {
		wait = 0
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	if !t.tp.shutdown(ctx) {
		t.exp.lost(fmt.Errorf("not sent within telemetry.shutdown_timeout (%s)", t.timeout))
	}
	if msg := t.exp.first.Load(); msg != nil {
		fmt.Fprintf(t.exp.w, "yagent: warning: traces to %s were dropped: %s\n", t.exp.endpoint, *msg)
	}
}

// noticeExporter drops a failed export, remembers why the first one
// failed (for the one notice Shutdown prints: written from the export
// goroutine it would interleave with the run's own output, or tear a
// full-screen terminal) and whether the last export failed (the collector
// is down).
type noticeExporter struct {
	exp      spanExporter
	w        io.Writer
	endpoint string
	first    atomic.Pointer[string]
	failed   atomic.Bool
}

func (e *noticeExporter) ExportSpans(ctx context.Context, res []kv, spans []*span) error {
	err := e.exp.ExportSpans(ctx, res, spans)
	e.failed.Store(err != nil)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("the collector did not answer within telemetry.export_timeout")
		}
		e.lost(err)
	}
	return nil // said once, at Shutdown
}

// lost records the first reason spans were dropped.
func (e *noticeExporter) lost(err error) {
	msg := err.Error()
	e.first.CompareAndSwap(nil, &msg)
}

// resourceOf is the resource of every span: the service's name and
// version, the SDK yagent is (telemetry.sdk.*, as an OpenTelemetry SDK
// names itself) and the person's own attributes.
func resourceOf(o Options) []kv {
	name := o.ServiceName
	if name == "" {
		name = "yagent"
	}
	out := []kv{str("service.name", name), str("service.version", o.Version),
		str("telemetry.sdk.language", "go"), str("telemetry.sdk.name", "yagent"), str("telemetry.sdk.version", o.Version)}
	keys := make([]string, 0, len(o.Resource))
	for k := range o.Resource {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "service.name" && k != "service.version" {
			out = append(out, str(k, o.Resource[k]))
		}
	}
	return out
}
