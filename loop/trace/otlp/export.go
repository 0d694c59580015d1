package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// Response bounds: what is read of a collector's answer (for its message
// or partial success), what more is drained so the connection can be
// reused, and how much of a message goes into an error.
const (
	maxResponseRead  = 64 << 10
	maxResponseDrain = 256 << 10
	maxMessage       = 200
)

// httpExporter is an sdktrace.SpanExporter speaking OTLP/HTTP with binary
// protobuf: one POST per batch, one try (the batcher's export timeout and
// the client's bound it), the answer read for the collector's verdict.
type httpExporter struct {
	url       string
	client    *http.Client
	headers   http.Header
	gzip      bool
	userAgent string
	stopped   atomic.Bool
}

// partialError is a 2xx answer saying the collector dropped some spans.
type partialError struct {
	rejected int64
	message  string
}

func (e *partialError) Error() string {
	if e.message == "" {
		return fmt.Sprintf("collector rejected %d span(s)", e.rejected)
	}
	return fmt.Sprintf("collector rejected %d span(s): %s", e.rejected, e.message)
}

// ExportSpans implements sdktrace.SpanExporter.
func (e *httpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stopped.Load() {
		return errors.New("exporter is shut down")
	}
	if len(spans) == 0 {
		return nil
	}
	body := encodeRequest(spans)
	if e.gzip {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		_, _ = zw.Write(body) // a bytes.Buffer does not fail
		if err := zw.Close(); err != nil {
			return fmt.Errorf("compressing spans: %w", err)
		}
		body = zb.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, vs := range e.headers {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", e.userAgent)
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return err // a *url.Error: the URL with any password redacted
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseDrain))
		_ = resp.Body.Close()
	}()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseRead))
	protobuf := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-protobuf")
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := string(answer)
		if protobuf {
			msg = statusMessage(answer)
		}
		if msg = clip(msg); msg != "" {
			return fmt.Errorf("collector answered %s: %s", resp.Status, msg)
		}
		return fmt.Errorf("collector answered %s", resp.Status)
	}
	if protobuf {
		if n, msg := partialSuccess(answer); n > 0 || msg != "" {
			return &partialError{rejected: n, message: clip(msg)}
		}
	}
	return nil
}

// Shutdown implements sdktrace.SpanExporter: later exports fail, idle
// connections close.
func (e *httpExporter) Shutdown(context.Context) error {
	e.stopped.Store(true)
	e.client.CloseIdleConnections()
	return nil
}

// clip keeps a collector's message to one short line of valid UTF-8.
func clip(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) <= maxMessage {
		return s
	}
	s = s[:maxMessage]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// statusMessage is the message of a google.rpc.Status (field 2), the body
// OTLP/HTTP gives a failed request.
func statusMessage(b []byte) string {
	var msg string
	fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, v []byte) {
		if num == 2 && typ == protowire.BytesType {
			msg = string(v)
		}
	})
	return msg
}

// partialSuccess reads ExportTraceServiceResponse.partial_success (field
// 1): rejected_spans (1) and error_message (2).
func partialSuccess(b []byte) (rejected int64, msg string) {
	fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, v []byte) {
		if num != 1 || typ != protowire.BytesType {
			return
		}
		fields(v, func(num protowire.Number, typ protowire.Type, n uint64, v []byte) {
			switch {
			case num == 1 && typ == protowire.VarintType:
				rejected = int64(n)
			case num == 2 && typ == protowire.BytesType:
				msg = string(v)
			}
		})
	})
	return rejected, msg
}

// fields calls f for each varint (in n) and length-delimited (in v)
// top-level field of a protobuf message. It stops at the first
// malformed field.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, n uint64, v []byte)) {
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return
		}
		b = b[l:]
		switch typ {
		case protowire.VarintType:
			n, l := protowire.ConsumeVarint(b)
			if l < 0 {
				return
			}
			f(num, typ, n, nil)
			b = b[l:]
		case protowire.BytesType:
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return
			}
			f(num, typ, 0, v)
			b = b[l:]
		default:
			l := protowire.ConsumeFieldValue(num, typ, b)
			if l < 0 {
				return
			}
			b = b[l:]
		}
	}
}
