package loop

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"talaria/providers"
	"talaria/providers/anthropic"
	"talaria/providers/openaichat"
	pt "talaria/providers/providertest"
)

// TestOverloadedFallsBackToAnthropicWire: three 529s on the primary
// (chat_completions) and the fallback answers over the Anthropic Messages
// wire, replaying a real Anthropic SSE capture.
func TestOverloadedFallsBackToAnthropicWire(t *testing.T) {
	stream, err := os.ReadFile("../providers/anthropic/testdata/text.sse")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got struct{ path, key, body string }
	claude := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got.path, got.key, got.body = r.URL.Path, r.Header.Get("X-Api-Key"), string(b)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	}))
	defer claude.Close()
	primary := pt.New(t)
	for i := 0; i < 3; i++ {
		primary.Push(pt.Error(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, nil))
	}
	f := newFixture(t, func(o *Options) {
		o.Transport = nil
		o.SystemPrompt = "You are a test agent.\nModel: gpt-x\nProvider: openai"
		o.Chain = providers.NewFallbackChain(
			providers.Backend{Provider: "openai", Model: "gpt-x", BaseURL: primary.URL(), APIMode: "chat_completions", APIKeys: []string{"sk-o"}},
			[]providers.Backend{{Provider: "anthropic", Model: "claude-test", BaseURL: claude.URL, APIMode: "anthropic_messages", APIKeys: []string{"sk-ant"}}})
		o.NewTransport = func(b providers.Backend, key string) (Transport, error) {
			ep := providers.Endpoint{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIKey: key}
			if b.APIMode == "anthropic_messages" {
				return anthropic.New(ep)
			}
			return openaichat.New(ep)
		}
	})
	res := f.run(t, "hi")
	if !res.Completed || !strings.HasPrefix(res.FinalResponse, "Hello") {
		t.Fatalf("result: %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasSuffix(got.path, "/messages") || got.key != "sk-ant" || !strings.Contains(got.body, `"model":"claude-test"`) {
		t.Fatalf("anthropic request: %+v", got)
	}
	if !strings.Contains(got.body, "Model: claude-test\\nProvider: anthropic") {
		t.Fatalf("system prompt not rewritten for the fallback: %s", got.body)
	}
	if fb := ofType[*FallbackActivated](f.rec); len(fb) != 1 || fb[0].To.Provider != "anthropic" {
		t.Fatalf("fallback.activated: %+v", fb)
	}
}
