package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	// OllamaNumCtx is the runtime context (num_ctx) to ask of an Ollama
	// server on every request; 0 leaves it to the server. Ollama takes it
	// only on its native API, so a chat_completions endpoint with it set
	// speaks Ollama's /api/chat (see providers/ollama).
	OllamaNumCtx int
}

// Transport is a wire: it converts neutral requests to one wire format,
// performs a streamed call and assembles the answer. Its conversions are
// unexported in the wire's package. The loop consumes transports through
// its own interface of the same shape (loop.Transport); this one is what
// the registry's factories return.
type Transport interface {
	// Stream sends req and assembles the streamed response, calling onDelta
	// (when non-nil) for each fragment. Errors from the server are returned
	// as *APIError; a stream cut mid-way returns the partial Response along
	// with the error.
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
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

	// parsed is the parse of Body made by ParseBody (nil when Body is not
	// an error body), kept for Classify; parsedFrom is the Body it was made
	// from, and hasParse says ParseBody ran.
	parsed     *ErrorBody
	parsedFrom string
	hasParse   bool
}

// ParseBody sets Body to body and parses it once as a provider error body
// (ParseErrorBody). The wire fills Message, Type and Code from the result
// as its format defines them; Classify reads the same parse. ok is false
// when body is not an error body.
func (e *APIError) ParseBody(body []byte) (eb *ErrorBody, ok bool) {
	e.Body = string(body)
	eb, ok = ParseErrorBody(body)
	e.parsed, e.parsedFrom, e.hasParse = eb, e.Body, true
	return eb, ok
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

// PostJSON sends body as JSON (a []byte as it is, anything else through
// encoding/json) in a POST to url through hc, with Content-Type
// application/json and the headers given as name, value pairs (a pair with
// an empty value is left out). A failure before any answer is an *APIError:
// a body that cannot be encoded, or SendError's "cannot reach BASE" with
// advice. Any answer is returned, whatever its status, for the wire to
// read; the caller closes its body.
func PostJSON(ctx context.Context, hc *http.Client, provider, url, base, advice string, body any, header ...string) (*http.Response, *APIError) {
	req, err := newPost(ctx, url, body)
	if err != nil {
		return nil, LocalError(provider, err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] != "" {
			req.Header.Set(header[i], header[i+1])
		}
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, SendError(ctx, provider, base, err, advice)
	}
	return res, nil
}

// ReusableBody is a request body PostJSON sends as it is: Len bytes, each
// send of the request (a redirect or a retry sends it again) reading its
// own reader from Open, which the HTTP client closes when done with it.
type ReusableBody interface {
	Len() int
	Open() io.ReadCloser
}

// newPost makes the POST request of PostJSON: body is a ReusableBody, JSON
// bytes, or a value to encode.
func newPost(ctx context.Context, url string, body any) (*http.Request, error) {
	if rb, ok := body.(ReusableBody); ok {
		rc := rb.Open()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, rc)
		if err != nil {
			_ = rc.Close()
			return nil, err
		}
		req.ContentLength = int64(rb.Len())
		req.GetBody = func() (io.ReadCloser, error) { return rb.Open(), nil }
		return req, nil
	}
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("encode the request: %w", err)
		}
	}
	return http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
}

// Bearer is the Authorization value for key, "" for no key.
func Bearer(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}
