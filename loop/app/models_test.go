package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"talaria/loop/config"
)

// modelServer answers one models endpoint; it counts the requests and
// refuses those without the expected header.
func modelServer(t *testing.T, path, header, value string, answer func(r *http.Request) string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.Method != http.MethodGet || r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		if header != "" && r.Header.Get(header) != value {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + r.Header.Get(header) + `"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer(r)))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestModelCatalogWires: each wire's models endpoint is asked the way
// the wire authenticates, its list is read (pages followed, non-chat
// models left out), and the answer is cached per endpoint and key.
func TestModelCatalogWires(t *testing.T) {
	ctx := context.Background()
	t.Run("openai-compatible", func(t *testing.T) {
		srv, n := modelServer(t, "/v1/models", "Authorization", "Bearer sk-test", func(*http.Request) string {
			return `{"object":"list","data":[{"id":"gpt-4o"},{"id":"text-embedding-3-small"},{"id":"gpt-4.1"},{"id":"whisper-1"}]}`
		})
		cat := NewModelCatalog(nil)
		b := config.Backend{Provider: "openai", APIMode: "chat_completions", BaseURL: srv.URL + "/v1", APIKeys: []string{"sk-test"}}
		for range 2 {
			got, err := cat.List(ctx, b)
			if err != nil || strings.Join(got, " ") != "gpt-4.1 gpt-4o" {
				t.Fatalf("list: %q %v", got, err)
			}
		}
		if n.Load() != 1 {
			t.Fatalf("%d requests: the list is not cached", n.Load())
		}
		// Another key is another answer; a wrong one an error naming the
		// status, without the key.
		b.APIKeys = []string{"sk-wrong-secret-value-1234"}
		_, err := cat.List(ctx, b)
		if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "sk-wrong-secret-value-1234") {
			t.Fatalf("wrong key: %v", err)
		}
		// A custom server keeps every model it lists.
		b = config.Backend{Provider: "custom", APIMode: "chat_completions", BaseURL: srv.URL + "/v1/", APIKeys: []string{"sk-test"}}
		if got, err := cat.List(ctx, b); err != nil || len(got) != 4 {
			t.Fatalf("custom: %q %v", got, err)
		}
	})
	t.Run("anthropic", func(t *testing.T) {
		srv, n := modelServer(t, "/v1/models", "x-api-key", "sk-ant-test", func(r *http.Request) string {
			if r.Header.Get("anthropic-version") != anthropicVersion {
				return `{}`
			}
			if r.URL.Query().Get("after_id") == "claude-sonnet-4-5" {
				return `{"data":[{"id":"claude-3-5-haiku","type":"model"}],"has_more":false,"last_id":"claude-3-5-haiku"}`
			}
			return `{"data":[{"id":"claude-opus-4-1","type":"model"},{"id":"claude-sonnet-4-5","type":"model"}],"has_more":true,"last_id":"claude-sonnet-4-5"}`
		})
		b := config.Backend{Provider: "anthropic", APIMode: "anthropic_messages", BaseURL: srv.URL + "/v1", APIKeys: []string{"sk-ant-test"}}
		got, err := NewModelCatalog(nil).List(ctx, b)
		if err != nil || strings.Join(got, " ") != "claude-opus-4-1 claude-sonnet-4-5 claude-3-5-haiku" || n.Load() != 2 {
			t.Fatalf("list: %q %v (%d requests)", got, err, n.Load())
		}
	})
	t.Run("gemini", func(t *testing.T) {
		srv, _ := modelServer(t, "/v1beta/models", "x-goog-api-key", "g-test", func(r *http.Request) string {
			if r.URL.Query().Get("key") != "" {
				return `{}` // the key goes in the header, never the URL
			}
			if r.URL.Query().Get("pageToken") == "p2" {
				return `{"models":[{"name":"models/gemini-2.5-pro","supportedGenerationMethods":["generateContent"]}]}`
			}
			return `{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent","countTokens"]},` +
				`{"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"p2"}`
		})
		b := config.Backend{Provider: "gemini", APIMode: "gemini_native", BaseURL: srv.URL + "/v1beta", APIKeys: []string{"g-test"}}
		got, err := NewModelCatalog(nil).List(ctx, b)
		if err != nil || strings.Join(got, " ") != "gemini-2.5-flash gemini-2.5-pro" {
			t.Fatalf("list: %q %v", got, err)
		}
	})
	t.Run("ollama", func(t *testing.T) {
		srv, _ := modelServer(t, "/api/tags", "", "", func(*http.Request) string {
			return `{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":5200000000},{"name":"llama3.2:latest","model":"llama3.2:latest"}]}`
		})
		b := config.Backend{Provider: "ollama", APIMode: "chat_completions", BaseURL: srv.URL + "/v1"}
		got, err := NewModelCatalog(nil).List(ctx, b)
		if err != nil || strings.Join(got, " ") != "qwen3:8b llama3.2:latest" {
			t.Fatalf("list: %q %v", got, err)
		}
	})
	t.Run("bedrock", func(t *testing.T) {
		_, err := NewModelCatalog(nil).List(ctx, config.Backend{Provider: "bedrock", APIMode: "bedrock_converse", BaseURL: "http://127.0.0.1:1"})
		if err == nil || !strings.Contains(err.Error(), "SigV4") {
			t.Fatalf("bedrock: %v", err)
		}
	})
}

// TestModelCatalogBounded: a server that never answers costs the
// caller's deadline, not a hang; a huge or malformed answer is an error.
func TestModelCatalogBounded(t *testing.T) {
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(stop) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // already over: the request must not wait for the server
	if _, err := NewModelCatalog(nil).List(ctx, config.Backend{Provider: "custom", BaseURL: hang.URL}); err == nil {
		t.Fatal("a hanging server gave a list")
	}
	junk, _ := modelServer(t, "/models", "", "", func(*http.Request) string { return "<html>not json</html>" })
	if _, err := NewModelCatalog(nil).List(context.Background(), config.Backend{Provider: "custom", BaseURL: junk.URL}); err == nil || !strings.Contains(err.Error(), "not the JSON") {
		t.Fatalf("junk: %v", err)
	}
	big, _ := modelServer(t, "/models", "", "", func(*http.Request) string { return `{"data":["` + strings.Repeat("x", modelsMaxBody) + `"]}` })
	if _, err := NewModelCatalog(nil).List(context.Background(), config.Backend{Provider: "custom", BaseURL: big.URL}); err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("huge: %v", err)
	}
}

// TestSwitcherModelsConfiguredFirst: /model's list for a session holds
// the model in use, then the configured ones of its provider, then the
// endpoint's; an endpoint that fails leaves the configured ones and a
// note.
func TestSwitcherModelsConfiguredFirst(t *testing.T) {
	srv, _ := modelServer(t, "/v1/models", "Authorization", "Bearer sk-test", func(*http.Request) string {
		return `{"data":[{"id":"o3"},{"id":"gpt-4o"}]}`
	})
	home, cwd := t.TempDir(), t.TempDir()
	writeConfig(t, home+"/config.yaml", "model:\n  provider: openai\n  name: gpt-4o-mini\n  base_url: "+srv.URL+"/v1\nfallback_providers:\n  - {provider: openai, name: gpt-4.1-nano}\n  - {provider: anthropic, name: claude-sonnet-4-5}\n")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant")
	w := NewSwitcher(context.Background(), Flags{Home: home, Cwd: cwd}, nil)
	defer w.Close()
	if _, err := w.Open(); err != nil {
		t.Fatal(err)
	}
	cat := NewModelCatalog(nil)
	l, err := w.Models(context.Background(), cat)
	if err != nil || l.Provider != "openai" || strings.Join(l.Configured, " ") != "gpt-4o-mini gpt-4.1-nano gpt-4.1" || strings.Join(l.Listed, " ") != "gpt-4o o3" || l.Note != "" {
		t.Fatalf("models: %+v %v", l, err)
	}
	srv.Close()
	l, err = w.Models(context.Background(), NewModelCatalog(nil))
	if err != nil || len(l.Configured) != 3 || len(l.Listed) != 0 || !strings.Contains(l.Note, "/v1/models") {
		t.Fatalf("endpoint down: %+v %v", l, err)
	}
	if l, err := w.Models(context.Background(), cat); err != nil || len(l.Listed) != 2 {
		t.Fatalf("the cached list: %+v %v", l, err)
	}
}

// writeConfig writes a config file for a test.
func writeConfig(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
