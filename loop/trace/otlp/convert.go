package otlp

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// requestResourceSpans is ExportTraceServiceRequest's one field
// (opentelemetry/proto/collector/trace/v1/trace_service.proto:
// repeated ResourceSpans resource_spans = 1). The collector package that
// defines the message also carries the gRPC service and gateway, which
// would link grpc into the binary, so the envelope is written here.
const requestResourceSpans protowire.Number = 1

// encodeRequest returns spans as the bytes of an ExportTraceServiceRequest,
// one ResourceSpans per resource and one ScopeSpans per instrumentation
// scope within it, in the order the spans came.
func encodeRequest(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	groups := resourceSpans(spans)
	sizes := make([]int, len(groups))
	total := 0
	for i, rs := range groups {
		sizes[i] = proto.Size(rs)
		total += protowire.SizeTag(requestResourceSpans) + protowire.SizeBytes(sizes[i])
	}
	out := make([]byte, 0, total)
	for i, rs := range groups {
		out = protowire.AppendTag(out, requestResourceSpans, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(sizes[i]))
		var err error
		// Marshalled in place, with the size just computed.
		if out, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(out, rs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// resourceSpans groups spans by resource, then by scope.
func resourceSpans(spans []sdktrace.ReadOnlySpan) []*tracepb.ResourceSpans {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	var out []*tracepb.ResourceSpans
	byRes := map[attribute.Distinct]*tracepb.ResourceSpans{}
	byScope := map[scopeKey]*tracepb.ScopeSpans{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rs := byRes[rk]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: resourceProto(res), SchemaUrl: res.SchemaURL()}
			byRes[rk] = rs
			out = append(out, rs)
		}
		sk := scopeKey{rk, s.InstrumentationScope()}
		ss := byScope[sk]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: scopeProto(sk.scope), SchemaUrl: sk.scope.SchemaURL}
			byScope[sk] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, spanProto(s))
	}
	return out
}

func resourceProto(r *resource.Resource) *resourcepb.Resource {
	if r == nil {
		return &resourcepb.Resource{}
	}
	return &resourcepb.Resource{Attributes: keyValues(r.Attributes())}
}

func scopeProto(s instrumentation.Scope) *common.InstrumentationScope {
	return &common.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: keyValues(s.Attributes.ToSlice())}
}

func spanProto(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc, parent := s.SpanContext(), s.Parent()
	tid, sid := sc.TraceID(), sc.SpanID()
	st := s.Status()
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Flags:                  spanFlags(sc.TraceFlags(), parent),
		Name:                   s.Name(),
		Kind:                   spanKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime()),
		EndTimeUnixNano:        unixNano(s.EndTime()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: clampCount(s.DroppedAttributes()),
		DroppedEventsCount:     clampCount(s.DroppedEvents()),
		DroppedLinksCount:      clampCount(s.DroppedLinks()),
		Status:                 &tracepb.Status{Code: statusCode(st.Code), Message: st.Description},
	}
	if parent.SpanID().IsValid() {
		psid := parent.SpanID()
		p.ParentSpanId = psid[:]
	}
	for _, e := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{
			TimeUnixNano:           unixNano(e.Time),
			Name:                   e.Name,
			Attributes:             keyValues(e.Attributes),
			DroppedAttributesCount: clampCount(e.DroppedAttributeCount),
		})
	}
	for _, l := range s.Links() {
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		p.Links = append(p.Links, &tracepb.Span_Link{
			TraceId:                ltid[:],
			SpanId:                 lsid[:],
			TraceState:             l.SpanContext.TraceState().String(),
			Attributes:             keyValues(l.Attributes),
			DroppedAttributesCount: clampCount(l.DroppedAttributeCount),
			Flags:                  spanFlags(l.SpanContext.TraceFlags(), l.SpanContext),
		})
	}
	return p
}

// spanFlags is the W3C trace flags in the low byte plus whether the parent
// (or linked) context is remote, which is always known here.
func spanFlags(tf oteltrace.TraceFlags, ctx oteltrace.SpanContext) uint32 {
	f := uint32(tf) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)
	if ctx.IsRemote() {
		f |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	}
	return f
}

func spanKind(k oteltrace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case oteltrace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case oteltrace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case oteltrace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case oteltrace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case oteltrace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

func statusCode(c codes.Code) tracepb.Status_StatusCode {
	switch c {
	case codes.Ok:
		return tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		return tracepb.Status_STATUS_CODE_ERROR
	}
	return tracepb.Status_STATUS_CODE_UNSET
}

// unixNano is 0 for the zero time (an unset timestamp in OTLP).
func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.Before(time.Unix(0, 0)) {
		return 0
	}
	return uint64(t.UnixNano())
}

func clampCount(n int) uint32 {
	if n < 0 {
		return 0
	}
	if n > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(n)
}

func keyValues(kvs []attribute.KeyValue) []*common.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*common.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &common.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)})
	}
	return out
}

// anyValue maps every attribute type the API has, nested ones included;
// an empty value is an AnyValue with nothing set.
func anyValue(v attribute.Value) *common.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &common.AnyValue{Value: &common.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &common.AnyValue{Value: &common.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &common.AnyValue{Value: &common.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BYTESLICE:
		return &common.AnyValue{Value: &common.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), func(b bool) *common.AnyValue {
			return &common.AnyValue{Value: &common.AnyValue_BoolValue{BoolValue: b}}
		})
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), func(i int64) *common.AnyValue {
			return &common.AnyValue{Value: &common.AnyValue_IntValue{IntValue: i}}
		})
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), func(f float64) *common.AnyValue {
			return &common.AnyValue{Value: &common.AnyValue_DoubleValue{DoubleValue: f}}
		})
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), func(s string) *common.AnyValue {
			return &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: s}}
		})
	case attribute.SLICE:
		return array(v.AsSlice(), anyValue)
	case attribute.MAP:
		return &common.AnyValue{Value: &common.AnyValue_KvlistValue{KvlistValue: &common.KeyValueList{Values: keyValues(v.AsMap())}}}
	}
	return &common.AnyValue{}
}

func array[T any](vs []T, one func(T) *common.AnyValue) *common.AnyValue {
	out := make([]*common.AnyValue, len(vs))
	for i, v := range vs {
		out[i] = one(v)
	}
	return &common.AnyValue{Value: &common.AnyValue_ArrayValue{ArrayValue: &common.ArrayValue{Values: out}}}
}
