package loop

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/openaichat"
	pt "talaria/providers/providertest"
)

// The real error bodies and streams of issue 18's classifier rules, sent
// through the real chat-completions client.

func TestQuotaWall429IsBillingRotatesThenFallsBack(t *testing.T) {
	primary, backup := pt.New(t), pt.New(t)
	wall := `{"error":{"message":"Monthly quota reached.","type":"rate_limit_error","code":"rate_limit_exceeded"}}`
	primary.Push(pt.Error(429, wall, nil), pt.Error(429, wall, nil))
	backup.Push(pt.Text("the backup answered"))
	f := chainFixture(t,
		providers.Backend{Provider: "custom", Model: "main", BaseURL: primary.URL(), APIKeys: []string{"sk-A", "sk-B"}},
		providers.Backend{Provider: "custom", Model: "backup", BaseURL: backup.URL()},
	)
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "the backup answered" {
		t.Fatalf("result: %+v", res)
	}
	if rs := ofType[*RetryScheduled](f.rec); len(rs) != 0 {
		t.Fatalf("a quota wall was retried on the same key: %+v", rs)
	}
	if h := primary.Headers(); len(h) != 2 || h[0].Get("Authorization") != "Bearer sk-A" || h[1].Get("Authorization") != "Bearer sk-B" {
		t.Fatalf("keys tried: %d requests", len(h))
	}
	rot, fb := ofType[*CredentialRotated](f.rec), ofType[*FallbackActivated](f.rec)
	if len(rot) != 1 || rot[0].Reason != "billing" || len(fb) != 1 || fb[0].Reason != "billing" {
		t.Fatalf("rotated %+v, fallback %+v", rot, fb)
	}
}

func TestQuotaWallWithoutFallbackFailsFastNamingBilling(t *testing.T) {
	for _, body := range []string{
		`{"error":{"message":"API key limit exceeded.","type":"rate_limit_error"}}`,
		`{"error":{"message":"Insufficient credits remaining.","code":"rate_limit_exceeded"}}`,
	} {
		f := newFixture(t, nil)
		f.srv.Push(pt.Error(429, body, nil))
		res := f.run(t, "hi")
		if res.Completed || len(f.srv.Requests()) != 1 || len(ofType[*RetryScheduled](f.rec)) != 0 {
			t.Fatalf("%s: retried or completed: %d requests, %+v", body, len(f.srv.Requests()), res)
		}
		if !strings.HasPrefix(res.FinalResponse, "Billing:") || !strings.Contains(res.FinalResponse, "quota or credits") ||
			!strings.Contains(res.Explanation, "billing") {
			t.Fatalf("final response or explanation does not name billing: %q / %q", res.FinalResponse, res.Explanation)
		}
	}
}

func TestUsageLimitWithStatedResetWaitsForIt(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		headers map[string]string
		wantMS  int64
	}{
		{"body resets_in_seconds", `{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_in_seconds":0.05}}`, nil, 50},
		{"x-ratelimit-reset header", `{"error":{"message":"You've hit your usage limit.","type":"rate_limit_error"}}`, map[string]string{"x-ratelimit-reset-requests": "40ms"}, 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			primary, backup := pt.New(t), pt.New(t)
			primary.Push(pt.Error(429, c.body, c.headers), pt.Text("after the reset"))
			f := chainFixture(t,
				providers.Backend{Provider: "custom", Model: "main", BaseURL: primary.URL()},
				providers.Backend{Provider: "custom", Model: "backup", BaseURL: backup.URL()},
			)
			res := f.run(t, "hi")
			if !res.Completed || res.FinalResponse != "after the reset" {
				t.Fatalf("result: %+v", res)
			}
			rs := ofType[*RetryScheduled](f.rec)
			if len(rs) != 1 || rs[0].Reason != "rate_limit" || rs[0].DelayMS != c.wantMS || rs[0].Status != 429 {
				t.Fatalf("retry.scheduled: %+v", rs)
			}
			if len(backup.Requests()) != 0 || len(ofType[*FallbackActivated](f.rec)) != 0 {
				t.Fatal("fell back instead of waiting for the stated reset")
			}
		})
	}
}

func TestUsageLimitResetOverCapFallsBack(t *testing.T) {
	primary, backup := pt.New(t), pt.New(t)
	primary.Push(pt.Error(429, `{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","resets_in_seconds":7200}}`, nil))
	backup.Push(pt.Text("backup"))
	f := chainFixture(t,
		providers.Backend{Provider: "custom", Model: "main", BaseURL: primary.URL()},
		providers.Backend{Provider: "custom", Model: "backup", BaseURL: backup.URL()},
	)
	res := f.run(t, "hi")
	fb := ofType[*FallbackActivated](f.rec)
	if res.FinalResponse != "backup" || len(fb) != 1 || fb[0].Reason != "rate_limit" || len(ofType[*RetryScheduled](f.rec)) != 0 {
		t.Fatalf("result %+v, fallbacks %+v", res, fb)
	}
}

const policyBody = `{"error":{"message":"Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt: https://platform.openai.com/docs/guides/reasoning#advice-on-prompting","type":"invalid_request_error","param":null,"code":"invalid_prompt"}}`

func TestContentPolicy400TriesNextBackendOnce(t *testing.T) {
	a, b, c := pt.New(t), pt.New(t), pt.New(t)
	a.Push(pt.Error(400, policyBody, nil))
	b.Push(pt.Error(400, policyBody, nil))
	f := chainFixture(t,
		providers.Backend{Provider: "custom", Model: "a", BaseURL: a.URL()},
		providers.Backend{Provider: "custom", Model: "b", BaseURL: b.URL()},
		providers.Backend{Provider: "custom", Model: "c", BaseURL: c.URL()},
	)
	res := f.run(t, "hi")
	if res.ExitReason.Kind != ExitContentPolicyBlocked || res.Completed {
		t.Fatalf("result: %+v", res)
	}
	fb := ofType[*FallbackActivated](f.rec)
	if len(fb) != 1 || fb[0].To.Model != "b" || fb[0].Reason != "content_policy_blocked" || len(c.Requests()) != 0 {
		t.Fatalf("fallbacks %+v, third backend got %d requests", fb, len(c.Requests()))
	}
	// The next backend may answer.
	a.Push(pt.Error(400, policyBody, nil))
	b.Push(pt.Text("a different model answered"))
	if res := f.run(t, "again"); !res.Completed || res.FinalResponse != "a different model answered" {
		t.Fatalf("second turn: %+v", res)
	}
}

func TestStreamedContentFilterTriesNextBackendOnce(t *testing.T) {
	a, b, c := pt.New(t), pt.New(t), pt.New(t)
	filtered := pt.Reply{Chunks: pt.TextChunks("", "content_filter")}
	a.Push(filtered)
	b.Push(filtered)
	f := chainFixture(t,
		providers.Backend{Provider: "custom", Model: "a", BaseURL: a.URL()},
		providers.Backend{Provider: "custom", Model: "b", BaseURL: b.URL()},
		providers.Backend{Provider: "custom", Model: "c", BaseURL: c.URL()},
	)
	res := f.run(t, "hi")
	if res.ExitReason.Kind != ExitContentPolicyBlocked {
		t.Fatalf("result: %+v", res)
	}
	if fb := ofType[*FallbackActivated](f.rec); len(fb) != 1 || len(c.Requests()) != 0 {
		t.Fatalf("fallbacks %+v, third backend got %d requests", fb, len(c.Requests()))
	}
}

// effortRecorder records the reasoning effort of every request the loop
// sends through the real transport.
type effortRecorder struct {
	providers.Transport
	mu      sync.Mutex
	efforts []string
}

func (r *effortRecorder) Stream(ctx context.Context, req providers.Request, on func(providers.Delta)) (*providers.Response, error) {
	r.mu.Lock()
	r.efforts = append(r.efforts, req.ReasoningEffort)
	r.mu.Unlock()
	return r.Transport.Stream(ctx, req, on)
}

func TestReasoningMandatoryRetriesOnceWithReasoning(t *testing.T) {
	var rec *effortRecorder
	f := newFixture(t, func(o *Options) { rec = &effortRecorder{Transport: o.Transport}; o.Transport = rec })
	mandatory := `{"error":{"message":"Reasoning is mandatory for this endpoint and cannot be disabled.","code":400,"metadata":{"provider_name":"OpenAI"}}}`
	f.srv.Push(pt.Error(400, mandatory, nil), pt.Text("thought and answered"))
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "thought and answered" {
		t.Fatalf("result: %+v", res)
	}
	if got := strings.Join(rec.efforts, ","); got != ",medium" {
		t.Fatalf("efforts sent: %q, want the retry with reasoning on", got)
	}
	if len(ofType[*FallbackActivated](f.rec)) != 0 {
		t.Fatal("reasoning_mandatory took the format_error path")
	}
	// The retry is announced, with its reason, and waits for nothing.
	if rs := ofType[*RetryScheduled](f.rec); len(rs) != 1 || rs[0].Reason != "reasoning_mandatory" || rs[0].Status != 400 ||
		rs[0].DelayMS != 0 || !strings.Contains(rs[0].Message, "medium") {
		t.Fatalf("retry.scheduled: %+v", rs)
	}
	// Remembered for the model: the next turn asks for reasoning at once.
	f.srv.Push(pt.Text("again"))
	f.run(t, "more")
	if got := rec.efforts[len(rec.efforts)-1]; got != "medium" {
		t.Fatalf("next turn's effort %q", got)
	}
	// Still refused with reasoning on: final, not a loop.
	f.srv.Push(pt.Error(400, mandatory, nil))
	if res := f.run(t, "third"); res.Completed || len(f.srv.Requests()) != 4 {
		t.Fatalf("third turn: %d requests, %+v", len(f.srv.Requests()), res)
	}
}

func TestConfiguredReasoningEffortIsSent(t *testing.T) {
	var rec *effortRecorder
	f := newFixture(t, func(o *Options) {
		rec = &effortRecorder{Transport: o.Transport}
		o.Transport = rec
		o.Chain = providers.NewFallbackChain(providers.Backend{Provider: "custom", Model: "test-model", ReasoningEffort: "high"}, nil)
	})
	f.srv.Push(pt.Text("ok"))
	f.run(t, "hi")
	if len(rec.efforts) != 1 || rec.efforts[0] != "high" {
		t.Fatalf("efforts: %q", rec.efforts)
	}
}

// rewrite sends every request to target, whatever URL it names.
type rewrite struct{ target *url.URL }

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.target.Scheme, r.target.Host
	req.URL.Path = "/v1" + strings.TrimPrefix(req.URL.Path, "/api/coding/paas/v4")
	return http.DefaultTransport.RoundTrip(req)
}

func newZAI(t *testing.T, srv *pt.Server, mod func(*Options)) *fixture {
	t.Helper()
	target, _ := url.Parse(srv.Server.URL)
	client := &http.Client{Transport: rewrite{target}}
	f := newFixture(t, func(o *Options) {
		o.Transport = nil
		o.Chain = providers.NewFallbackChain(providers.Backend{Provider: "custom", Model: "glm-4.6", BaseURL: "https://api.z.ai/api/coding/paas/v4"}, nil)
		o.NewTransport = func(b providers.Backend, key string) (Transport, error) {
			return openaichat.New(providers.Endpoint{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIKey: key, HTTPClient: client})
		}
		if mod != nil {
			mod(o)
		}
	})
	f.srv = srv
	return f
}

const zai1305 = `{"error":{"code":"1305","message":"The service may be temporarily overloaded, please try again later"}}`

func TestZAI1305AdaptiveBackoff(t *testing.T) {
	srv := pt.New(t)
	f := newZAI(t, srv, func(o *Options) { o.Retry.RetryAfterCap = 25 * time.Millisecond })
	for i := 0; i < 7; i++ {
		srv.Push(pt.Error(429, zai1305, nil))
	}
	srv.Push(pt.Text("finally"))
	res := f.run(t, "hi")
	if !res.Completed || res.FinalResponse != "finally" || len(srv.Requests()) != 8 {
		t.Fatalf("%d requests, result %+v", len(srv.Requests()), res)
	}
	rs := ofType[*RetryScheduled](f.rec)
	if len(rs) != 7 {
		t.Fatalf("retries: %+v", rs)
	}
	for i, r := range rs {
		// The first 3 use the normal backoff (≤ 5 ms · 1.5); later ones the
		// 30–120 s steps, here capped by retry_after_cap.
		slow := r.DelayMS == 25
		if r.Reason != "overloaded" || r.MaxAttempts != 8 || slow != (i >= 3) {
			t.Fatalf("retry %d: %+v", i+1, r)
		}
	}
}

func TestZAI1305WaitIsShownAndInterruptible(t *testing.T) {
	srv := pt.New(t)
	f := newZAI(t, srv, nil)
	f.agent.opts.Retry.RetryAfterCap = 10 * time.Minute
	for i := 0; i < 4; i++ {
		srv.Push(pt.Error(429, zai1305, nil))
	}
	done := f.runAsync("hi")
	for {
		e := f.rec.waitFor(t, "retry.scheduled").(*RetryScheduled)
		if e.Attempt == 5 {
			if e.DelayMS < 30_000 || e.DelayMS > 36_000 {
				t.Fatalf("fourth retry waits %d ms, want 30 s + ≤20%%", e.DelayMS)
			}
			break
		}
	}
	f.agent.Interrupt()
	if res := await(t, done); res.ExitReason.Kind != ExitInterruptedDuringAPI {
		t.Fatalf("result: %+v", res)
	}
}

func TestOrdinaryZAIQuota429IsNotSlowed(t *testing.T) {
	srv := pt.New(t)
	f := newZAI(t, srv, func(o *Options) { o.Retry.RetryAfterCap = 25 * time.Millisecond })
	rate := `{"error":{"code":"1302","message":"Rate limit reached for requests"}}`
	for i := 0; i < 4; i++ {
		srv.Push(pt.Error(429, rate, nil))
	}
	f.run(t, "hi")
	rs := ofType[*RetryScheduled](f.rec)
	if len(rs) != 3 {
		t.Fatalf("retries: %+v", rs)
	}
	for _, r := range rs {
		if r.DelayMS >= 25 || r.MaxAttempts != 4 {
			t.Fatalf("an ordinary 429 was slowed: %+v", r)
		}
	}
}

func TestStreamedContentFilterWithoutFallbackEnds(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Push(pt.Reply{Chunks: pt.TextChunks("Here is the start", "content_filter")})
	res := f.run(t, "hi")
	if res.ExitReason.Kind != ExitContentPolicyBlocked || res.FinalResponse != "Here is the start" || len(f.srv.Requests()) != 1 {
		t.Fatalf("result: %+v", res)
	}
}
