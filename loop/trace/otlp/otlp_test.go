package otlp_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"talaria/loop/trace"
	"talaria/loop/trace/otlp"
	"talaria/loop/trace/tracetest"
)

// receiver is an OTLP/HTTP collector: it decodes the protobuf export
// requests and keeps their spans.
type receiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	ctype string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req collector.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.ctype = r.Header.Get("Content-Type")
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	rc.mu.Unlock()
	b, _ := proto.Marshal(&collector.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

func attrs(s *tracepb.Span) map[string]*common.AnyValue {
	out := map[string]*common.AnyValue{}
	for _, kv := range s.Attributes {
		out[kv.Key] = kv.Value
	}
	return out
}

func exportScripted(t *testing.T, logContent bool) []*tracepb.Span {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	exp, err := otlp.NewExporter(otlp.ExporterOptions{Endpoint: srv.URL, LogContent: logContent, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	l := tracetest.ScriptedTurn(t)
	exp.Export(l)
	if err := exp.Shutdown(); err != nil {
		t.Fatalf("flush: %v", err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.ctype != "application/x-protobuf" {
		t.Fatalf("content type %q", rc.ctype)
	}
	return rc.spans
}

func TestOTelSpansFollowTheGenAIConventions(t *testing.T) {
	spans := exportScripted(t, false)
	byName := map[string][]*tracepb.Span{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
	}
	root := byName["invoke_agent"]
	if len(root) != 1 || len(byName["chat gpt-test"]) != 3 || len(byName["execute_tool read_file"]) != 3 || len(spans) != 7 {
		t.Fatalf("span names: %v", byName)
	}
	r := root[0]
	if len(r.ParentSpanId) != 0 || attrs(r)["gen_ai.conversation.id"].GetStringValue() != "s1" || attrs(r)["gen_ai.operation.name"].GetStringValue() != "invoke_agent" {
		t.Fatalf("root span %v", r)
	}
	for _, s := range spans {
		if s == r {
			continue
		}
		if string(s.TraceId) != string(r.TraceId) || string(s.ParentSpanId) != string(r.SpanId) {
			t.Fatalf("%s is not a child of invoke_agent", s.Name)
		}
		if s.StartTimeUnixNano < r.StartTimeUnixNano || s.EndTimeUnixNano > r.EndTimeUnixNano || s.EndTimeUnixNano < s.StartTimeUnixNano {
			t.Fatalf("%s [%d,%d] outside its turn [%d,%d]", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano, r.StartTimeUnixNano, r.EndTimeUnixNano)
		}
		if attrs(s)["gen_ai.conversation.id"].GetStringValue() != "s1" {
			t.Fatalf("%s without gen_ai.conversation.id", s.Name)
		}
	}
	chats := byName["chat gpt-test"]
	failed, ok := attrs(chats[0]), attrs(chats[2])
	if failed["error.type"].GetStringValue() != "rate_limit" || chats[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Fatalf("the 429 attempt: %v", chats[0])
	}
	if ok["gen_ai.operation.name"].GetStringValue() != "chat" || ok["gen_ai.provider.name"].GetStringValue() != "openai" ||
		ok["gen_ai.request.model"].GetStringValue() != "gpt-test" || ok["gen_ai.response.model"].GetStringValue() != "test-model" ||
		ok["gen_ai.usage.input_tokens"].GetIntValue() != 10 || ok["gen_ai.usage.output_tokens"].GetIntValue() != 1 ||
		ok["gen_ai.response.finish_reasons"].GetArrayValue().GetValues()[0].GetStringValue() != "stop" || ok["error.type"] != nil {
		t.Fatalf("the answering attempt: %v", chats[2].Attributes)
	}
	ids := map[string]bool{}
	for _, s := range byName["execute_tool read_file"] {
		a := attrs(s)
		if a["gen_ai.tool.name"].GetStringValue() != "read_file" || a["gen_ai.operation.name"].GetStringValue() != "execute_tool" {
			t.Fatalf("tool span %v", s.Attributes)
		}
		ids[a["gen_ai.tool.call.id"].GetStringValue()] = true
	}
	if !ids["call_1"] || !ids["call_2"] || !ids["call_3"] {
		t.Fatalf("tool call ids %v", ids)
	}
	for _, s := range spans {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.GetStringValue(), "read the three files") || strings.Contains(kv.Value.GetStringValue(), "done") && kv.Key != "talaria.exit_reason" {
				t.Fatalf("content exported without log_content: %s=%v", kv.Key, kv.Value)
			}
		}
	}
}

func TestOTelLogContentAddsTheText(t *testing.T) {
	for _, s := range exportScripted(t, true) {
		if s.Name == "invoke_agent" {
			if attrs(s)["gen_ai.input.messages"].GetStringValue() != "read the three files" || attrs(s)["gen_ai.output.messages"].GetStringValue() != "done" {
				t.Fatalf("turn span with log_content: %v", s.Attributes)
			}
			return
		}
	}
	t.Fatal("no invoke_agent span")
}

// blockingTransport holds every export until the request gives up.
type blockingTransport struct{ entered chan struct{} }

func (b blockingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// TestOTelSlowCollectorCostsATurnNothing: Export only queues (it returns
// while the collector holds the connection), and Shutdown is bounded by its
// deadline rather than by the collector.
func TestOTelSlowCollectorCostsATurnNothing(t *testing.T) {
	bt := blockingTransport{entered: make(chan struct{}, 1)}
	exp, err := otlp.NewExporter(otlp.ExporterOptions{Endpoint: "http://collector.invalid:4318", HTTPClient: &http.Client{Transport: bt}})
	if err != nil {
		t.Fatal(err)
	}
	l := &trace.Log{SessionID: "s", Turn: 1, Spans: []trace.Span{{Kind: trace.KindAttempt, Name: "chat m", Model: "m", Status: "ok"}}}
	for range 10 {
		exp.Export(l) // a synchronous export would hang here
	}
	if err := exp.Shutdown(); err == nil {
		t.Fatal("a flush to a collector that never answers reported success")
	}
}

func TestOTelClosedPortFailsTheFlushOnly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	exp, err := otlp.NewExporter(otlp.ExporterOptions{Endpoint: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	exp.Export(tracetest.ScriptedTurn(t))
	if err := exp.Shutdown(); err == nil {
		t.Fatal("a flush to a closed port reported success")
	}
}

// BenchmarkExporterPerSpan is the cost on the turn's side of exporting one
// span (building it and queueing it; the network is the batcher's).
func BenchmarkExporterPerSpan(b *testing.B) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	exp, err := otlp.NewExporter(otlp.ExporterOptions{Endpoint: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	defer exp.Shutdown()
	l := &trace.Log{SessionID: "s", Turn: 1}
	for i := range 20 {
		l.Spans = append(l.Spans, trace.Span{Kind: trace.KindTool, Name: "read_file", ID: "call", StartMS: float64(i), DurMS: 1, Status: "ok"})
	}
	b.ResetTimer()
	for range b.N {
		exp.Export(l)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(len(l.Spans)+1)), "ns/span")
}
