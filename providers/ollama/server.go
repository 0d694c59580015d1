// Package ollama speaks Ollama's native API, beside the OpenAI-compatible
// /v1/chat/completions that providers/openaichat speaks to it: it
// recognises an Ollama server (GET /api/version), learns the runtime
// context it runs a model with (GET /api/ps, POST /api/show) and, when
// model.ollama_num_ctx is set, carries the chat itself over /api/chat,
// because num_ctx is honoured only there.
//
// Field names and behaviour were read from Ollama's API reference at
// docs.ollama.com (the OpenAPI "Ollama API" 0.1.0 pages for /api/version,
// /api/ps, /api/show and /api/chat, and the OpenAI-compatibility page's
// "Setting the context size": the OpenAI API cannot set it, use a
// Modelfile, OLLAMA_CONTEXT_LENGTH or the native options) and checked
// against ollama/ollama's source (api/types.go, server/routes.go,
// server/sched.go, openai/openai.go, whose ChatCompletionRequest has no
// options field, so options.num_ctx sent to /v1 is dropped and a /v1
// request with the default num_ctx reloads a model loaded with another).
package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"talaria/providers"
)

// DefaultContext is Ollama's documented default runtime context when
// neither the request, the Modelfile nor OLLAMA_CONTEXT_LENGTH sets one
// (2048 before 2025-04, 4096 since; newer builds may pick more from the
// VRAM): talaria shows it as assumed and never refuses a request on it.
const DefaultContext = 4096

// MinToolContext is the runtime context Hermes documents as the minimum
// for tool use (MINIMUM_CONTEXT_LENGTH), and SuggestedNumCtx the value it
// suggests for model.ollama_num_ctx.
const (
	MinToolContext  = 64_000
	SuggestedNumCtx = 65536
)

// Time bounds of the native calls: recognising a server must be quick (a
// server that is not Ollama costs this once); the model information is
// local work; loading a model to learn the server's default context may
// read gigabytes from disk.
const (
	probeTimeout = 2 * time.Second
	infoTimeout  = 10 * time.Second
	loadTimeout  = 3 * time.Minute
	maxInfoBody  = 8 << 20
)

// Root is the server root of a base URL: without trailing slashes and
// without the /v1 of the OpenAI-compatible endpoint.
func Root(base string) string {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	return strings.TrimSuffix(base, "/v1")
}

// Server is one Ollama (or possibly Ollama) server, reached through hc.
// It recognises the server once and then answers from memory; it is safe
// for concurrent use.
type Server struct {
	hc       *http.Client
	root     string
	provider string
	// numCtx is the num_ctx every request asks for (0: the server's).
	numCtx int

	mu      sync.Mutex
	probed  bool
	ollama  bool
	version string
}

// NewServer is the server at base (an OpenAI-compatible base URL or the
// server root) for the configured provider; numCtx is
// model.ollama_num_ctx.
func NewServer(hc *http.Client, base, provider string, numCtx int) *Server {
	return &Server{hc: hc, root: Root(base), provider: provider, numCtx: numCtx}
}

// mayBeOllama reports whether a server is worth asking: provider ollama
// or custom (any OpenAI-compatible server, Ollama among them), or a base
// URL on Ollama's port 11434 (Ollama behind provider openai and
// OPENAI_BASE_URL). A named cloud provider is never probed.
func mayBeOllama(provider, root string) bool {
	switch provider {
	case "ollama", "custom":
		return true
	}
	u, err := url.Parse(root)
	return err == nil && u.Port() == "11434"
}

// IsOllama reports whether the server is Ollama: provider ollama, or a
// server answering GET /api/version with a version. It asks once; a
// failed probe counts as "not Ollama" for good, except under provider
// ollama, which stays Ollama (its version unknown).
func (s *Server) IsOllama(ctx context.Context) (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.probed {
		return s.ollama, s.version
	}
	s.probed = true
	if mayBeOllama(s.provider, s.root) {
		var v struct {
			Version string `json:"version"`
		}
		if err := s.get(ctx, probeTimeout, "/api/version", &v); err == nil && v.Version != "" {
			s.ollama, s.version = true, v.Version
		}
	}
	if s.provider == "ollama" {
		s.ollama = true
	}
	return s.ollama, s.version
}

// psResponse is GET /api/ps: the models loaded in memory.
type psResponse struct {
	Models []struct {
		Name          string `json:"name"`
		Model         string `json:"model"`
		ContextLength int    `json:"context_length"`
	} `json:"models"`
}

// showResponse is the part of POST /api/show read here: the Modelfile
// parameters as text ("num_ctx 8192" lines) and the model's metadata,
// whose "<architecture>.context_length" is the model's own maximum.
type showResponse struct {
	Parameters string         `json:"parameters"`
	ModelInfo  map[string]any `json:"model_info"`
}

// RuntimeContext learns the runtime context of model on an Ollama server:
// the configured num_ctx (sent with every request); else the loaded
// model's context_length (/api/ps); else the Modelfile's num_ctx
// parameter (/api/show); else the server's default, read from /api/ps
// after loading the model (POST /api/generate without a prompt, what the
// first chat would do anyway); else DefaultContext, Assumed. Max is the
// model's own maximum from /api/show. ok is false when the server is not
// Ollama.
func (s *Server) RuntimeContext(ctx context.Context, model string) (providers.RuntimeContext, bool, error) {
	isOllama, version := s.IsOllama(ctx)
	if !isOllama {
		return providers.RuntimeContext{}, false, nil
	}
	rc := providers.RuntimeContext{Server: strings.TrimSpace("Ollama " + version)}
	var show showResponse
	showErr := s.post(ctx, infoTimeout, "/api/show", map[string]string{"model": model, "name": model}, &show)
	if showErr == nil {
		rc.Max = maxContext(show.ModelInfo)
	}
	if s.numCtx > 0 {
		rc.Tokens, rc.Source = s.numCtx, "model.ollama_num_ctx"
		return rc, true, nil
	}
	if n, err := s.loaded(ctx, model); err == nil && n > 0 {
		rc.Tokens, rc.Source = n, "the loaded model (/api/ps)"
		return rc, true, nil
	}
	if n := paramNumCtx(show.Parameters); showErr == nil && n > 0 {
		rc.Tokens, rc.Source = n, "the model's num_ctx parameter (/api/show)"
		return rc, true, nil
	}
	if err := s.load(ctx, model); err == nil {
		if n, err := s.loaded(ctx, model); err == nil && n > 0 {
			rc.Tokens, rc.Source = n, "the server's default (the model as loaded, /api/ps)"
			return rc, true, nil
		}
	}
	if ctx.Err() != nil {
		return rc, true, ctx.Err()
	}
	rc.Tokens, rc.Source, rc.Assumed = DefaultContext, "Ollama's documented default (assumed)", true
	return rc, true, showErr
}

// loaded is the context_length of model as /api/ps lists it loaded; 0
// when it is not loaded.
func (s *Server) loaded(ctx context.Context, model string) (int, error) {
	var ps psResponse
	if err := s.get(ctx, infoTimeout, "/api/ps", &ps); err != nil {
		return 0, err
	}
	want := fullName(model)
	for _, m := range ps.Models {
		if fullName(m.Model) == want || fullName(m.Name) == want {
			return m.ContextLength, nil
		}
	}
	return 0, nil
}

// load loads model with the server's default options.
func (s *Server) load(ctx context.Context, model string) error {
	var out struct {
		Done bool `json:"done"`
	}
	return s.post(ctx, loadTimeout, "/api/generate", map[string]any{"model": model, "stream": false}, &out)
}

// fullName is a model name with its tag: "qwen3" is "qwen3:latest".
func fullName(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}

// paramNumCtx is the num_ctx line of /api/show's parameters text; 0 when
// there is none.
func paramNumCtx(params string) int {
	for _, line := range strings.Split(params, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// maxContext is the model's own maximum from /api/show's model_info: the
// "<general.architecture>.context_length" key, else any key ending in
// ".context_length".
func maxContext(info map[string]any) int {
	num := func(v any) int {
		f, _ := v.(float64)
		return int(f)
	}
	if arch, _ := info["general.architecture"].(string); arch != "" {
		if n := num(info[arch+".context_length"]); n > 0 {
			return n
		}
	}
	for k, v := range info {
		if strings.HasSuffix(k, ".context_length") && num(v) > 0 {
			return num(v)
		}
	}
	return 0
}

// get and post call the native API with a time bound and decode the JSON
// answer into out; a non-2xx answer is an error.
func (s *Server) get(ctx context.Context, limit time.Duration, path string, out any) error {
	return s.do(ctx, limit, http.MethodGet, path, nil, out)
}

func (s *Server) post(ctx context.Context, limit time.Duration, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return s.do(ctx, limit, http.MethodPost, path, body, out)
}

func (s *Server) do(ctx context.Context, limit time.Duration, method, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.root+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxInfoBody))
	if err != nil {
		return err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, res.StatusCode, providers.TruncateBody(raw, 200))
	}
	return json.Unmarshal(raw, out)
}
