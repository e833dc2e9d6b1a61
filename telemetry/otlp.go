package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// otlpExporter sends spans as OTLP/HTTP protobuf (an
// ExportTraceServiceRequest POSTed to the traces URL), encoded here with
// no protobuf runtime: the official otlptracehttp exporter links gRPC and
// grpc-gateway, and the generated OTLP types the protobuf runtime, into
// every yagent process (their package initialisation on every start,
// telemetry on or off). A failed export is returned, never retried. The
// encoding is checked by every trace test through telemetrytest's
// receiver, which decodes with the official collector types.
type otlpExporter struct {
	url     string
	headers map[string]string
	client  *http.Client
}

func newOTLPExporter(url string, headers map[string]string, timeout time.Duration) *otlpExporter {
	return &otlpExporter{url: url, headers: headers, client: &http.Client{Timeout: timeout}}
}

// ExportSpans posts one request holding spans.
func (e *otlpExporter) ExportSpans(ctx context.Context, res []kv, spans []*span) error {
	if len(spans) == 0 {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(marshalRequest(res, spans)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the collector answered %s", resp.Status)
	}
	return nil
}

// scopeName is the instrumentation scope of every span.
const scopeName = "github.com/yagent/yagent"

// Field numbers of opentelemetry/proto (collector/trace/v1, trace/v1,
// common/v1, resource/v1).
const (
	fRequestResourceSpans = 1 // ExportTraceServiceRequest.resource_spans
	fResourceSpansRes     = 1 // ResourceSpans.resource
	fResourceSpansScope   = 2 // ResourceSpans.scope_spans
	fResourceAttrs        = 1 // Resource.attributes
	fScopeSpansScope      = 1 // ScopeSpans.scope
	fScopeSpansSpans      = 2 // ScopeSpans.spans
	fScopeName            = 1 // InstrumentationScope.name
	fSpanTraceID          = 1
	fSpanID               = 2
	fSpanTraceState       = 3
	fSpanParentID         = 4
	fSpanName             = 5
	fSpanKind             = 6
	fSpanStart            = 7  // fixed64
	fSpanEnd              = 8  // fixed64
	fSpanAttrs            = 9  // repeated KeyValue
	fSpanDroppedAttrs     = 10 // uint32
	fSpanStatus           = 15
	fSpanFlags            = 16 // fixed32
	fStatusMessage        = 2
	fStatusCode           = 3
	fKeyValueKey          = 1
	fKeyValueValue        = 2
	fAnyString            = 1
	fAnyInt               = 3
	fAnyArray             = 5
	fArrayValues          = 1

	statusCodeError = 2
	// SpanFlags: the context's remote flag is known, and it is remote.
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// marshalRequest encodes an ExportTraceServiceRequest: one resource, one
// scope, the spans in the order they came.
func marshalRequest(res []kv, spans []*span) []byte {
	var scope, b []byte
	scope = appendBytes(scope, fScopeSpansScope, appendString(nil, fScopeName, scopeName))
	for _, s := range spans {
		scope = appendBytes(scope, fScopeSpansSpans, marshalSpan(s))
	}
	var rs []byte
	rs = appendBytes(rs, fResourceSpansRes, appendKeyValues(nil, fResourceAttrs, res))
	rs = appendBytes(rs, fResourceSpansScope, scope)
	return appendBytes(b, fRequestResourceSpans, rs)
}

func marshalSpan(s *span) []byte {
	var b []byte
	b = appendBytes(b, fSpanTraceID, s.sc.traceID[:])
	b = appendBytes(b, fSpanID, s.sc.spanID[:])
	b = appendString(b, fSpanTraceState, s.sc.state)
	flags := uint32(s.sc.flags) | flagHasIsRemote
	if s.parent.valid() {
		b = appendBytes(b, fSpanParentID, s.parent.spanID[:])
		if s.parent.remote {
			flags |= flagIsRemote
		}
	}
	b = appendString(b, fSpanName, s.name)
	b = appendVarintField(b, fSpanKind, uint64(s.kind))
	b = appendFixed64(b, fSpanStart, uint64(s.start.UnixNano()))
	b = appendFixed64(b, fSpanEnd, uint64(s.end.UnixNano()))
	b = appendKeyValues(b, fSpanAttrs, s.attrs)
	if s.dropped > 0 {
		b = appendVarintField(b, fSpanDroppedAttrs, uint64(s.dropped))
	}
	if s.errored {
		var st []byte
		st = appendString(st, fStatusMessage, s.errorMsg)
		st = appendVarintField(st, fStatusCode, statusCodeError)
		b = appendBytes(b, fSpanStatus, st)
	}
	b = appendTag(b, fSpanFlags, 5)
	return append(b, byte(flags), byte(flags>>8), byte(flags>>16), byte(flags>>24))
}

// appendKeyValues appends each attribute as a KeyValue in field num.
func appendKeyValues(b []byte, num int, attrs []kv) []byte {
	for _, a := range attrs {
		var m []byte
		m = appendString(m, fKeyValueKey, a.key)
		m = appendBytes(m, fKeyValueValue, anyValue(a.v))
		b = appendBytes(b, num, m)
	}
	return b
}

func anyValue(v value) []byte {
	switch v.typ {
	case 'i':
		return appendVarintField(nil, fAnyInt, uint64(v.i))
	case 'l':
		var arr []byte
		for _, s := range v.ss {
			arr = appendBytes(arr, fArrayValues, appendStringAlways(nil, fAnyString, s))
		}
		return appendBytes(nil, fAnyArray, arr)
	}
	return appendStringAlways(nil, fAnyString, v.s)
}

// The protobuf wire format: a tag is the field number and wire type
// (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32) as a varint.

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendTag(b []byte, num int, typ uint64) []byte {
	return appendVarint(b, uint64(num)<<3|typ)
}

func appendVarintField(b []byte, num int, v uint64) []byte {
	return appendVarint(appendTag(b, num, 0), v)
}

func appendFixed64(b []byte, num int, v uint64) []byte {
	b = appendTag(b, num, 1)
	for i := range 8 {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func appendBytes(b []byte, num int, v []byte) []byte {
	b = appendVarint(appendTag(b, num, 2), uint64(len(v)))
	return append(b, v...)
}

// appendString leaves out an empty string (proto3's default), as a
// generated marshaller does for a plain field.
func appendString(b []byte, num int, s string) []byte {
	if s == "" {
		return b
	}
	return appendStringAlways(b, num, s)
}

// appendStringAlways writes s even when empty: a member of a oneof is
// present whatever its value.
func appendStringAlways(b []byte, num int, s string) []byte {
	b = appendVarint(appendTag(b, num, 2), uint64(len(s)))
	return append(b, s...)
}
