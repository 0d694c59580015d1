package otlp

import (
	"math"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	sdktracetest "go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"
	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// diff is "" when the messages are equal, else both of them.
func diff(want, got proto.Message) string {
	if proto.Equal(want, got) {
		return ""
	}
	return "want " + prototext.Format(want) + "\ngot  " + prototext.Format(got)
}

func sc(t, s byte, remote bool) oteltrace.SpanContext {
	return oteltrace.NewSpanContext(oteltrace.SpanContextConfig{
		TraceID: oteltrace.TraceID{t, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
		SpanID:  oteltrace.SpanID{s, 1, 2, 3, 4, 5, 6, 7}, TraceFlags: oteltrace.FlagsSampled, Remote: remote,
	})
}

func str(s string) *common.AnyValue {
	return &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: s}}
}
func i64(i int64) *common.AnyValue {
	return &common.AnyValue{Value: &common.AnyValue_IntValue{IntValue: i}}
}
func arr(vs ...*common.AnyValue) *common.AnyValue {
	return &common.AnyValue{Value: &common.AnyValue_ArrayValue{ArrayValue: &common.ArrayValue{Values: vs}}}
}

// decode reads a body the way a collector does: with the collector's own
// request type, which this package must not import outside tests.
func decode(t *testing.T, body []byte) *collector.ExportTraceServiceRequest {
	t.Helper()
	var req collector.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Fatalf("not an ExportTraceServiceRequest: %v", err)
	}
	return &req
}

// TestEncodeRequestMapsEverySpanField: a span with every field set comes
// out of the collector's decoder as the OTLP span it stands for.
func TestEncodeRequestMapsEverySpanField(t *testing.T) {
	start := time.Unix(1700000000, 123456789)
	res := resource.NewSchemaless(attribute.String("service.name", "talaria"), attribute.String("service.version", "1.2"))
	scope := instrumentation.Scope{Name: "talaria/loop/trace", Version: "v1", SchemaURL: "https://opentelemetry.io/schemas/1.26.0",
		Attributes: attribute.NewSet(attribute.Bool("scoped", true))}
	stub := sdktracetest.SpanStub{
		Name: "chat gpt", SpanContext: sc(1, 2, false), Parent: sc(1, 3, true), SpanKind: oteltrace.SpanKindClient,
		StartTime: start, EndTime: start.Add(1500 * time.Millisecond),
		Attributes: []attribute.KeyValue{
			attribute.String("s", "v"), attribute.Bool("b", true), attribute.Int64("i", -7), attribute.Float64("f", 0.5),
			attribute.StringSlice("ss", []string{"stop", "length"}), attribute.BoolSlice("bs", []bool{true, false}),
			attribute.Int64Slice("is", []int64{1, math.MaxInt64}), attribute.Float64Slice("fs", []float64{1.5}),
			{Key: "bytes", Value: attribute.ByteSliceValue([]byte{0, 1})},
			{Key: "map", Value: attribute.MapValue(attribute.Int("n", 1))},
			{Key: "list", Value: attribute.SliceValue(attribute.StringValue("x"), attribute.IntValue(2))},
		},
		Events: []sdktrace.Event{{Name: "retry_wait", Time: start.Add(time.Millisecond),
			Attributes: []attribute.KeyValue{attribute.String("talaria.reason", "rate_limit")}, DroppedAttributeCount: 1}},
		Links:             []sdktrace.Link{{SpanContext: sc(9, 9, false), Attributes: []attribute.KeyValue{attribute.Int("l", 1)}}},
		Status:            sdktrace.Status{Code: codes.Error, Description: "rate_limit"},
		DroppedAttributes: 2, DroppedEvents: 3, DroppedLinks: 4,
		Resource: res, InstrumentationScope: scope,
	}
	body := encodeRequest([]sdktrace.ReadOnlySpan{stub.Snapshot()})
	req := decode(t, body)
	if len(req.ResourceSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans[0].Spans) != 1 {
		t.Fatalf("shape %v", req)
	}
	rs := req.ResourceSpans[0]
	ss := rs.ScopeSpans[0]
	wantRes := []*common.KeyValue{{Key: "service.name", Value: str("talaria")}, {Key: "service.version", Value: str("1.2")}}
	if d := diff(&resourcepb.Resource{Attributes: wantRes}, rs.Resource); d != "" {
		t.Fatalf("resource: %s", d)
	}
	wantScope := &common.InstrumentationScope{Name: "talaria/loop/trace", Version: "v1",
		Attributes: []*common.KeyValue{{Key: "scoped", Value: &common.AnyValue{Value: &common.AnyValue_BoolValue{BoolValue: true}}}}}
	if d := diff(wantScope, ss.Scope); d != "" || ss.SchemaUrl != scope.SchemaURL {
		t.Fatalf("scope %q: %s", ss.SchemaUrl, d)
	}
	tid, sid, pid, lid := sc(1, 2, false).TraceID(), sc(1, 2, false).SpanID(), sc(1, 3, true).SpanID(), sc(9, 9, false)
	ltid, lsid := lid.TraceID(), lid.SpanID()
	want := &tracepb.Span{
		TraceId: tid[:], SpanId: sid[:], ParentSpanId: pid[:],
		Flags: 1 | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK|tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK),
		Name:  "chat gpt", Kind: tracepb.Span_SPAN_KIND_CLIENT,
		StartTimeUnixNano: uint64(start.UnixNano()), EndTimeUnixNano: uint64(start.Add(1500 * time.Millisecond).UnixNano()),
		Attributes: []*common.KeyValue{
			{Key: "s", Value: str("v")},
			{Key: "b", Value: &common.AnyValue{Value: &common.AnyValue_BoolValue{BoolValue: true}}},
			{Key: "i", Value: i64(-7)},
			{Key: "f", Value: &common.AnyValue{Value: &common.AnyValue_DoubleValue{DoubleValue: 0.5}}},
			{Key: "ss", Value: arr(str("stop"), str("length"))},
			{Key: "bs", Value: arr(&common.AnyValue{Value: &common.AnyValue_BoolValue{BoolValue: true}}, &common.AnyValue{Value: &common.AnyValue_BoolValue{}})},
			{Key: "is", Value: arr(i64(1), i64(math.MaxInt64))},
			{Key: "fs", Value: arr(&common.AnyValue{Value: &common.AnyValue_DoubleValue{DoubleValue: 1.5}})},
			{Key: "bytes", Value: &common.AnyValue{Value: &common.AnyValue_BytesValue{BytesValue: []byte{0, 1}}}},
			{Key: "map", Value: &common.AnyValue{Value: &common.AnyValue_KvlistValue{KvlistValue: &common.KeyValueList{Values: []*common.KeyValue{{Key: "n", Value: i64(1)}}}}}},
			{Key: "list", Value: arr(str("x"), i64(2))},
		},
		DroppedAttributesCount: 2, DroppedEventsCount: 3, DroppedLinksCount: 4,
		Events: []*tracepb.Span_Event{{TimeUnixNano: uint64(start.Add(time.Millisecond).UnixNano()), Name: "retry_wait",
			Attributes: []*common.KeyValue{{Key: "talaria.reason", Value: str("rate_limit")}}, DroppedAttributesCount: 1}},
		Links: []*tracepb.Span_Link{{TraceId: ltid[:], SpanId: lsid[:], Attributes: []*common.KeyValue{{Key: "l", Value: i64(1)}},
			Flags: 1 | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)}},
		Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "rate_limit"},
	}
	if d := diff(want, ss.Spans[0]); d != "" {
		t.Fatalf("span:\n%s", d)
	}
}

// TestEncodeRequestGroupsByResourceAndScope: spans of two scopes under
// one resource and one of another resource make two ResourceSpans, the
// first with two ScopeSpans, in the order the spans came; a root span has
// no parent id and an unended one no end time.
func TestEncodeRequestGroupsByResourceAndScope(t *testing.T) {
	r1 := resource.NewSchemaless(attribute.String("service.name", "a"))
	r1again := resource.NewSchemaless(attribute.String("service.name", "a"))
	r2 := resource.NewSchemaless(attribute.String("service.name", "b"))
	mk := func(name string, r *resource.Resource, scope string) sdktrace.ReadOnlySpan {
		return sdktracetest.SpanStub{Name: name, SpanContext: sc(1, byte(len(name)), false), Resource: r,
			InstrumentationScope: instrumentation.Scope{Name: scope}, StartTime: time.Unix(1, 0)}.Snapshot()
	}
	body := encodeRequest([]sdktrace.ReadOnlySpan{mk("x", r1, "s1"), mk("yy", r2, "s1"), mk("zzz", r1again, "s2"), mk("wwww", r1, "s1"), nil})
	req := decode(t, body)
	var got []string
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				got = append(got, rs.Resource.Attributes[0].Value.GetStringValue()+"/"+ss.Scope.Name+"/"+s.Name)
				if s.ParentSpanId != nil || s.EndTimeUnixNano != 0 || s.Kind != tracepb.Span_SPAN_KIND_UNSPECIFIED || s.Status.GetCode() != tracepb.Status_STATUS_CODE_UNSET {
					t.Fatalf("span %v", s)
				}
			}
		}
	}
	if strings.Join(got, " ") != "a/s1/x a/s1/wwww a/s2/zzz b/s1/yy" {
		t.Fatalf("grouping %v", got)
	}
	if empty := encodeRequest(nil); len(empty) != 0 || len(decode(t, empty).ResourceSpans) != 0 {
		t.Fatalf("no spans: %q", empty)
	}
}

// TestTheBinaryLinksNoGRPC guards why this package writes the request
// itself: the collector package would link grpc, grpc-gateway and genproto
// (+8 MB), and the generated OTLP types the protobuf runtime (+2.4 MB);
// protowire, which writes the fields, links none of it.
func TestTheBinaryLinksNoGRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	out, err := exec.Command(goTool, "list", "-deps", "talaria").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "grpc") || strings.Contains(p, "genproto") || strings.HasPrefix(p, "go.opentelemetry.io/proto/otlp/collector") ||
			strings.HasPrefix(p, "go.opentelemetry.io/otel/exporters") || strings.HasPrefix(p, "go.opentelemetry.io/proto") ||
			p == "google.golang.org/protobuf/proto" || strings.HasPrefix(p, "google.golang.org/protobuf/reflect") {
			t.Errorf("the binary links %s", p)
		}
	}
}

// TestEncodeRequestRepairsInvalidUTF8: model text in an attribute can hold
// bytes that are not UTF-8, which a collector refuses in a proto3 string
// (and would drop the whole batch for); they go out as U+FFFD, the rest as
// written, and a long value's length prefix spans several bytes.
func TestEncodeRequestRepairsInvalidUTF8(t *testing.T) {
	long := strings.Repeat("é", 70000)
	stub := sdktracetest.SpanStub{Name: "chat \xffmodel", SpanContext: sc(1, 2, false), StartTime: time.Unix(1, 0),
		Attributes: []attribute.KeyValue{attribute.String("gen_ai.output", "ok\xc3("), attribute.String("long", long)}}
	body := encodeRequest([]sdktrace.ReadOnlySpan{stub.Snapshot()})
	s := decode(t, body).ResourceSpans[0].ScopeSpans[0].Spans[0]
	if s.Name != "chat \uFFFDmodel" || s.Attributes[0].Value.GetStringValue() != "ok\uFFFD(" || s.Attributes[1].Value.GetStringValue() != long {
		t.Fatalf("span %q attrs %q", s.Name, s.Attributes[0].Value.GetStringValue())
	}
}

// FuzzEncodeRequest: whatever text the model puts in a span (its name, an
// attribute, an event, bytes of any length), the body is one the
// collector's decoder reads, with each string as sent once made UTF-8.
func FuzzEncodeRequest(f *testing.F) {
	f.Add("chat m", "gen_ai.output", "hello", []byte{0, 1}, int64(-1))
	f.Add("\xff\xfe", "", "\xc3(", []byte(nil), int64(0))
	f.Add(strings.Repeat("x", 200), "k", strings.Repeat("é", 300), make([]byte, 130), int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, name, key, value string, raw []byte, n int64) {
		stub := sdktracetest.SpanStub{Name: name, SpanContext: sc(1, 2, false), StartTime: time.Unix(1, 0),
			Attributes: []attribute.KeyValue{attribute.String(key, value), {Key: "raw", Value: attribute.ByteSliceValue(raw)},
				attribute.Int64("n", n), attribute.StringSlice("list", []string{value, name})},
			Events: []sdktrace.Event{{Name: value, Time: time.Unix(2, 0)}}}
		body := encodeRequest([]sdktrace.ReadOnlySpan{stub.Snapshot()})
		s := decode(t, body).ResourceSpans[0].ScopeSpans[0].Spans[0]
		fix := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
		got := s.Attributes
		if s.Name != fix(name) || s.Events[0].Name != fix(value) || got[0].Key != fix(key) || got[0].Value.GetStringValue() != fix(value) ||
			string(got[1].Value.GetBytesValue()) != string(raw) || got[2].Value.GetIntValue() != n ||
			got[3].Value.GetArrayValue().GetValues()[1].GetStringValue() != fix(name) {
			t.Fatalf("round trip: %v", s)
		}
	})
}
