// Package otlp exports each finished turn's span log (loop/trace) as
// OpenTelemetry traces over OTLP/HTTP, following the GenAI semantic
// conventions.
package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"talaria/loop/trace"
)

// Exporter bounds: the queue drops spans rather than block a turn, a batch
// export gives up after exportTimeout, and Shutdown waits at most
// FlushTimeout.
const (
	maxQueue      = 4096
	maxBatch      = 512
	batchTimeout  = 2 * time.Second
	exportTimeout = 2 * time.Second
	// FlushTimeout is the longest exit waits for the last spans to go.
	FlushTimeout = 2 * time.Second
)

// ExporterOptions configures the OpenTelemetry export.
type ExporterOptions struct {
	// Endpoint is the collector's base URL ({Endpoint}/v1/traces), or the
	// full traces URL when it already ends in /v1/traces.
	Endpoint string
	// LogContent adds the user's message and the final answer to the turn
	// span (gen_ai.input.messages / gen_ai.output.messages).
	LogContent bool
	// Version is talaria's version (service.version).
	Version string
	// HTTPClient, when set, carries the export (tests); the default has
	// the export timeout and the environment's proxy.
	HTTPClient *http.Client
	// Getenv reads the OTEL_EXPORTER_OTLP_* settings; nil is os.Getenv.
	Getenv func(string) string
}

// Exporter turns each finished turn's span log into OpenTelemetry spans
// following the GenAI semantic conventions: invoke_agent per turn, chat
// MODEL per API attempt, execute_tool NAME per tool call. Spans are built
// with their recorded times at the end of a turn and handed to a batching
// processor with a bounded queue: a slow or absent collector costs a turn
// nothing.
type Exporter struct {
	tp         *sdktrace.TracerProvider
	tracer     oteltrace.Tracer
	logContent bool
	quiet      *quietExporter
}

// quietExporter keeps export failures to itself: the SDK would report them
// through its process-wide handler, onto the user's terminal. The last one
// is what Shutdown returns.
type quietExporter struct {
	sdktrace.SpanExporter
	mu     sync.Mutex
	err    error
	failed int
}

// ExportSpans implements sdktrace.SpanExporter.
func (q *quietExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := q.SpanExporter.ExportSpans(ctx, spans); err != nil {
		n := len(spans)
		if pe := (*partialError)(nil); errors.As(err, &pe) {
			n = int(min(pe.rejected, int64(n)))
		}
		q.mu.Lock()
		q.err, q.failed = err, q.failed+n
		q.mu.Unlock()
	}
	return nil
}

// NewExporter starts the exporter (no connection is made until the first
// batch goes out). Besides the endpoint it honours the standard
// OTEL_EXPORTER_OTLP_[TRACES_]HEADERS, _COMPRESSION, _CERTIFICATE,
// _CLIENT_CERTIFICATE and _CLIENT_KEY; a malformed one is an error naming
// it.
func NewExporter(o ExporterOptions) (*Exporter, error) {
	u := strings.TrimRight(o.Endpoint, "/")
	if !strings.HasSuffix(u, "/v1/traces") {
		u += "/v1/traces"
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	env, err := readEnv(getenv)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	client := o.HTTPClient
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if env.tls != nil {
			tr.TLSClientConfig = env.tls
		}
		client = &http.Client{Transport: tr, Timeout: exportTimeout}
	}
	version := o.Version
	if version == "" {
		version = "dev"
	}
	exp := &httpExporter{url: u, client: client, headers: env.headers, gzip: env.gzip, userAgent: "talaria/" + version}
	res := resource.NewSchemaless(attribute.String("service.name", "talaria"), attribute.String("service.version", o.Version))
	quiet := &quietExporter{SpanExporter: exp}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithBatcher(quiet,
			sdktrace.WithMaxQueueSize(maxQueue),
			sdktrace.WithMaxExportBatchSize(maxBatch),
			sdktrace.WithBatchTimeout(batchTimeout),
			sdktrace.WithExportTimeout(exportTimeout)),
	)
	return &Exporter{tp: tp, tracer: tp.Tracer("talaria/loop/trace"), logContent: o.LogContent, quiet: quiet}, nil
}

// Export emits the spans of one finished turn; it never blocks on the
// network.
func (x *Exporter) Export(l *trace.Log) {
	at := func(offMS float64) time.Time { return l.Start.Add(time.Duration(offMS * float64(time.Millisecond))) }
	conv := attribute.String("gen_ai.conversation.id", l.SessionID)
	turnAttrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "talaria"),
		conv,
		attribute.Int("talaria.turn", l.Turn),
		attribute.String("talaria.exit_reason", l.ExitReason),
		attribute.Int("talaria.api_attempts", l.Attempts),
	}
	if x.logContent {
		turnAttrs = append(turnAttrs, attribute.String("gen_ai.input.messages", l.Input), attribute.String("gen_ai.output.messages", l.Output))
	}
	ctx, root := x.tracer.Start(context.Background(), "invoke_agent", oteltrace.WithTimestamp(l.Start),
		oteltrace.WithSpanKind(oteltrace.SpanKindInternal), oteltrace.WithAttributes(turnAttrs...))
	if !l.Completed {
		root.SetStatus(codes.Error, l.ExitReason)
		root.SetAttributes(attribute.String("error.type", l.ExitReason))
	}
	for _, s := range l.Spans {
		switch s.Kind {
		case trace.KindAttempt:
			x.attempt(ctx, s, at, conv)
		case trace.KindTool:
			x.tool(ctx, s, at, conv)
		case trace.KindRetryWait, trace.KindFallback, trace.KindRotation, trace.KindSteer, trace.KindCompression, trace.KindApproval:
			root.AddEvent(s.Kind, oteltrace.WithTimestamp(at(s.StartMS)), oteltrace.WithAttributes(
				attribute.String("talaria.reason", s.Reason), attribute.Float64("talaria.dur_ms", s.DurMS)))
		}
	}
	root.End(oteltrace.WithTimestamp(at(l.DurMS)))
}

func (x *Exporter) attempt(ctx context.Context, s trace.Span, at func(float64) time.Time, conv attribute.KeyValue) {
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", s.Provider),
		attribute.String("gen_ai.request.model", s.Model),
		conv,
		attribute.Int("talaria.attempt", s.Attempt),
		attribute.Int("talaria.iteration", s.Iteration),
	}
	if s.ResponseModel != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.model", s.ResponseModel))
	}
	if s.Status == "ok" {
		attrs = append(attrs, attribute.Int("gen_ai.usage.input_tokens", s.InputTokens), attribute.Int("gen_ai.usage.output_tokens", s.OutputTokens))
	}
	if s.FinishReason != "" {
		attrs = append(attrs, attribute.StringSlice("gen_ai.response.finish_reasons", []string{s.FinishReason}))
	}
	if s.HTTPStatus != 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", s.HTTPStatus))
	}
	_, sp := x.tracer.Start(ctx, "chat "+s.Model, oteltrace.WithTimestamp(at(s.StartMS)),
		oteltrace.WithSpanKind(oteltrace.SpanKindClient), oteltrace.WithAttributes(attrs...))
	if s.Status != "ok" {
		et := s.Reason
		if et == "" {
			et = "_OTHER"
		}
		sp.SetAttributes(attribute.String("error.type", et))
		sp.SetStatus(codes.Error, et)
	}
	sp.End(oteltrace.WithTimestamp(at(s.End())))
}

func (x *Exporter) tool(ctx context.Context, s trace.Span, at func(float64) time.Time, conv attribute.KeyValue) {
	_, sp := x.tracer.Start(ctx, "execute_tool "+s.Name, oteltrace.WithTimestamp(at(s.StartMS)),
		oteltrace.WithSpanKind(oteltrace.SpanKindInternal), oteltrace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", s.Name),
			attribute.String("gen_ai.tool.call.id", s.ID),
			conv,
			attribute.Int("talaria.segment", s.Segment),
		))
	if s.Status != "ok" {
		sp.SetAttributes(attribute.String("error.type", s.Status))
		sp.SetStatus(codes.Error, s.Status)
	}
	sp.End(oteltrace.WithTimestamp(at(s.End())))
}

// Shutdown flushes what is queued, waiting at most FlushTimeout; it
// reports the flush's failure or, failing that, the last failed export.
func (x *Exporter) Shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), FlushTimeout)
	defer cancel()
	if err := x.tp.Shutdown(ctx); err != nil {
		return err
	}
	x.quiet.mu.Lock()
	defer x.quiet.mu.Unlock()
	if x.quiet.err != nil {
		return fmt.Errorf("%d span(s) not exported: %w", x.quiet.failed, x.quiet.err)
	}
	return nil
}
