package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"talaria/loop/config"
	"talaria/providers"
	"talaria/providers/ollama"
)

// Bounds of listing a provider's models: one listing (all its pages)
// takes at most modelsTimeout, reads at most modelsMaxBody bytes a page
// and follows at most modelsMaxPages pages.
const (
	modelsTimeout  = 10 * time.Second
	modelsMaxBody  = 8 << 20
	modelsMaxPages = 10
	// anthropicVersion is the anthropic-version header the Messages wire
	// sends too.
	anthropicVersion = "2023-06-01"
)

// ModelList is what /model's picker shows: the models the configuration
// names (the one in use first) and those the provider's endpoint lists;
// Note says why Listed is empty when the endpoint failed.
type ModelList struct {
	Provider   string
	Configured []string
	Listed     []string
	Note       string
}

// ModelCatalog lists providers' models through their models endpoints:
// OpenAI-compatible GET {base}/models, Anthropic GET /v1/models, Gemini
// GET {base}/models, Ollama GET /api/tags. Each successful answer is kept
// for the catalog's life (one interactive run), per endpoint and key; a
// failure is asked again next time. Safe for concurrent use.
type ModelCatalog struct {
	client *http.Client

	mu    sync.Mutex
	cache map[string][]string
}

// NewModelCatalog returns a catalog whose requests go through hc (nil: a
// client of its own, with the listing's timeout).
func NewModelCatalog(hc *http.Client) *ModelCatalog {
	if hc == nil {
		hc = &http.Client{Timeout: modelsTimeout}
	}
	return &ModelCatalog{client: hc, cache: map[string][]string{}}
}

// List returns the models backend b's endpoint offers, in the
// endpoint's order (OpenAI-compatible lists, which have none, sorted).
func (c *ModelCatalog) List(ctx context.Context, b config.Backend) ([]string, error) {
	key := ""
	if len(b.APIKeys) > 0 {
		key = b.APIKeys[0]
	}
	sum := sha256.Sum256([]byte(key))
	id := strings.Join([]string{b.Provider, b.APIMode, b.BaseURL, hex.EncodeToString(sum[:8])}, "\x00")
	c.mu.Lock()
	got, ok := c.cache[id]
	c.mu.Unlock()
	if ok {
		return slices.Clone(got), nil
	}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	var err error
	switch {
	case b.Provider == "ollama":
		got, err = c.ollamaModels(ctx, b, key)
	case b.APIMode == "anthropic_messages":
		got, err = c.anthropicModels(ctx, b, key)
	case b.APIMode == "gemini_native":
		got, err = c.geminiModels(ctx, b, key)
	case b.APIMode == "bedrock_converse":
		err = errors.New("listing Bedrock models needs AWS SigV4 signing, which talaria does not do")
	default:
		got, err = c.openAIModels(ctx, b, key)
	}
	if err != nil {
		return nil, errors.New(providers.NewMasker(key).Mask(err.Error()))
	}
	c.mu.Lock()
	c.cache[id] = got
	c.mu.Unlock()
	return slices.Clone(got), nil
}

// getJSON GETs u with the headers (name, value pairs) and decodes the
// answer into out; a status other than 200 is an error naming it.
func (c *ModelCatalog) getJSON(ctx context.Context, u string, out any, headers ...string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	res, err := c.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said once, without its query
		}
		return fmt.Errorf("GET %s: %w", redactURL(u), err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, modelsMaxBody+1))
	if err != nil {
		return fmt.Errorf("GET %s: reading the answer: %w", redactURL(u), err)
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s%s", redactURL(u), res.Status, bodyHint(body))
	}
	if len(body) > modelsMaxBody {
		return fmt.Errorf("GET %s: the answer is over %d bytes", redactURL(u), modelsMaxBody)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s: not the JSON of a model list: %w", redactURL(u), err)
	}
	return nil
}

// bodyHint is the start of an error body, on one line, for the message.
func bodyHint(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return ": " + s
}

// redactURL drops a URL's user info and query from messages.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "the models endpoint"
	}
	p.User, p.RawQuery = nil, ""
	return p.String()
}

// openAIModels reads GET {base}/models: {"data": [{"id": …}]}. OpenAI's
// own list holds embedding, speech and image models that cannot chat;
// they are left out.
func (c *ModelCatalog) openAIModels(ctx context.Context, b config.Backend, key string) ([]string, error) {
	base := strings.TrimRight(b.BaseURL, "/")
	if base == "" {
		return nil, errors.New("no base URL to list models from")
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.getJSON(ctx, base+"/models", &page, "Authorization", providers.Bearer(key)); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range page.Data {
		if m.ID != "" && !(b.Provider == "openai" && notChat(m.ID)) {
			out = append(out, m.ID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// notChat reports OpenAI model families that do not take chat requests.
func notChat(id string) bool {
	for _, s := range []string{"embedding", "tts", "whisper", "dall-e", "moderation", "transcribe", "davinci", "babbage", "gpt-image"} {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

// anthropicModels reads GET /v1/models, newest first, following
// has_more/last_id.
func (c *ModelCatalog) anthropicModels(ctx context.Context, b config.Backend, key string) ([]string, error) {
	base := strings.TrimSuffix(strings.TrimRight(nonEmptyOr(b.BaseURL, "https://api.anthropic.com"), "/"), "/v1")
	var out []string
	after := ""
	for range modelsMaxPages {
		u := base + "/v1/models?limit=1000"
		if after != "" {
			u += "&after_id=" + url.QueryEscape(after)
		}
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			HasMore bool   `json:"has_more"`
			LastID  string `json:"last_id"`
		}
		if err := c.getJSON(ctx, u, &page, "x-api-key", key, "anthropic-version", anthropicVersion); err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			if m.ID != "" {
				out = append(out, m.ID)
			}
		}
		if !page.HasMore || page.LastID == "" || page.LastID == after {
			break
		}
		after = page.LastID
	}
	return out, nil
}

// geminiModels reads GET {base}/models, following nextPageToken, and
// keeps the models that take generateContent, without "models/".
func (c *ModelCatalog) geminiModels(ctx context.Context, b config.Backend, key string) ([]string, error) {
	base := strings.TrimRight(nonEmptyOr(b.BaseURL, "https://generativelanguage.googleapis.com/v1beta"), "/")
	var out []string
	token := ""
	for range modelsMaxPages {
		u := base + "/models?pageSize=1000"
		if token != "" {
			u += "&pageToken=" + url.QueryEscape(token)
		}
		var page struct {
			Models []struct {
				Name    string   `json:"name"`
				Methods []string `json:"supportedGenerationMethods"`
			} `json:"models"`
			Next string `json:"nextPageToken"`
		}
		if err := c.getJSON(ctx, u, &page, "x-goog-api-key", key); err != nil {
			return nil, err
		}
		for _, m := range page.Models {
			if m.Name != "" && (len(m.Methods) == 0 || slices.Contains(m.Methods, "generateContent")) {
				out = append(out, strings.TrimPrefix(m.Name, "models/"))
			}
		}
		if page.Next == "" || page.Next == token {
			break
		}
		token = page.Next
	}
	return out, nil
}

// ollamaModels reads Ollama's GET /api/tags: the models pulled on the
// server.
func (c *ModelCatalog) ollamaModels(ctx context.Context, b config.Backend, key string) ([]string, error) {
	root := ollama.Root(nonEmptyOr(b.BaseURL, config.Defaults("ollama").BaseURL))
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := c.getJSON(ctx, root+"/api/tags", &tags, "Authorization", providers.Bearer(key)); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range tags.Models {
		if n := nonEmptyOr(m.Name, m.Model); n != "" {
			out = append(out, n)
		}
	}
	return out, nil
}

// nonEmptyOr returns a unless it is empty.
func nonEmptyOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Models is /model's list for the current session: the model in use,
// the configured ones of the same provider (model.name, fallback
// entries, the provider's default), then what the provider's endpoint
// lists (through cat, so asked once a run). An endpoint that fails gives
// the configured ones and a note.
func (w *Switcher) Models(ctx context.Context, cat *ModelCatalog) (ModelList, error) {
	s := w.Current()
	if s == nil {
		return ModelList{}, ErrNoSession
	}
	if s.Store == nil {
		return ModelList{}, errors.New("the offline tour's scripted model cannot be switched")
	}
	b := w.Backend()
	l := ModelList{Provider: b.Provider, Configured: configuredModels(b, s.Config)}
	listed, err := cat.List(ctx, b)
	if err != nil {
		l.Note = oneLineNote(err.Error())
		return l, nil
	}
	l.Listed = listed
	return l, nil
}

// configuredModels lists the models the configuration names for b's
// provider, b's own first, each once.
func configuredModels(b config.Backend, cfg config.Config) []string {
	out := []string{b.Model}
	if cfg.Model.Provider == "" || cfg.Model.Provider == b.Provider {
		out = append(out, cfg.Model.Name)
	}
	for _, f := range cfg.FallbackProviders {
		if f.Provider == b.Provider {
			out = append(out, f.Name)
		}
	}
	out = append(out, config.Defaults(b.Provider).Model)
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(n string) bool {
		drop := n == "" || seen[n]
		seen[n] = true
		return drop
	})
}

// oneLineNote joins s's lines with spaces.
func oneLineNote(s string) string { return strings.Join(strings.Fields(s), " ") }

// getenvWith is os.Getenv, except that name reads value when value is
// set (a key typed in the setup dialog, not stored yet).
func getenvWith(name, value string) func(string) string {
	return func(k string) string {
		if k == name && value != "" {
			return value
		}
		return os.Getenv(k)
	}
}
