package loop

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/openaichat"
	pt "talaria/providers/providertest"
)

// chainFixture wires a fallback chain of real chat_completions backends.
func chainFixture(t *testing.T, primary providers.Backend, fallbacks ...providers.Backend) *fixture {
	t.Helper()
	return newFixture(t, func(o *Options) {
		o.Transport = nil
		o.Chain = providers.NewFallbackChain(primary, fallbacks)
		o.NewTransport = func(b providers.Backend, key string) (Transport, error) {
			return openaichat.New(providers.Endpoint{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIKey: key, HTTPClient: http.DefaultClient})
		}
	})
}

func TestInsufficientQuotaRotatesToNextKey(t *testing.T) {
	srv := pt.New(t)
	f := chainFixture(t, providers.Backend{Provider: "openai", Model: "gpt-4.1", BaseURL: srv.URL(), APIMode: "chat_completions", APIKeys: []string{"sk-A", "sk-B"}})
	srv.Push(
		pt.Error(429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, nil),
		pt.Text("answered with key B"),
	)
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "answered with key B" {
		t.Fatalf("result: %+v", res)
	}
	h := srv.Headers()
	if got := []string{h[0].Get("Authorization"), h[1].Get("Authorization")}; got[0] != "Bearer sk-A" || got[1] != "Bearer sk-B" {
		t.Fatalf("Authorization headers: %v", got)
	}
	rot := ofType[*CredentialRotated](f.rec)
	if len(rot) != 1 || rot[0].Reason != "billing" || len(ofType[*RetryScheduled](f.rec)) != 0 {
		t.Fatalf("credential.rotated: %+v", rot)
	}
}

func TestOverloadedThenFallbackToAnotherBackend(t *testing.T) {
	primary, backup := pt.New(t), pt.New(t)
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	for i := 0; i < 3; i++ {
		primary.Push(pt.Error(529, overloaded, nil))
	}
	backup.Push(pt.Text("the backup answered"))
	f := chainFixture(t,
		providers.Backend{Provider: "custom", Model: "main-model", BaseURL: primary.URL(), APIMode: "chat_completions"},
		providers.Backend{Provider: "custom", Model: "backup-model", BaseURL: backup.URL(), APIMode: "chat_completions"},
	)
	f.agent.opts.SystemPrompt = "You are a test agent.\nModel: main-model\nProvider: custom"
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "the backup answered" {
		t.Fatalf("result: %+v", res)
	}
	if n := len(primary.Requests()); n != 3 {
		t.Fatalf("primary got %d requests, want 3 (first try + 2 retries)", n)
	}
	fb := ofType[*FallbackActivated](f.rec)
	if len(fb) != 1 || fb[0].To.Model != "backup-model" || fb[0].Reason != "overloaded" {
		t.Fatalf("fallback.activated: %+v", fb)
	}
	req := backup.Requests()[0]
	if req["model"] != "backup-model" {
		t.Fatalf("retried request kept the old model: %v", req["model"])
	}
	sys := messages(t, backup, 0)[0]["content"].(string)
	if !strings.HasSuffix(sys, "Model: backup-model\nProvider: custom") {
		t.Fatalf("system prompt runtime lines not rewritten: %q", sys)
	}
	// The next turn starts on the primary again, with the stored prompt.
	primary.Push(pt.Text("primary is back"))
	res = f.run(t, "again")
	if res.FinalResponse != "primary is back" {
		t.Fatalf("second turn: %+v", res)
	}
	if sys := messages(t, primary, 3)[0]["content"].(string); !strings.HasSuffix(sys, "Model: main-model\nProvider: custom") {
		t.Fatalf("primary prompt not restored: %q", sys)
	}
}

func TestMidStreamOverloadedIsRetried(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Reply{Chunks: []string{
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`{"error":{"message":"Overloaded","type":"overloaded_error","code":null}}`,
	}}, pt.Text("second try worked"))
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "second try worked" {
		t.Fatalf("result: %+v", res)
	}
	if rs := ofType[*RetryScheduled](f.rec); len(rs) != 1 {
		t.Fatalf("retry.scheduled: %+v", rs)
	}
}

func TestRetryAfterOverCapFallsBackOrFails(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Retry.RetryAfterCap = time.Second })
	f.srv.Push(pt.Error(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, map[string]string{"Retry-After": "120"}))
	res := f.run(t, "hi")
	if res.Completed || !strings.Contains(res.FinalResponse, "retry_after_cap") || len(f.srv.Requests()) != 1 {
		t.Fatalf("result: %+v", res)
	}
}

// costStore records what the turn saves of its usage.
type costStore struct {
	calls int
	cost  float64
}

func (c *costStore) AppendMessages(string, int, ...providers.Message) error { return nil }
func (c *costStore) AddUsage(string, int, providers.Usage) error            { return nil }
func (c *costStore) AddUsageCost(_ string, n int, _ providers.Usage, cost float64) error {
	c.calls, c.cost = n, cost
	return nil
}

// After a fallback each call is priced at the model that served it, and
// the turn's log line names the model actually used.
func TestFallbackPricesEachCallAtItsModel(t *testing.T) {
	primary, backup := pt.New(t), pt.New(t)
	primary.Push(pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"missing.txt"}`}))
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	for i := 0; i < 3; i++ {
		primary.Push(pt.Error(529, overloaded, nil))
	}
	backup.Push(pt.Text("done"))
	st := &costStore{}
	var lines []string
	f := chainFixture(t,
		providers.Backend{Provider: "openai", Model: "gpt-4.1", BaseURL: primary.URL(), APIMode: "chat_completions"},
		providers.Backend{Provider: "openai", Model: "gpt-4.1-mini", BaseURL: backup.URL(), APIMode: "chat_completions"},
	)
	f.agent.opts.Store = st
	f.agent.opts.Log = func(l string) { lines = append(lines, l) }
	res := f.run(t, "hi")
	if !res.Completed {
		t.Fatalf("result: %+v", res)
	}
	big, _ := providers.EstimateCost("gpt-4.1", providers.Usage{InputTokens: 20, OutputTokens: 5})
	small, _ := providers.EstimateCost("gpt-4.1-mini", providers.Usage{InputTokens: 10, OutputTokens: 1})
	if st.calls != 2 || math.Abs(st.cost-(big+small)) > 1e-12 {
		t.Fatalf("saved %d calls costing %g, want 2 costing %g (each call at its own model)", st.calls, st.cost, big+small)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], " model=gpt-4.1-mini ") {
		t.Fatalf("log line %q does not name the fallback model", lines)
	}
}
