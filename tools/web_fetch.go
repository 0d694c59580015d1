package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of web_fetch.
const (
	// WebFetchDefaultBytes is what is read of a body unless max_bytes says
	// otherwise; WebFetchMaxBytes is the most max_bytes may ask.
	WebFetchDefaultBytes = 5 << 20
	WebFetchMaxBytes     = 50 << 20
	// webFetchMaxRedirects is how many redirects are followed.
	webFetchMaxRedirects = 5
	// webFetchTimeout bounds one fetch, redirects and body included.
	webFetchTimeout = 60 * time.Second
	// webFetchMaxOutput caps the text given to the model, in bytes.
	webFetchMaxOutput = 100_000
	// webFetchUserAgent names talaria to the server.
	webFetchUserAgent = "talaria-web_fetch/1 (terminal coding agent)"
)

// WebFetchTool is the web_fetch tool: an HTTP(S) GET whose HTML is
// turned into Markdown. It sends no cookies and no credentials.
type WebFetchTool struct {
	// Client, when set, replaces the HTTP client (tests); its redirect
	// policy is replaced by web_fetch's own.
	Client *http.Client
}

// Name implements Tool.
func (WebFetchTool) Name() string { return "web_fetch" }

// Description implements Tool.
func (WebFetchTool) Description() string {
	return "Fetch a web page or text file over http(s) (GET) and return its content: HTML is converted to Markdown, other text is returned as is, binary content is refused. " +
		"At most 5 redirects are followed; max_bytes caps what is read of the body (default 5 MiB). No cookies or credentials are sent. Use it to read documentation or an API reference the user points to."
}

// Schema implements Tool.
func (WebFetchTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "The http:// or https:// URL to fetch."},
    "max_bytes": {"type": "integer", "description": "Bytes of the body to read at most (default 5242880, at most 52428800)."}
  },
  "required": ["url"],
  "additionalProperties": false
}`)
}

// webFetchArgs are web_fetch's arguments.
type webFetchArgs struct {
	URL      string `json:"url"`
	MaxBytes int64  `json:"max_bytes"`
}

// target parses and checks the URL: http or https, with a host.
func (a webFetchArgs) target() (*url.URL, error) {
	s := strings.TrimSpace(a.URL)
	if s == "" {
		return nil, errors.New(`argument "url" is required`)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid url %q: %v", s, err)
	}
	if err := checkFetchURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkFetchURL accepts only http and https URLs with a host and without
// credentials in them.
func checkFetchURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("only http and https URLs can be fetched, not %q", u.Scheme+":")
	}
	if u.Hostname() == "" {
		return fmt.Errorf("the URL %q has no host", u.String())
	}
	if u.User != nil {
		return errors.New("URLs with user credentials are not fetched")
	}
	return nil
}

// WebFetchDomain returns the host a web_fetch call fetches, lower case,
// for per-domain approvals; "" when the arguments are invalid.
func WebFetchDomain(raw json.RawMessage) (string, error) {
	var a webFetchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return "", err
	}
	u, err := a.target()
	if err != nil {
		return "", err
	}
	return strings.ToLower(u.Hostname()), nil
}

// Run implements Tool.
func (t WebFetchTool) Run(ctx context.Context, _ *Env, raw json.RawMessage) Result {
	var a webFetchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("web_fetch: %v", err)
	}
	u, err := a.target()
	if err != nil {
		return Errorf("web_fetch: %v", err)
	}
	limit := a.MaxBytes
	switch {
	case limit == 0:
		limit = WebFetchDefaultBytes
	case limit < 0 || limit > WebFetchMaxBytes:
		return Errorf("web_fetch: max_bytes must be between 1 and %d, got %d", WebFetchMaxBytes, limit)
	}
	ctx, cancel := context.WithTimeout(ctx, webFetchTimeout)
	defer cancel()
	client := t.client()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Errorf("web_fetch: %v", err)
	}
	req.Header.Set("User-Agent", webFetchUserAgent)
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return Errorf("web_fetch: %s timed out (after at most %s)", u, webFetchTimeout)
		}
		return Errorf("web_fetch: %v", err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	truncated := int64(len(body)) > limit
	if truncated {
		body = body[:limit]
	}
	if err != nil && !truncated {
		if ctx.Err() != nil {
			return Errorf("web_fetch: %s timed out while reading the body", u)
		}
		return Errorf("web_fetch: reading %s: %v", final, err)
	}
	ctype := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ctype)
	if mt == "" { // none given: sniffed, and said so
		ctype = http.DetectContentType(body)
		mt, _, _ = mime.ParseMediaType(ctype)
		ctype += " (sniffed)"
	}
	var text string
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		text = htmlToMarkdown(string(body), final)
	case isTextType(mt):
		text = string(body)
	default:
		return Errorf("web_fetch: %s is %s, not text; web_fetch returns text and HTML only", final, orUnknown(ctype))
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)", resp.Status, final, orUnknown(mt))
	if final.String() != u.String() {
		fmt.Fprintf(&b, ", redirected from %s", u)
	}
	if truncated {
		fmt.Fprintf(&b, "; body cut at %d bytes (max_bytes)", limit)
	}
	b.WriteString("\n\n")
	out := b.String() + text
	if len(out) > webFetchMaxOutput {
		cut := webFetchMaxOutput
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + fmt.Sprintf("\n\n[... output cut at %d bytes of %d]", cut, len(out))
	}
	return Result{Output: out, IsError: resp.StatusCode >= 400}
}

// client returns the HTTP client: no cookie jar, web_fetch's redirect
// policy (at most 5 hops, each an http(s) URL).
func (t WebFetchTool) client() *http.Client {
	c := &http.Client{}
	if t.Client != nil {
		*c = *t.Client
	}
	c.Jar = nil
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > webFetchMaxRedirects {
			return fmt.Errorf("stopped after %d redirects (last to %s)", webFetchMaxRedirects, req.URL)
		}
		if err := checkFetchURL(req.URL); err != nil {
			return fmt.Errorf("redirect to %s refused: %v", req.URL, err)
		}
		// No credentials travel: Go drops Authorization across hosts, and
		// web_fetch never sets any.
		req.Header.Del("Cookie")
		return nil
	}
	return c
}

// isTextType reports media types returned as they are.
func isTextType(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-javascript",
		"application/ecmascript", "application/x-yaml", "application/yaml", "application/toml", "application/x-sh":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown content type"
	}
	return s
}

// webFetchURL returns the url argument of raw web_fetch arguments (already
// checked by WebFetchDomain), for the approval summary.
func webFetchURL(raw json.RawMessage) string {
	var a webFetchArgs
	_ = json.Unmarshal(raw, &a)
	return a.URL
}
