package bedrock

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"talaria/providers"
)

// captured is one request as the test server saw it.
type captured struct {
	method  string
	rawPath string
	header  http.Header
	raw     []byte
	body    map[string]any
}

// reply is what the test server answers.
type reply struct {
	status  int
	headers map[string]string
	body    []byte
	// hold, when set, is waited on (or the request context) before the
	// body is written, after the headers are flushed.
	hold chan struct{}
}

// startServer serves each request with rep and hands the request to the
// returned channel (buffered, so the handler never blocks on it).
func startServer(t testing.TB, rep reply) (*httptest.Server, <-chan captured) {
	t.Helper()
	reqs := make(chan captured, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c := captured{method: r.Method, rawPath: r.URL.EscapedPath(), header: r.Header.Clone(), raw: raw}
		_ = json.Unmarshal(raw, &c.body)
		select {
		case reqs <- c:
		default:
		}
		ct := "application/json"
		if strings.HasSuffix(r.URL.Path, "/converse-stream") {
			ct = "application/vnd.amazon.eventstream"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("X-Amzn-Requestid", "7d1f0c2e-5b0a-4d7e-9a8f-2c1d3e4f5a6b")
		for k, v := range rep.headers {
			w.Header().Set(k, v)
		}
		status := rep.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		if rep.hold != nil {
			w.(http.Flusher).Flush()
			select {
			case <-rep.hold:
			case <-r.Context().Done():
				return
			}
		}
		_, _ = w.Write(rep.body)
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
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

func simpleRequest() providers.Request {
	return providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}}}
}

// asAPIError asserts err is a *providers.APIError.
func asAPIError(t *testing.T, err error) *providers.APIError {
	t.Helper()
	var ae *providers.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %T (%v), want *providers.APIError", err, err)
	}
	return ae
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
