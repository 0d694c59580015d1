package responses

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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
// text/event-stream.
type reply struct {
	status  int
	headers map[string]string
	body    []byte
}

// testServer is an httptest server answering every request with one reply.
type testServer struct {
	*httptest.Server
	reqs  chan captured
	count atomic.Int32
}

func startServer(t testing.TB, rep reply) *testServer {
	t.Helper()
	s := &testServer{reqs: make(chan captured, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count.Add(1)
		raw, _ := io.ReadAll(r.Body)
		c := captured{path: r.URL.Path, header: r.Header.Clone(), raw: raw}
		_ = json.Unmarshal(raw, &c.body)
		select {
		case s.reqs <- c:
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
		_, _ = w.Write(rep.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func sseServer(t testing.TB, fixture string) *testServer {
	t.Helper()
	return startServer(t, reply{body: readFixture(t, fixture)})
}

// lastRequest returns the request the server saw (the test fails if none).
func (s *testServer) lastRequest(t *testing.T) captured {
	t.Helper()
	select {
	case c := <-s.reqs:
		return c
	default:
		t.Fatal("the server saw no request")
		return captured{}
	}
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

func newTestTransport(t testing.TB, srv *testServer) *transport {
	t.Helper()
	tr, err := New(providers.Endpoint{
		Provider:   "openai",
		Model:      "gpt-4.1",
		BaseURL:    srv.URL + "/v1",
		APIKey:     "sk-test",
		HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr.(*transport)
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

func asAPIError(t *testing.T, err error) *providers.APIError {
	t.Helper()
	var ae *providers.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %T (%v), want *providers.APIError", err, err)
	}
	return ae
}

// inputItems returns body["input"] as a list of objects.
func inputItems(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	raw, _ := body["input"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i], _ = m.(map[string]any)
	}
	return out
}

// holdServer writes head, flushes it, and then keeps the stream open until
// the client goes away.
func holdServer(t testing.TB, head string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, head)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}
