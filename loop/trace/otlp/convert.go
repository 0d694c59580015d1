package otlp

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// The request is written field by field with protowire, to the numbers of
// opentelemetry/proto (collector/trace/v1, trace/v1, common/v1,
// resource/v1). The generated message types would link the protobuf
// runtime (reflection, descriptors, ~2.4 MB of the binary) to encode one
// message shape; the tests decode every body with those types instead.
const (
	requestResourceSpans protowire.Number = 1 // ExportTraceServiceRequest

	resourceSpansResource   protowire.Number = 1
	resourceSpansScopeSpans protowire.Number = 2
	resourceSpansSchemaURL  protowire.Number = 3

	resourceAttributes protowire.Number = 1

	scopeSpansScope     protowire.Number = 1
	scopeSpansSpans     protowire.Number = 2
	scopeSpansSchemaURL protowire.Number = 3

	scopeName       protowire.Number = 1
	scopeVersion    protowire.Number = 2
	scopeAttributes protowire.Number = 3

	spanTraceID           protowire.Number = 1
	spanSpanID            protowire.Number = 2
	spanTraceState        protowire.Number = 3
	spanParentSpanID      protowire.Number = 4
	spanName              protowire.Number = 5
	spanKindField         protowire.Number = 6
	spanStart             protowire.Number = 7
	spanEnd               protowire.Number = 8
	spanAttributes        protowire.Number = 9
	spanDroppedAttributes protowire.Number = 10
	spanEvents            protowire.Number = 11
	spanDroppedEvents     protowire.Number = 12
	spanLinks             protowire.Number = 13
	spanDroppedLinks      protowire.Number = 14
	spanStatus            protowire.Number = 15
	spanFlagsField        protowire.Number = 16

	eventTime              protowire.Number = 1
	eventName              protowire.Number = 2
	eventAttributes        protowire.Number = 3
	eventDroppedAttributes protowire.Number = 4

	linkTraceID           protowire.Number = 1
	linkSpanID            protowire.Number = 2
	linkTraceState        protowire.Number = 3
	linkAttributes        protowire.Number = 4
	linkDroppedAttributes protowire.Number = 5
	linkFlags             protowire.Number = 6

	statusMessageNum protowire.Number = 2
	statusCodeNum    protowire.Number = 3

	keyValueKey   protowire.Number = 1
	keyValueValue protowire.Number = 2

	anyString protowire.Number = 1
	anyBool   protowire.Number = 2
	anyInt    protowire.Number = 3
	anyDouble protowire.Number = 4
	anyArray  protowire.Number = 5
	anyKVList protowire.Number = 6
	anyBytes  protowire.Number = 7

	listValues protowire.Number = 1 // ArrayValue and KeyValueList
)

// OTLP enum and flag values (trace/v1: Span.SpanKind, Status.StatusCode,
// SpanFlags).
const (
	kindInternal = 1 + iota
	kindServer
	kindClient
	kindProducer
	kindConsumer
)

const (
	statusOK    = 1
	statusError = 2

	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// encodeRequest returns spans as the bytes of an ExportTraceServiceRequest,
// one ResourceSpans per resource and one ScopeSpans per instrumentation
// scope within it, in the order the spans came. Strings that are not
// UTF-8 (which a collector would refuse in a proto3 string) go out with
// U+FFFD in place of the bad bytes.
func encodeRequest(spans []sdktrace.ReadOnlySpan) []byte {
	var e encoder
	for _, rg := range groupSpans(spans) {
		e.message(requestResourceSpans, func() {
			e.message(resourceSpansResource, func() { e.keyValues(resourceAttributes, rg.res.Attributes()) })
			for _, sg := range rg.scopes {
				e.message(resourceSpansScopeSpans, func() {
					e.message(scopeSpansScope, func() {
						e.str(scopeName, sg.scope.Name)
						e.str(scopeVersion, sg.scope.Version)
						e.keyValues(scopeAttributes, sg.scope.Attributes.ToSlice())
					})
					for _, s := range sg.spans {
						e.message(scopeSpansSpans, func() { e.span(s) })
					}
					e.str(scopeSpansSchemaURL, sg.scope.SchemaURL)
				})
			}
			e.str(resourceSpansSchemaURL, rg.res.SchemaURL())
		})
	}
	return e.b
}

type resourceGroup struct {
	res    *resource.Resource
	scopes []*scopeGroup
}

type scopeGroup struct {
	scope instrumentation.Scope
	spans []sdktrace.ReadOnlySpan
}

// groupSpans groups spans by resource, then by scope, in first-seen order.
func groupSpans(spans []sdktrace.ReadOnlySpan) []*resourceGroup {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	var out []*resourceGroup
	byRes := map[attribute.Distinct]*resourceGroup{}
	byScope := map[scopeKey]*scopeGroup{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		if res == nil {
			res = resource.Empty()
		}
		rk := res.Equivalent()
		rg := byRes[rk]
		if rg == nil {
			rg = &resourceGroup{res: res}
			byRes[rk] = rg
			out = append(out, rg)
		}
		sk := scopeKey{rk, s.InstrumentationScope()}
		sg := byScope[sk]
		if sg == nil {
			sg = &scopeGroup{scope: sk.scope}
			byScope[sk] = sg
			rg.scopes = append(rg.scopes, sg)
		}
		sg.spans = append(sg.spans, s)
	}
	return out
}

// encoder appends protobuf fields to b. Fields at their proto3 default are
// left out, as a generated marshaller does; messages are always written.
type encoder struct{ b []byte }

// message writes field num as a length-delimited message whose fields body
// writes. The length goes in front once it is known: one byte is reserved
// and the body moved up in the rare case the length needs more.
func (e *encoder) message(num protowire.Number, body func()) {
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	at := len(e.b)
	e.b = append(e.b, 0)
	body()
	n := len(e.b) - at - 1
	if size := protowire.SizeVarint(uint64(n)); size > 1 {
		for range size - 1 {
			e.b = append(e.b, 0)
		}
		copy(e.b[at+size:], e.b[at+1:at+1+n])
	}
	protowire.AppendVarint(e.b[at:at], uint64(n))
}

func (e *encoder) str(num protowire.Number, s string) {
	if s == "" {
		return
	}
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = protowire.AppendString(e.b, validUTF8(s))
}

func (e *encoder) bytes(num protowire.Number, v []byte) {
	if len(v) == 0 {
		return
	}
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = protowire.AppendBytes(e.b, v)
}

// varint, fixed64 and fixed32 write a number field unless it is 0.
func (e *encoder) varint(num protowire.Number, v uint64)  { e.number(num, protowire.VarintType, v) }
func (e *encoder) fixed64(num protowire.Number, v uint64) { e.number(num, protowire.Fixed64Type, v) }
func (e *encoder) fixed32(num protowire.Number, v uint32) {
	e.number(num, protowire.Fixed32Type, uint64(v))
}

func (e *encoder) number(num protowire.Number, typ protowire.Type, v uint64) {
	if v != 0 {
		e.put(num, typ, v)
	}
}

// put writes a number field, 0 included (a oneof member is written even at
// its default).
func (e *encoder) put(num protowire.Number, typ protowire.Type, v uint64) {
	e.b = protowire.AppendTag(e.b, num, typ)
	switch typ {
	case protowire.Fixed64Type:
		e.b = protowire.AppendFixed64(e.b, v)
	case protowire.Fixed32Type:
		e.b = protowire.AppendFixed32(e.b, uint32(v))
	default:
		e.b = protowire.AppendVarint(e.b, v)
	}
}

func (e *encoder) span(s sdktrace.ReadOnlySpan) {
	sc, parent := s.SpanContext(), s.Parent()
	tid, sid := sc.TraceID(), sc.SpanID()
	e.bytes(spanTraceID, tid[:])
	e.bytes(spanSpanID, sid[:])
	e.str(spanTraceState, sc.TraceState().String())
	if parent.SpanID().IsValid() {
		psid := parent.SpanID()
		e.bytes(spanParentSpanID, psid[:])
	}
	e.str(spanName, s.Name())
	e.varint(spanKindField, spanKind(s.SpanKind()))
	e.fixed64(spanStart, unixNano(s.StartTime()))
	e.fixed64(spanEnd, unixNano(s.EndTime()))
	e.keyValues(spanAttributes, s.Attributes())
	e.varint(spanDroppedAttributes, clampCount(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		e.message(spanEvents, func() {
			e.fixed64(eventTime, unixNano(ev.Time))
			e.str(eventName, ev.Name)
			e.keyValues(eventAttributes, ev.Attributes)
			e.varint(eventDroppedAttributes, clampCount(ev.DroppedAttributeCount))
		})
	}
	e.varint(spanDroppedEvents, clampCount(s.DroppedEvents()))
	for _, l := range s.Links() {
		e.message(spanLinks, func() {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			e.bytes(linkTraceID, ltid[:])
			e.bytes(linkSpanID, lsid[:])
			e.str(linkTraceState, l.SpanContext.TraceState().String())
			e.keyValues(linkAttributes, l.Attributes)
			e.varint(linkDroppedAttributes, clampCount(l.DroppedAttributeCount))
			e.fixed32(linkFlags, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	e.varint(spanDroppedLinks, clampCount(s.DroppedLinks()))
	st := s.Status()
	e.message(spanStatus, func() {
		e.str(statusMessageNum, st.Description)
		e.varint(statusCodeNum, statusCode(st.Code))
	})
	e.fixed32(spanFlagsField, spanFlags(sc.TraceFlags(), parent))
}

// spanFlags is the W3C trace flags in the low byte plus whether the parent
// (or linked) context is remote, which is always known here.
func spanFlags(tf oteltrace.TraceFlags, ctx oteltrace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if ctx.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

func spanKind(k oteltrace.SpanKind) uint64 {
	switch k {
	case oteltrace.SpanKindInternal:
		return kindInternal
	case oteltrace.SpanKindServer:
		return kindServer
	case oteltrace.SpanKindClient:
		return kindClient
	case oteltrace.SpanKindProducer:
		return kindProducer
	case oteltrace.SpanKindConsumer:
		return kindConsumer
	}
	return 0
}

func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return statusOK
	case codes.Error:
		return statusError
	}
	return 0
}

// unixNano is 0 for the zero time (an unset timestamp in OTLP).
func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.Before(time.Unix(0, 0)) {
		return 0
	}
	return uint64(t.UnixNano())
}

func clampCount(n int) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(min(n, math.MaxUint32))
}

// keyValues writes each attribute as a KeyValue in field num.
func (e *encoder) keyValues(num protowire.Number, kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		e.message(num, func() {
			e.str(keyValueKey, string(kv.Key))
			e.message(keyValueValue, func() { e.anyValue(kv.Value) })
		})
	}
}

// anyValue writes the fields of an AnyValue for every attribute type the
// API has, nested ones included; an empty value is an AnyValue with
// nothing set.
func (e *encoder) anyValue(v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		e.boolValue(v.AsBool())
	case attribute.INT64:
		e.intValue(v.AsInt64())
	case attribute.FLOAT64:
		e.doubleValue(v.AsFloat64())
	case attribute.STRING:
		e.stringValue(v.AsString())
	case attribute.BYTESLICE:
		e.b = protowire.AppendTag(e.b, anyBytes, protowire.BytesType)
		e.b = protowire.AppendBytes(e.b, v.AsByteSlice())
	case attribute.BOOLSLICE:
		array(e, v.AsBoolSlice(), e.boolValue)
	case attribute.INT64SLICE:
		array(e, v.AsInt64Slice(), e.intValue)
	case attribute.FLOAT64SLICE:
		array(e, v.AsFloat64Slice(), e.doubleValue)
	case attribute.STRINGSLICE:
		array(e, v.AsStringSlice(), e.stringValue)
	case attribute.SLICE:
		array(e, v.AsSlice(), e.anyValue)
	case attribute.MAP:
		e.message(anyKVList, func() { e.keyValues(listValues, v.AsMap()) })
	}
}

func (e *encoder) boolValue(b bool) { e.put(anyBool, protowire.VarintType, protowire.EncodeBool(b)) }
func (e *encoder) intValue(i int64) { e.put(anyInt, protowire.VarintType, uint64(i)) }
func (e *encoder) doubleValue(f float64) {
	e.put(anyDouble, protowire.Fixed64Type, math.Float64bits(f))
}

func (e *encoder) stringValue(s string) {
	e.b = protowire.AppendTag(e.b, anyString, protowire.BytesType)
	e.b = protowire.AppendString(e.b, validUTF8(s))
}

// array writes an ArrayValue of vs, each element an AnyValue that one
// writes the fields of.
func array[T any](e *encoder, vs []T, one func(T)) {
	e.message(anyArray, func() {
		for _, v := range vs {
			e.message(listValues, func() { one(v) })
		}
	})
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
