package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Ollama is an httptest server that speaks Ollama's native API and its
// OpenAI-compatible chat endpoint with the real JSON shapes: GET
// /api/version, GET /api/ps, POST /api/show, POST /api/generate (an empty
// prompt loads the model), POST /api/chat (newline-delimited JSON) and
// POST /v1/chat/completions (server-sent events). Every chat answers with
// the text Reply. Configure the fields before the first request.
type Ollama struct {
	*httptest.Server
	// Version is /api/version's; "" makes /api/version a 404 (a server
	// that is not Ollama).
	Version string
	// Model is the one model the server has, e.g. "qwen3:latest".
	Model string
	// Loaded is the context_length /api/ps lists the model loaded with; 0:
	// not loaded (an empty list).
	Loaded int
	// NumCtx is the Modelfile's num_ctx parameter in /api/show; 0: none.
	NumCtx int
	// Default is the context a load (/api/generate) gives the model; 0:
	// /api/generate is a 404.
	Default int
	// Max is the model's own maximum in /api/show's model_info.
	Max int
	// Reply is the text of every chat answer.
	Reply string

	mu     sync.Mutex
	hits   map[string]int
	chats  []map[string]any // bodies of /api/chat and /v1/chat/completions
	native []map[string]any // bodies of /api/chat
}

// NewOllama starts an Ollama with model qwen3:latest (40,960 tokens at
// most) answering "ok"; it is closed when the test ends.
func NewOllama(t testing.TB) *Ollama {
	t.Helper()
	o := &Ollama{Version: "0.12.6", Model: "qwen3:latest", Max: 40960, Reply: "ok", hits: map[string]int{}}
	o.Server = httptest.NewServer(http.HandlerFunc(o.handle))
	t.Cleanup(o.Close)
	return o
}

// URL is the OpenAI-compatible base URL, as model.base_url holds it.
func (o *Ollama) URL() string { return o.Server.URL + "/v1" }

// Hits counts the requests to path ("/api/ps", "/v1/chat/completions").
func (o *Ollama) Hits(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[path]
}

// NativeChats returns the bodies of the /api/chat requests.
func (o *Ollama) NativeChats() []map[string]any {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]map[string]any(nil), o.native...)
}

// Chats returns the bodies of every chat request, native or /v1.
func (o *Ollama) Chats() []map[string]any {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]map[string]any(nil), o.chats...)
}

func (o *Ollama) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	o.mu.Lock()
	o.hits[r.URL.Path]++
	o.mu.Unlock()
	switch r.Method + " " + r.URL.Path {
	case "GET /api/version":
		if o.Version == "" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"version":%q}`, o.Version)
	case "GET /api/ps":
		o.ps(w)
	case "POST /api/show":
		o.show(w, body)
	case "POST /api/generate":
		if o.Default == 0 {
			http.Error(w, `{"error":"404 page not found"}`, http.StatusNotFound)
			return
		}
		o.mu.Lock()
		o.Loaded = o.Default
		o.mu.Unlock()
		fmt.Fprintf(w, `{"model":%q,"created_at":"2026-01-02T10:00:00.000000Z","response":"","done":true,"done_reason":"load"}`, o.Model)
	case "POST /api/chat":
		o.record(body, true)
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintf(w, "{\"model\":%q,\"created_at\":\"2026-01-02T10:00:01Z\",\"message\":{\"role\":\"assistant\",\"content\":%q},\"done\":false}\n", o.Model, o.Reply)
		fmt.Fprintf(w, "{\"model\":%q,\"created_at\":\"2026-01-02T10:00:02Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"total_duration\":4883583458,\"load_duration\":1334875,\"prompt_eval_count\":26,\"prompt_eval_duration\":342546000,\"eval_count\":2,\"eval_duration\":4535599000}\n", o.Model)
	case "POST /v1/chat/completions":
		o.record(body, false)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\",\"created\":1767348001,\"model\":%q,\"system_fingerprint\":\"fp_ollama\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%q},\"finish_reason\":null}]}\n\n", o.Model, o.Reply)
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\",\"created\":1767348001,\"model\":%q,\"system_fingerprint\":\"fp_ollama\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", o.Model)
		io.WriteString(w, "data: [DONE]\n\n")
	default:
		http.NotFound(w, r)
	}
}

func (o *Ollama) record(body map[string]any, native bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.chats = append(o.chats, body)
	if native {
		o.native = append(o.native, body)
	}
}

// ps answers GET /api/ps as Ollama does (docs.ollama.com/api/ps).
func (o *Ollama) ps(w http.ResponseWriter) {
	o.mu.Lock()
	loaded := o.Loaded
	o.mu.Unlock()
	if loaded == 0 {
		io.WriteString(w, `{"models":[]}`)
		return
	}
	fmt.Fprintf(w, `{"models":[{"name":%q,"model":%q,"size":6591830464,"digest":"a2af6cc3eb7fa8be8504abaf9b04e88f17a119ec3f04a3addf55f92841195f5a","details":{"parent_model":"","format":"gguf","family":"qwen3","families":["qwen3"],"parameter_size":"8.2B","quantization_level":"Q4_K_M"},"expires_at":"2026-01-02T10:05:00.000000Z","size_vram":5333539264,"context_length":%d}]}`,
		o.Model, o.Model, loaded)
}

// show answers POST /api/show as Ollama does
// (docs.ollama.com/api-reference/show-model-details).
func (o *Ollama) show(w http.ResponseWriter, body map[string]any) {
	name, _ := body["model"].(string)
	if name != o.Model && name+":latest" != o.Model {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":"model '%s' not found"}`, name)
		return
	}
	params := []string{`stop "<|im_start|>"`, `stop "<|im_end|>"`, "temperature 0.6"}
	if o.NumCtx > 0 {
		params = append(params, fmt.Sprintf("num_ctx %d", o.NumCtx))
	}
	p, _ := json.Marshal(strings.Join(params, "\n"))
	fmt.Fprintf(w, `{"modelfile":"# Modelfile generated by \"ollama show\"\nFROM qwen3\n","parameters":%s,"template":"{{ .Prompt }}","details":{"parent_model":"","format":"gguf","family":"qwen3","families":["qwen3"],"parameter_size":"8.2B","quantization_level":"Q4_K_M"},"model_info":{"general.architecture":"qwen3","general.parameter_count":8190735360,"qwen3.block_count":36,"qwen3.context_length":%d,"qwen3.embedding_length":4096},"capabilities":["completion","tools","thinking"],"modified_at":"2025-08-14T15:49:43.634137516-07:00"}`,
		p, o.Max)
}
