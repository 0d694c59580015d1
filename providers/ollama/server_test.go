package ollama

import (
	"context"
	"strings"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestRuntimeContextSources learns the runtime context from each source in
// turn, against a server speaking Ollama's native API.
func TestRuntimeContextSources(t *testing.T) {
	tests := []struct {
		name                   string
		loaded, numCtx, dflt   int
		configured             int
		want                   int
		source                 string
		assumed                bool
		wantLoads, wantVersion int
	}{
		{name: "the loaded model (/api/ps)", loaded: 4096, want: 4096, source: "/api/ps"},
		{name: "nothing loaded: the Modelfile's num_ctx (/api/show)", numCtx: 8192, want: 8192, source: "/api/show"},
		{name: "nothing loaded, no num_ctx: load it and read /api/ps", dflt: 32768, want: 32768, source: "server's default", wantLoads: 1},
		{name: "nothing known: Ollama's default, assumed", want: DefaultContext, source: "assumed", assumed: true, wantLoads: 1},
		{name: "configured num_ctx wins", loaded: 4096, configured: 65536, want: 65536, source: "model.ollama_num_ctx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := providertest.NewOllama(t)
			o.Loaded, o.NumCtx, o.Default = tt.loaded, tt.numCtx, tt.dflt
			s := NewServer(o.Client(), o.URL(), "ollama", tt.configured)
			rc, ok, err := s.RuntimeContext(context.Background(), "qwen3")
			if !ok || rc.Tokens != tt.want || rc.Assumed != tt.assumed || rc.Max != 40960 || rc.Server != "Ollama 0.12.6" {
				t.Fatalf("got %+v ok %v err %v", rc, ok, err)
			}
			if !strings.Contains(rc.Source, tt.source) {
				t.Errorf("source %q, want it to name %q", rc.Source, tt.source)
			}
			if n := o.Hits("/api/generate"); n != tt.wantLoads {
				t.Errorf("%d loads, want %d", n, tt.wantLoads)
			}
		})
	}
}

// TestNotOllamaIsAskedOnce: a server without /api/version (vLLM,
// llama.cpp) is not Ollama, and is not asked again.
func TestNotOllamaIsAskedOnce(t *testing.T) {
	o := providertest.NewOllama(t)
	o.Version = ""
	s := NewServer(o.Client(), o.URL(), "custom", 0)
	for range 3 {
		if _, ok, err := s.RuntimeContext(context.Background(), "qwen3"); ok || err != nil {
			t.Fatalf("ok %v err %v", ok, err)
		}
	}
	if n := o.Hits("/api/version"); n != 1 {
		t.Fatalf("/api/version asked %d times", n)
	}
	if o.Hits("/api/ps")+o.Hits("/api/show") != 0 {
		t.Fatal("a server that is not Ollama was asked for models")
	}
}

// TestWhoIsProbed: named cloud providers are never probed; provider
// ollama and custom are, and any provider on Ollama's port.
func TestWhoIsProbed(t *testing.T) {
	for _, c := range []struct {
		provider, root string
		want           bool
	}{
		{"openai", "https://api.openai.com", false},
		{"openrouter", "https://openrouter.ai/api", false},
		{"openai", "http://127.0.0.1:8080", false},
		{"openai", "http://gpu-box:11434", true},
		{"custom", "https://llm.example.com", true},
		{"ollama", "https://ollama.example.com", true},
	} {
		if got := mayBeOllama(c.provider, c.root); got != c.want {
			t.Errorf("%s %s: %v", c.provider, c.root, got)
		}
	}
}

// TestRootAndNames: the server root drops /v1; model names match with
// or without the :latest tag.
func TestRootAndNames(t *testing.T) {
	if r := Root("http://127.0.0.1:11434/v1/"); r != "http://127.0.0.1:11434" {
		t.Errorf("root %q", r)
	}
	if fullName("qwen3") != "qwen3:latest" || fullName("hf.co/x/y:Q4") != "hf.co/x/y:Q4" || fullName("library/qwen3") != "library/qwen3:latest" {
		t.Error("fullName")
	}
	if n := paramNumCtx("stop \"x\"\nnum_ctx 16384\n"); n != 16384 {
		t.Errorf("num_ctx %d", n)
	}
	if n := maxContext(map[string]any{"general.architecture": "llama", "llama.context_length": float64(131072)}); n != 131072 {
		t.Errorf("max %d", n)
	}
}

var _ providers.RuntimeContexter = (*chatTransport)(nil)
