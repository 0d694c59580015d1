package loop

import (
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/openaichat"
	pt "talaria/providers/providertest"
)

// lastBody is the last request body srv received.
func lastBody(t *testing.T, srv *pt.Server) string {
	t.Helper()
	raw := srv.RawRequests()
	if len(raw) == 0 {
		t.Fatal("no request")
	}
	return raw[len(raw)-1]
}

// TestEditedHistoryReachesTheWire: an edit of a message already sent,
// reported with changed() as the loop's own editors do, is in the next
// body the real chat_completions wire sends, though its cache skips the
// messages an AppendOnly request shares with the last one: the view moves
// to a new array rather than write a slot it handed out.
func TestEditedHistoryReachesTheWire(t *testing.T) {
	// Ten messages before: the view's array keeps room for the second
	// turn, so a rebuild in place would reuse the addresses of the first.
	f := newFixture(t, func(o *Options) { o.History = history(10) })
	f.srv.Push(pt.Text("first answer"), pt.Text("second answer"))
	f.run(t, "first question")
	f.agent.mu.Lock()
	f.agent.history[3].Content = "first question, edited"
	f.agent.reqs.changed()
	f.agent.mu.Unlock()
	f.run(t, "second question")
	if body := lastBody(t, f.srv); !strings.Contains(body, "first question, edited") {
		t.Fatalf("the edit is not in the body: %s", body)
	}
}

// TestFallbackSystemPromptReachesTheWire: after a fallback rewrote the
// system message of the request it retried (in place, in the view's
// array), the retried call sends the rewritten prompt; the next turn,
// back on the primary, sends the primary's prompt, and its fallback the
// rewritten one again.
func TestFallbackSystemPromptReachesTheWire(t *testing.T) {
	primary := pt.New(t)
	for range 6 { // each turn starts on the primary
		primary.Push(pt.Error(529, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`, nil))
	}
	backup := pt.New(t)
	backup.Push(pt.Text("one"), pt.Text("two"))
	f := newFixture(t, func(o *Options) {
		o.Transport = nil
		o.SystemPrompt = "You are a test agent.\nModel: gpt-x\nProvider: openai"
		o.Chain = providers.NewFallbackChain(
			providers.Backend{Provider: "openai", Model: "gpt-x", BaseURL: primary.URL(), APIMode: "chat_completions", APIKeys: []string{"sk-o"}},
			[]providers.Backend{{Provider: "custom", Model: "backup-model", BaseURL: backup.URL(), APIMode: "chat_completions", APIKeys: []string{"sk-b"}}})
		o.NewTransport = func(b providers.Backend, key string) (Transport, error) {
			return openaichat.New(providers.Endpoint{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIKey: key})
		}
	})
	f.run(t, "hi")
	if body := lastBody(t, backup); !strings.Contains(body, `Model: backup-model\nProvider: custom`) {
		t.Fatalf("the retried request kept the primary's system prompt: %s", body)
	}
	f.run(t, "again")
	body := lastBody(t, backup)
	if !strings.Contains(body, `Model: backup-model\nProvider: custom`) || strings.Contains(body, "Model: gpt-x") || !strings.Contains(body, "again") {
		t.Fatalf("the next turn's fallback request: %s", body)
	}
	if body := lastBody(t, primary); !strings.Contains(body, `Model: gpt-x\nProvider: openai`) || !strings.Contains(body, "again") {
		t.Fatalf("the next turn's primary request: %s", body)
	}
}
