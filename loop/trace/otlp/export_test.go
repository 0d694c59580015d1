package otlp

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	sdktracetest "go.opentelemetry.io/otel/sdk/trace/tracetest"
	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"talaria/loop/trace"
)

func oneTurn() *trace.Log {
	return &trace.Log{SessionID: "s", Turn: 1, Spans: []trace.Span{{Kind: trace.KindAttempt, Model: "m", Status: "ok"}}}
}

// answering is a collector that gives every export the same answer.
func answering(status int, ctype string, body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestCollectorRefusalsAreReportedAtShutdown: a non-2xx answer, in
// OTLP's google.rpc.Status or in plain text, and a partial success are
// each kept (never printed) and come back from Shutdown with the
// collector's message and the number of spans lost.
func TestCollectorRefusalsAreReportedAtShutdown(t *testing.T) {
	var status []byte
	status = protowire.AppendTag(status, 1, protowire.VarintType)
	status = protowire.AppendVarint(status, 3)
	status = protowire.AppendTag(status, 2, protowire.BytesType)
	status = protowire.AppendString(status, "span 2 has\nno trace id")
	partial, _ := proto.Marshal(&collector.ExportTraceServiceResponse{PartialSuccess: &collector.ExportTracePartialSuccess{RejectedSpans: 1, ErrorMessage: "too old"}})
	for _, c := range []struct {
		name, ctype string
		status      int
		body        []byte
		want        string
	}{
		{"status", "application/x-protobuf", 400, status, "2 span(s) not exported: collector answered 400 Bad Request: span 2 has no trace id"},
		{"text", "text/plain", 503, []byte(strings.Repeat("overloaded ", 100)), "2 span(s) not exported: collector answered 503 Service Unavailable: overloaded overloaded"},
		{"empty", "text/plain", 404, nil, "collector answered 404 Not Found"},
		{"partial", "application/x-protobuf", 200, partial, "1 span(s) not exported: collector rejected 1 span(s): too old"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := answering(c.status, c.ctype, c.body)
			defer srv.Close()
			exp, err := NewExporter(ExporterOptions{Endpoint: srv.URL, Getenv: envOf(nil)})
			if err != nil {
				t.Fatal(err)
			}
			exp.Export(oneTurn()) // invoke_agent + chat m
			err = exp.Shutdown()
			if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 400 {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestStandardEnvironmentReachesTheCollector: headers (percent-decoded,
// the traces-specific variable winning) and gzip from the OTEL_EXPORTER_
// variables arrive with a body the collector decodes.
func TestStandardEnvironmentReachesTheCollector(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	var spans int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body, _ := io.ReadAll(zr)
		var req collector.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		got = r.Header.Clone()
		spans += len(req.ResourceSpans[0].ScopeSpans[0].Spans)
		mu.Unlock()
	}))
	defer srv.Close()
	exp, err := NewExporter(ExporterOptions{Endpoint: srv.URL + "/", Version: "1.0", Getenv: envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":            "x-general=lost",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":     "api-key=a%2Cb%3Dc+d, x-team = t ,",
		"OTEL_EXPORTER_OTLP_COMPRESSION":        "none",
		"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "GZIP",
	})})
	if err != nil {
		t.Fatal(err)
	}
	exp.Export(oneTurn())
	if err := exp.Shutdown(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if spans != 2 || got.Get("Api-Key") != "a,b=c+d" || got.Get("X-Team") != "t" || got.Get("X-General") != "" ||
		got.Get("Content-Encoding") != "gzip" || got.Get("Content-Type") != "application/x-protobuf" || got.Get("User-Agent") != "talaria/1.0" {
		t.Fatalf("%d spans, headers %v", spans, got)
	}
}

// TestMalformedEnvironmentNamesTheVariable: each bad setting is an error
// naming its variable (exit 2 upstream) and never echoing a header value.
func TestMalformedEnvironmentNamesTheVariable(t *testing.T) {
	for _, c := range []struct{ k, v, want string }{
		{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=ok,sk-secret-token", "OTEL_EXPORTER_OTLP_HEADERS: entry 2"},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "bad key=sk-secret-token", "OTEL_EXPORTER_OTLP_TRACES_HEADERS: entry 1"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "k=sk-secret-token%0d%0aX-Evil: 1", "OTEL_EXPORTER_OTLP_HEADERS: entry 1"},
		{"OTEL_EXPORTER_OTLP_COMPRESSION", "brotli", "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{"OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem", "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "/nonexistent/c.pem", "OTEL_EXPORTER_OTLP_CLIENT_KEY go together"},
	} {
		_, err := NewExporter(ExporterOptions{Endpoint: "http://127.0.0.1:1", Getenv: envOf(map[string]string{c.k: c.v})})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s=%q: %v, want %q", c.k, c.v, err, c.want)
		}
	}
}

// TestAnswersAreDrainedAndTheConnectionReused: a collector's long answer
// is read off and closed, so the next batch goes on the same connection.
func TestAnswersAreDrainedAndTheConnectionReused(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.Repeat("{}", 100000)))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	e := &httpExporter{url: srv.URL + "/v1/traces", client: &http.Client{}, userAgent: "t"}
	spans := []sdktrace.ReadOnlySpan{sdktracetest.SpanStub{Name: "x", Resource: resource.NewSchemaless(attribute.String("service.name", "t"))}.Snapshot()}
	for range 3 {
		if err := e.ExportSpans(context.Background(), spans); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 3 exports", n)
	}
	_ = e.Shutdown(context.Background())
	if err := e.ExportSpans(context.Background(), spans); err == nil {
		t.Fatal("an export after Shutdown went out")
	}
}

// discard is a collector that reads and drops each request.
func discard() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
}

// benchSpans is one 512-span batch of finished tool spans as the SDK
// hands them to the exporter.
func benchSpans(b *testing.B) []sdktrace.ReadOnlySpan {
	rec := sdktracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "talaria"))))
	x := &Exporter{tp: tp, tracer: tp.Tracer("talaria/loop/trace")}
	l := &trace.Log{SessionID: "s", Turn: 1}
	for i := range maxBatch - 1 {
		l.Spans = append(l.Spans, trace.Span{Kind: trace.KindTool, Name: "read_file", ID: "call", StartMS: float64(i), DurMS: 1, Status: "ok"})
	}
	x.Export(l)
	ended := rec.Ended()
	if len(ended) != maxBatch {
		b.Fatalf("%d spans", len(ended))
	}
	return ended
}

// BenchmarkEncodePerSpan is the batcher-side cost of turning spans into
// the request body.
func BenchmarkEncodePerSpan(b *testing.B) {
	spans := benchSpans(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = encodeRequest(spans)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
}

// BenchmarkExportSpansPerSpan is the whole batcher-side cost per span:
// encoding and the POST to a local collector.
func BenchmarkExportSpansPerSpan(b *testing.B) {
	spans := benchSpans(b)
	srv := discard()
	defer srv.Close()
	e := &httpExporter{url: srv.URL + "/v1/traces", client: &http.Client{}, userAgent: "bench"}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := e.ExportSpans(context.Background(), spans); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
}

// FuzzCollectorAnswer: whatever a collector answers, reading it neither
// panics nor lets more than one short, valid line into an error.
func FuzzCollectorAnswer(f *testing.F) {
	partial, _ := proto.Marshal(&collector.ExportTraceServiceResponse{PartialSuccess: &collector.ExportTracePartialSuccess{RejectedSpans: 3, ErrorMessage: "x"}})
	f.Add(partial)
	f.Add([]byte{0x12, 0x05, 'h', 'e', 'l', 'l', 'o'})
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, pm := partialSuccess(b)
		for _, s := range []string{clip(statusMessage(b)), clip(pm), clip(string(b))} {
			if len(s) > maxMessage+len("…") || !utf8.ValidString(s) || strings.ContainsAny(s, "\r\n") {
				t.Fatalf("clipped to %q", s)
			}
		}
	})
}
