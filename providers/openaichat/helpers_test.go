package openaichat

import (
	"encoding/json"
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
	path   string
	header http.Header
	raw    []byte
	body   map[string]any
}

// reply is what the test server answers. The Content-Type defaults to
// text/event-stream; an empty one in headers means none at all.
type reply struct {
	status  int
	headers map[string]string
	body    []byte
}

// startServer serves each request with rep and hands the request to the
// returned channel (buffered, so the handler never blocks on it).
func startServer(t testing.TB, rep reply) (*httptest.Server, <-chan captured) {
	t.Helper()
	reqs := make(chan captured, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c := captured{path: r.URL.Path, header: r.Header.Clone(), raw: raw}
		_ = json.Unmarshal(raw, &c.body)
		select {
		case reqs <- c:
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for k, v := range rep.headers {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header()["Content-Type"] = nil // none, and no sniffing
		}
		status := rep.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write(rep.body)
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

// sseServer serves a testdata fixture as an SSE stream.
func sseServer(t testing.TB, fixture string) (*httptest.Server, <-chan captured) {
	t.Helper()
	return startServer(t, reply{body: readFixture(t, fixture)})
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
func newTestTransport(t testing.TB, srv *httptest.Server, provider string) *chatTransport {
	t.Helper()
	tr, err := New(providers.Endpoint{
		Provider:   provider,
		Model:      "test-model",
		BaseURL:    srv.URL + "/v1",
		APIKey:     "sk-test",
		HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr.(*chatTransport)
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

// simpleRequest is a one-user-message request without tools.
func simpleRequest() providers.Request {
	return providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: "hi"}}}
}

// asAPIError asserts err is a *providers.APIError.
func asAPIError(t *testing.T, err error) *providers.APIError {
	t.Helper()
	ae, ok := err.(*providers.APIError)
	if !ok {
		t.Fatalf("error %T (%v), want *providers.APIError", err, err)
	}
	return ae
}
