package telemetry

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// The tracing itself: spans, their context and the bounded batch queue
// that feeds the exporter. It stands in for the OpenTelemetry SDK, which
// yagent used before 2026-12-01: the SDK, its API, semconv and the
// protobuf runtime were linked into every yagent process and initialised
// at every start (the sandbox helper's and `yagent --version` included)
// for traces that are off unless an endpoint is set. What yagent used of
// it is here: spans of one tracer with string, int and string-list
// attributes, an error status, parent-based sampling of a remote parent
// (ParentBased(AlwaysOn), the SDK's default), at most maxAttrs attributes
// a span, a batch queue that drops rather than blocks. Not carried over:
// events, links, OTEL_TRACES_SAMPLER and the OTEL_BSP_*/OTEL_*_LIMIT
// variables (yagent's own telemetry.queue_size and export_timeout bound
// the queue and the export).

// spanKind is OTLP's SpanKind.
type spanKind int32

const (
	kindInternal spanKind = 1
	kindClient   spanKind = 3
)

// maxAttrs is the attributes one span keeps (the SDK's default limit);
// more are counted as dropped.
const maxAttrs = 128

// value is an attribute's value: a string, an int or a list of strings.
type value struct {
	s  string
	i  int64
	ss []string
	// typ: 's' string, 'i' int, 'l' list of strings.
	typ byte
}

type kv struct {
	key string
	v   value
}

func str(key, v string) kv              { return kv{key, value{s: v, typ: 's'}} }
func integer(key string, v int) kv      { return kv{key, value{i: int64(v), typ: 'i'}} }
func strList(key string, v []string) kv { return kv{key, value{ss: v, typ: 'l'}} }
func (sc spanContext) sampled() bool    { return sc.flags&1 == 1 }
func (sc spanContext) valid() bool      { return sc.traceID != [16]byte{} && sc.spanID != [8]byte{} }
func withSpan(ctx context.Context, s *span) context.Context {
	return context.WithValue(ctx, spanKey{}, s)
}

// spanContext is what identifies a span across processes (W3C trace
// context).
type spanContext struct {
	traceID [16]byte
	spanID  [8]byte
	flags   byte // bit 0: sampled
	state   string
	remote  bool
}

type spanKey struct{}
type remoteKey struct{}

// parentOf is the span ctx carries: a local one, else a remote one
// (Extract).
func parentOf(ctx context.Context) (spanContext, bool) {
	if s, ok := ctx.Value(spanKey{}).(*span); ok {
		return s.sc, true
	}
	if sc, ok := ctx.Value(remoteKey{}).(spanContext); ok {
		return sc, true
	}
	return spanContext{}, false
}

// span is one span. Its fields are written under mu until End hands it
// to the queue, then only read.
type span struct {
	tp       *tracer
	sc       spanContext
	parent   spanContext // zero for a root
	name     string
	kind     spanKind
	start    time.Time
	mu       sync.Mutex
	end      time.Time
	attrs    []kv
	dropped  int
	errored  bool
	errorMsg string
	ended    bool
}

func (s *span) setAttributes(attrs ...kv) {
	if !s.sc.sampled() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	for _, a := range attrs {
		s.set(a)
	}
}

// set replaces the value of a key already set (the last one wins, as in
// the SDK) or adds it while there is room.
func (s *span) set(a kv) {
	for i := range s.attrs {
		if s.attrs[i].key == a.key {
			s.attrs[i] = a
			return
		}
	}
	if len(s.attrs) >= maxAttrs {
		s.dropped++
		return
	}
	s.attrs = append(s.attrs, a)
}

func (s *span) fail(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.errored, s.errorMsg = true, msg
	}
}

func (s *span) finish() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended, s.end = true, time.Now()
	s.mu.Unlock()
	if s.sc.sampled() {
		s.tp.enqueue(s)
	}
}

// tracer makes spans and batches the ended ones for the exporter: a
// bounded queue that drops a span rather than wait, one goroutine that
// exports a batch when it is full or a second old, and a last flush at
// shutdown.
type tracer struct {
	res      []kv
	queue    chan *span
	maxBatch int
	timeout  time.Duration // of one export
	exp      spanExporter
	stop     chan context.Context
	done     chan struct{}
	mu       sync.RWMutex
	stopped  bool
}

// spanExporter sends a batch of ended spans.
type spanExporter interface {
	ExportSpans(ctx context.Context, res []kv, spans []*span) error
}

func newTracer(exp spanExporter, res []kv, queue, maxBatch int, exportTimeout time.Duration) *tracer {
	t := &tracer{res: res, queue: make(chan *span, queue), maxBatch: maxBatch, timeout: exportTimeout, exp: exp,
		stop: make(chan context.Context, 1), done: make(chan struct{})}
	go t.run()
	return t
}

// start begins a span under ctx's span, or a new trace.
func (t *tracer) start(ctx context.Context, name string, kind spanKind, attrs ...kv) (context.Context, *span) {
	s := &span{tp: t, name: name, kind: kind, start: time.Now()}
	if p, ok := parentOf(ctx); ok && p.valid() {
		s.parent = p
		s.sc.traceID, s.sc.flags, s.sc.state = p.traceID, p.flags, p.state
	} else {
		for s.sc.traceID == [16]byte{} {
			putUint64(s.sc.traceID[:8], rand.Uint64())
			putUint64(s.sc.traceID[8:], rand.Uint64())
		}
		s.sc.flags = 1 // sampled: every root is (AlwaysOn)
	}
	for s.sc.spanID == [8]byte{} {
		putUint64(s.sc.spanID[:], rand.Uint64())
	}
	if s.sc.sampled() {
		for _, a := range attrs {
			s.set(a)
		}
	}
	return withSpan(ctx, s), s
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (56 - 8*i))
	}
}

// enqueue hands an ended span to the export goroutine, or drops it when
// the queue is full or the tracer is shut down.
func (t *tracer) enqueue(s *span) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.stopped {
		return
	}
	select {
	case t.queue <- s:
	default: // full: dropped, never waited for
	}
}

func (t *tracer) run() {
	defer close(t.done)
	timer := time.NewTimer(batchTimeout)
	defer timer.Stop()
	var batch []*span
	for {
		select {
		case s := <-t.queue:
			batch = append(batch, s)
			if len(batch) >= t.maxBatch {
				t.export(context.Background(), batch)
				batch = nil
			}
		case <-timer.C:
			if len(batch) > 0 {
				t.export(context.Background(), batch)
				batch = nil
			}
			timer.Reset(batchTimeout)
		case ctx := <-t.stop:
			for {
				select {
				case s := <-t.queue:
					batch = append(batch, s)
					continue
				default:
				}
				break
			}
			for len(batch) > 0 && ctx.Err() == nil {
				n := min(len(batch), t.maxBatch)
				t.export(ctx, batch[:n])
				batch = batch[n:]
			}
			return
		}
	}
}

func (t *tracer) export(ctx context.Context, batch []*span) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	_ = t.exp.ExportSpans(ctx, t.res, batch) // the exporter keeps its own account of failures
}

// shutdown stops taking spans and exports what is queued, until ctx ends;
// it reports whether everything queued was exported.
func (t *tracer) shutdown(ctx context.Context) bool {
	t.mu.Lock()
	already := t.stopped
	t.stopped = true
	t.mu.Unlock()
	if !already {
		t.stop <- ctx
	}
	select {
	case <-t.done:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}
