package loop

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/openaichat"
	"talaria/providers/providertest"
	"talaria/tools"
)

// recorder collects events and lets a test wait for one.
type recorder struct {
	mu     sync.Mutex
	events []Event
	notify chan Event
}

func newRecorder() *recorder { return &recorder{notify: make(chan Event, 4096)} }

func (r *recorder) sink(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	r.notify <- e
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func (r *recorder) types() []string {
	var out []string
	for _, e := range r.all() {
		out = append(out, e.Meta().Type)
	}
	return out
}

// waitFor blocks until an event of type typ arrives (a generous bound only
// guards against a hung test).
func (r *recorder) waitFor(t *testing.T, typ string) Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-r.notify:
			if e.Meta().Type == typ {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event; got %v", typ, r.types())
			return nil
		}
	}
}

func ofType[T Event](r *recorder) []T {
	var out []T
	for _, e := range r.all() {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

type fixture struct {
	srv   *providertest.Server
	rec   *recorder
	agent *Agent
	dir   string
}

func newFixture(t *testing.T, mod func(*Options)) *fixture {
	t.Helper()
	srv := providertest.New(t)
	tr, err := openaichat.New(providers.Endpoint{Provider: "custom", Model: "test-model", BaseURL: srv.URL(), HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	dir := t.TempDir()
	opts := Options{
		SessionID:     "s1",
		Transport:     tr,
		Provider:      "custom",
		Model:         "test-model",
		SystemPrompt:  "You are a test agent.\nModel: test-model\nProvider: custom",
		Tools:         tools.NewRegistry(tools.Builtins()...),
		ToolEnv:       tools.Env{Cwd: dir, SessionID: "s1"},
		Sink:          rec.sink,
		MaxIterations: 10,
		Retry:         RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, RetryAfterCap: time.Minute},
	}
	if mod != nil {
		mod(&opts)
	}
	return &fixture{srv: srv, rec: rec, agent: New(opts), dir: dir}
}

func (f *fixture) run(t *testing.T, input string) Result {
	t.Helper()
	res, err := f.agent.Run(context.Background(), input)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runAsync starts a turn and returns a channel with its result.
func (f *fixture) runAsync(input string) <-chan Result {
	ch := make(chan Result, 1)
	go func() {
		res, _ := f.agent.Run(context.Background(), input)
		ch <- res
	}()
	return ch
}

func await(t *testing.T, ch <-chan Result) Result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("turn did not finish")
		return Result{}
	}
}

// messages decodes the "messages" of request i.
func messages(t *testing.T, srv *providertest.Server, i int) []map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("only %d requests", len(reqs))
	}
	raw, _ := json.Marshal(reqs[i]["messages"])
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func args(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
