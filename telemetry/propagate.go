package telemetry

import (
	"context"
	"encoding/hex"
	"strings"
)

// W3C trace context (https://www.w3.org/TR/trace-context/): the headers
// a queued job carries.
const (
	traceparent = "traceparent"
	tracestate  = "tracestate"
)

// Inject returns the W3C trace context of ctx's span (traceparent,
// tracestate) for a job's arguments; nil when there is no span.
func Inject(ctx context.Context) map[string]string {
	if cur.Load() == nil {
		return nil
	}
	sc, ok := parentOf(ctx)
	if !ok || !sc.valid() {
		return nil
	}
	c := map[string]string{traceparent: "00-" + hex.EncodeToString(sc.traceID[:]) + "-" + hex.EncodeToString(sc.spanID[:]) + "-" + hex.EncodeToString([]byte{sc.flags & 1})}
	if sc.state != "" {
		c[tracestate] = sc.state
	}
	return c
}

// Extract returns ctx with the remote span carrier names as its parent, so
// the spans a worker makes join the trace that queued the job. A carrier
// that is not a valid traceparent is ignored.
func Extract(ctx context.Context, carrier map[string]string) context.Context {
	if len(carrier) == 0 || cur.Load() == nil {
		return ctx
	}
	sc, ok := parseTraceparent(carrier[traceparent])
	if !ok {
		return ctx
	}
	sc.state = strings.TrimSpace(carrier[tracestate])
	return context.WithValue(ctx, remoteKey{}, sc)
}

// parseTraceparent reads "00-<32 hex>-<16 hex>-<2 hex>" (a later version
// may append fields after a dash); all-zero ids and version ff are invalid.
func parseTraceparent(h string) (spanContext, bool) {
	var sc spanContext
	h = strings.TrimSpace(h)
	if len(h) < 55 || h[2] != '-' || h[35] != '-' || h[52] != '-' {
		return sc, false
	}
	ver, err := hex.DecodeString(h[:2])
	if err != nil || ver[0] == 0xff || (ver[0] == 0 && len(h) != 55) || (len(h) > 55 && h[55] != '-') {
		return sc, false
	}
	if !decodeHex(sc.traceID[:], h[3:35]) || !decodeHex(sc.spanID[:], h[36:52]) {
		return sc, false
	}
	var flags [1]byte
	if !decodeHex(flags[:], h[53:55]) {
		return sc, false
	}
	sc.flags, sc.remote = flags[0]&1, true
	return sc, sc.valid()
}

// decodeHex decodes lower-case hex only, as the format demands.
func decodeHex(dst []byte, s string) bool {
	if strings.ToLower(s) != s {
		return false
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}
