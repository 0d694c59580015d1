package bedrock

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// startServer serves each request with rep, after the headers Bedrock
// sends (see bedrockHeaders), and hands the request to the returned
// channel (buffered, so the handler never blocks on it).
func startServer(t testing.TB, rep providertest.WireReply) (*httptest.Server, <-chan providertest.Captured) {
	t.Helper()
	rep.Defaults = bedrockHeaders
	return providertest.Serve(t, rep)
}

// bedrockHeaders are the headers of every Bedrock answer: the content type
// of the call (an event stream for converse-stream) and a request id.
func bedrockHeaders(r *http.Request) http.Header {
	ct := "application/json"
	if strings.HasSuffix(r.URL.Path, "/converse-stream") {
		ct = "application/vnd.amazon.eventstream"
	}
	h := http.Header{}
	h.Set("Content-Type", ct)
	h.Set("X-Amzn-Requestid", "7d1f0c2e-5b0a-4d7e-9a8f-2c1d3e4f5a6b")
	return h
}

// newTestTransport builds a converse (or converse-stream) transport
// pointed at srv.
func newTestTransport(t testing.TB, srv *httptest.Server, stream bool) *converseTransport {
	t.Helper()
	ep := providers.Endpoint{
		Provider:   "bedrock",
		Model:      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		BaseURL:    srv.URL,
		APIKey:     "ABSKQmVkcm9ja0FQSUtleS10ZXN0",
		HTTPClient: srv.Client(),
	}
	tr, err := newTransport(ep, func(string) string { return "" }, stream)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr
}

// deltaLog collects streamed deltas.
type deltaLog struct {
	texts, reasonings []string
	tools             []providers.Delta
}

func (l *deltaLog) add(d providers.Delta) {
	switch d.Kind {
	case providers.DeltaText:
		l.texts = append(l.texts, d.Text)
	case providers.DeltaReasoning:
		l.reasonings = append(l.reasonings, d.Text)
	case providers.DeltaToolCall:
		l.tools = append(l.tools, d)
	}
}

// hdr is one string header of a test frame.
type hdr struct{ name, value string }

// encodeFrame builds one AWS event-stream message with string headers,
// computing both CRCs, the way the service frames converse-stream.
func encodeFrame(headers []hdr, payload []byte) []byte {
	var hb []byte
	for _, h := range headers {
		hb = append(hb, byte(len(h.name)))
		hb = append(hb, h.name...)
		hb = append(hb, hvString)
		hb = binary.BigEndian.AppendUint16(hb, uint16(len(h.value)))
		hb = append(hb, h.value...)
	}
	total := preludeLen + len(hb) + len(payload) + 4
	msg := binary.BigEndian.AppendUint32(nil, uint32(total))
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(hb)))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
	msg = append(msg, hb...)
	msg = append(msg, payload...)
	return binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}

// event builds a converse-stream event frame; the payload gets the "p"
// padding field the service adds.
func event(name, payload string) []byte {
	if body, ok := strings.CutSuffix(payload, "}"); ok {
		if strings.TrimSpace(body) != "{" {
			body += ","
		}
		payload = body + `"p":"abcdefghijklmnopqrstuvwxyzABCDEFGH"}`
	}
	return encodeFrame([]hdr{
		{":event-type", name},
		{":content-type", "application/json"},
		{":message-type", "event"},
	}, []byte(payload))
}

// exception builds an exception frame.
func exception(kind, message string) []byte {
	return encodeFrame([]hdr{
		{":exception-type", kind},
		{":content-type", "application/json"},
		{":message-type", "exception"},
	}, []byte(`{"message":`+jsonString(message)+`}`))
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func concat(frames ...[]byte) []byte {
	var out []byte
	for _, f := range frames {
		out = append(out, f...)
	}
	return out
}

func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }
