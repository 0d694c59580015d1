package providers

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
)

// Endpoint is everything a transport needs to reach one backend.
type Endpoint struct {
	// Provider is the configured provider name (openai, ollama, custom, ...).
	Provider string
	// Model is the model id sent on the wire.
	Model   string
	BaseURL string
	APIKey  string
	// HTTPClient is used for every request; nil means a default client.
	HTTPClient *http.Client
}

// Transport converts neutral messages to one wire format and back, and
// performs a streamed call. The conversion methods are pure; Stream does the
// I/O and reports deltas as they arrive.
type Transport interface {
	// APIMode is the registry key (chat_completions, anthropic_messages, ...).
	APIMode() string
	// ConvertMessages maps neutral messages to the wire's message list.
	ConvertMessages(msgs []Message) (any, error)
	// ConvertTools maps tool specs to the wire's tool list.
	ConvertTools(tools []ToolSpec) (any, error)
	// BuildRequest builds the full wire request body.
	BuildRequest(req Request) (any, error)
	// NormalizeResponse turns a complete wire response into a Response.
	NormalizeResponse(raw any) (*Response, error)
	// Stream sends req and assembles the streamed response, calling onDelta
	// (when non-nil) for each fragment. Errors from the server are returned
	// as *APIError; a stream cut mid-way returns the partial Response along
	// with the error.
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
}

// ResponseValidator is implemented by transports that can reject a
// structurally invalid response (no choices, empty content list, ...).
type ResponseValidator interface {
	ValidateResponse(r *Response) error
}

// CacheStatsExtractor is implemented by transports that report prompt-cache
// reads and writes from a raw wire response.
type CacheStatsExtractor interface {
	CacheStats(raw any) (read, write int)
}

// FinishReasonMapper is implemented by transports whose finish reasons need
// mapping onto the normalized set.
type FinishReasonMapper interface {
	MapFinishReason(wire string) string
}

// Factory builds a transport for an endpoint.
type Factory func(ep Endpoint) (Transport, error)

// Registry maps api_mode names to transport factories. It is safe for
// concurrent use.
type Registry struct {
	mu        sync.RWMutex
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{factories: map[string]Factory{}}
}

// Register adds or replaces the factory for apiMode.
func (r *Registry) Register(apiMode string, f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.factories[apiMode] = f
}

// New builds the transport registered for apiMode.
func (r *Registry) New(apiMode string, ep Endpoint) (Transport, error) {
	r.mu.RLock()
	f, ok := r.factories[apiMode]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown api_mode %q (known: %v)", apiMode, r.Modes())
	}
	return f(ep)
}

// Modes lists the registered api_mode names, sorted.
func (r *Registry) Modes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.factories))
	for k := range r.factories {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// APIError is an error answered by a provider: an HTTP error status, or an
// error object inside a stream that already started.
type APIError struct {
	Provider string
	// Status is the HTTP status; 0 for a transport failure before any
	// response, or for an error event inside a 200 stream.
	Status  int
	Headers http.Header
	// Body is the raw error body (or the in-stream error JSON).
	Body string
	// Message is the provider's error message, when one could be parsed.
	Message string
	// Code and Type are the provider's error code and type, when present.
	Code string
	Type string
	// MidStream is true when the error arrived after the stream started.
	MidStream bool
	// Err is the underlying error (network, decode), if any.
	Err error
}

// Error implements error.
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg == "" {
		msg = e.Body
	}
	// A body may echo the key, an error may quote a URL with userinfo.
	msg = MaskText(msg)
	if e.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, msg)
	}
	return fmt.Sprintf("%s: %s", e.Provider, msg)
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }
