package loop

import (
	"context"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/openaichat"
	"talaria/providers/providertest"
)

// ollamaFixture is a fixture whose transport is the real chat_completions
// client (or, with numCtx, what it builds for model.ollama_num_ctx) at a
// server speaking Ollama's native API and /v1/chat/completions.
func ollamaFixture(t *testing.T, o *providertest.Ollama, provider string, numCtx int, mod func(*Options)) *fixture {
	t.Helper()
	tr, err := openaichat.New(providers.Endpoint{Provider: provider, Model: "qwen3", BaseURL: o.URL(), HTTPClient: o.Client(), OllamaNumCtx: numCtx})
	if err != nil {
		t.Fatal(err)
	}
	return newFixture(t, func(opts *Options) {
		opts.Transport, opts.Provider, opts.Model = tr, provider, "qwen3"
		if mod != nil {
			mod(opts)
		}
	})
}

// A request larger than the runtime context Ollama runs the model with is
// not sent: the turn ends with ollama_runtime_context_too_small, the
// iteration is refunded, no attempt is made, and the explanation names
// both numbers and the fixes.
func TestOllamaRuntimeContextTooSmall(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Loaded = 4096
	f := ollamaFixture(t, o, "ollama", 0, nil)
	res := f.run(t, "hi "+strings.Repeat("and more words ", 1500))
	if res.ExitReason.Kind != ExitOllamaContextTooSmall || res.Completed {
		t.Fatalf("exit %q completed %v", res.ExitReason, res.Completed)
	}
	if n := o.Hits("/v1/chat/completions") + o.Hits("/api/chat"); n != 0 {
		t.Fatalf("%d chat requests sent", n)
	}
	for _, want := range []string{"4096-token runtime context", "/api/ps", "model.ollama_num_ctx: 40960", "OLLAMA_CONTEXT_LENGTH", "fewer tools", "Ollama 0.12.6"} {
		if !strings.Contains(res.Explanation, want) {
			t.Errorf("explanation lacks %q: %s", want, res.Explanation)
		}
	}
	if !strings.Contains(res.FinalResponse, "Not sent") {
		t.Errorf("final %q", res.FinalResponse)
	}
	if r := ofType[*BudgetRefunded](f.rec); len(r) != 1 || r[0].Reason != "ollama_runtime_context_too_small" {
		t.Errorf("refunds %+v", r)
	}
	if a := ofType[*APIAttempt](f.rec); len(a) != 0 {
		t.Errorf("%d attempts for a request never sent", len(a))
	}
	if h := f.agent.History(); len(h) == 0 || !strings.HasPrefix(h[0].Content, "hi ") {
		t.Errorf("the user message was not kept: %+v", h)
	}
}

// The model's maximum caps the suggestion; 65,536 is suggested when the
// model takes it.
func TestOllamaSuggestion(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Loaded, o.Max = 4096, 262144
	f := ollamaFixture(t, o, "ollama", 0, nil)
	res := f.run(t, strings.Repeat("words and words ", 1500))
	if res.ExitReason.Kind != ExitOllamaContextTooSmall || !strings.Contains(res.Explanation, "model.ollama_num_ctx: 65536") || !strings.Contains(res.Explanation, "at least 64000") {
		t.Fatalf("exit %q: %s", res.ExitReason, res.Explanation)
	}
}

// With nothing loaded (/api/ps lists no model) the Modelfile's num_ctx
// from /api/show is the runtime context.
func TestOllamaNothingLoadedFallsBackToShow(t *testing.T) {
	o := providertest.NewOllama(t)
	o.NumCtx = 2048
	f := ollamaFixture(t, o, "custom", 0, nil)
	res := f.run(t, strings.Repeat("words and words ", 1000))
	if res.ExitReason.Kind != ExitOllamaContextTooSmall || !strings.Contains(res.Explanation, "2048") || !strings.Contains(res.Explanation, "/api/show") {
		t.Fatalf("exit %q: %s", res.ExitReason, res.Explanation)
	}
	if o.Hits("/api/ps") == 0 || o.Hits("/api/show") == 0 || o.Hits("/v1/chat/completions") != 0 {
		t.Fatalf("ps %d show %d chat %d", o.Hits("/api/ps"), o.Hits("/api/show"), o.Hits("/v1/chat/completions"))
	}
}

// With model.ollama_num_ctx the chat goes to Ollama's native /api/chat,
// the endpoint that honours num_ctx, carrying the configured value, and
// the turn runs although the model is loaded with 4,096.
func TestOllamaNumCtxReachesTheServer(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Loaded, o.Max = 4096, 131072
	f := ollamaFixture(t, o, "ollama", 65536, nil)
	res := f.run(t, "hi "+strings.Repeat("and more words ", 1500))
	if !res.Completed || res.FinalResponse != "ok" {
		t.Fatalf("exit %q: %+v", res.ExitReason, res)
	}
	chats := o.NativeChats()
	if len(chats) != 1 || o.Hits("/v1/chat/completions") != 0 {
		t.Fatalf("native %d, /v1 %d", len(chats), o.Hits("/v1/chat/completions"))
	}
	opts, _ := chats[0]["options"].(map[string]any)
	if opts["num_ctx"] != float64(65536) {
		t.Fatalf("options %v", chats[0]["options"])
	}
}

// A server that does not answer /api/version (vLLM, llama.cpp) is treated
// as before: asked once, never again, and its chats run.
func TestNotOllamaTreatedAsBefore(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Version, o.Loaded = "", 2048
	f := ollamaFixture(t, o, "custom", 0, nil)
	for range 2 {
		if res := f.run(t, strings.Repeat("words and words ", 1000)); !res.Completed {
			t.Fatalf("exit %q: %s", res.ExitReason, res.Explanation)
		}
	}
	if o.Hits("/api/version") != 1 || o.Hits("/api/ps") != 0 || o.Hits("/v1/chat/completions") != 2 {
		t.Fatalf("version %d ps %d chats %d", o.Hits("/api/version"), o.Hits("/api/ps"), o.Hits("/v1/chat/completions"))
	}
}

// A runtime context that holds the request lets the turn run, and caps
// the context window the compression threshold is taken from.
func TestOllamaLargeEnoughRuns(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Loaded, o.Max = 65536, 131072
	f := ollamaFixture(t, o, "ollama", 0, nil)
	if res := f.run(t, "hi"); !res.Completed {
		t.Fatalf("exit %q: %s", res.ExitReason, res.Explanation)
	}
	if n := f.agent.contextLength(); n != 65536 {
		t.Fatalf("context length %d", n)
	}
	if window, notice := f.agent.RuntimeAtStart(context.Background(), 40960, ""); window != 65536 || notice != "" {
		t.Fatalf("%d %q", window, notice)
	}
}

// The start-of-session warning for a small runtime context names the
// fix, and the gauge's window is the runtime context.
func TestRuntimeWarning(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Loaded = 8192
	f := ollamaFixture(t, o, "ollama", 0, nil)
	window, notice := f.agent.RuntimeAtStart(context.Background(), 40960, "using Ollama")
	if window != 8192 || !strings.HasPrefix(notice, "using Ollama; Ollama 0.12.6 runs qwen3 with a 8192-token context") || !strings.Contains(notice, "model.ollama_num_ctx: 40960") {
		t.Fatalf("%d %q", window, notice)
	}
	o2 := providertest.NewOllama(t)
	o2.Version = ""
	f2 := ollamaFixture(t, o2, "custom", 0, nil)
	if window, notice := f2.agent.RuntimeAtStart(context.Background(), 128000, ""); window != 128000 || notice != "" {
		t.Fatalf("not Ollama: %d %q", window, notice)
	}
}

// Compression is tried first: a history over the runtime context that
// compression can bring under it is compressed, and the turn runs.
func TestOllamaCompressesFirst(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Loaded = 16384
	var hist []providers.Message
	for i := range 20 {
		id := "c" + strings.Repeat("x", i+1)
		hist = append(hist,
			providers.Message{Role: providers.RoleUser, Content: "read it again"},
			providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"big.txt"}`}}},
			providers.Message{Role: providers.RoleTool, ToolCallID: id, ToolName: "read_file", Content: strings.Repeat("line of the big file\n", 300)},
			providers.Message{Role: providers.RoleAssistant, Content: "read"})
	}
	f := ollamaFixture(t, o, "ollama", 0, func(opts *Options) {
		opts.History, opts.Turns, opts.Compression, opts.CompressionThreshold = hist, 20, true, 0.5
	})
	res := f.run(t, "and now?")
	if !res.Completed {
		t.Fatalf("exit %q: %s", res.ExitReason, res.Explanation)
	}
	if len(ofType[*Compression](f.rec)) == 0 {
		t.Fatal("no compression before the call")
	}
}
