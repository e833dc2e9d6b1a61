package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
)

// Inject returns the W3C trace context of ctx's span (traceparent,
// tracestate) for a job's arguments; nil when there is no span.
func Inject(ctx context.Context) map[string]string {
	if cur.Load() == nil {
		return nil
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	if len(c) == 0 {
		return nil
	}
	return c
}

// Extract returns ctx with the remote span carrier names as its parent, so
// the spans a worker makes join the trace that queued the job.
func Extract(ctx context.Context, carrier map[string]string) context.Context {
	if len(carrier) == 0 || cur.Load() == nil {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier(carrier))
}
