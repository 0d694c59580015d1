package gemini

import (
	"encoding/json"
	"errors"
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
	path, query string
	header      http.Header
	raw         []byte
	body        map[string]any
}

// reply is what the test server answers. The Content-Type defaults to
// text/event-stream.
type reply struct {
	status  int
	headers map[string]string
	body    []byte
	// hold, when set, is waited on (or the request context) after the
	// first half of the body is flushed.
	hold chan struct{}
}

// startServer serves each request with rep and hands the request to the
// returned channel (buffered, so the handler never blocks on it).
func startServer(t testing.TB, rep reply) (*httptest.Server, <-chan captured) {
	t.Helper()
	reqs := make(chan captured, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c := captured{path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), raw: raw}
		_ = json.Unmarshal(raw, &c.body)
		select {
		case reqs <- c:
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for k, v := range rep.headers {
			w.Header().Set(k, v)
		}
		status := rep.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		body := rep.body
		if rep.hold != nil {
			_, _ = w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			select {
			case <-rep.hold:
			case <-r.Context().Done():
				return
			}
			body = body[len(body)/2:]
		}
		_, _ = w.Write(body)
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

// newTestTransport builds a transport pointed at srv.
func newTestTransport(t testing.TB, srv *httptest.Server) *geminiTransport {
	t.Helper()
	tr, err := newTransport(providers.Endpoint{
		Provider:   "gemini",
		Model:      "gemini-2.0-flash",
		BaseURL:    srv.URL + "/v1beta",
		APIKey:     "AIzaSy-test-key",
		HTTPClient: srv.Client(),
	}, func(string) string { return "" })
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr
}

// deltaLog collects streamed deltas.
type deltaLog struct {
	text, reasoning strings.Builder
	tools           []providers.Delta
}

func (l *deltaLog) add(d providers.Delta) {
	switch d.Kind {
	case providers.DeltaText:
		l.text.WriteString(d.Text)
	case providers.DeltaReasoning:
		l.reasoning.WriteString(d.Text)
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
