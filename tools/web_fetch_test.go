package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func fetch(t *testing.T, ctx context.Context, args map[string]any) Result {
	t.Helper()
	b, _ := json.Marshal(args)
	return NewRegistry(WebFetchTool{}).Call(ctx, &Env{}, "web_fetch", string(b))
}

const page = `<!doctype html><html><head><title>Docs  page</title><style>p{}</style><script>alert(1)</script></head>
<body><nav><a href="/x">menu</a></nav><main>
<h2>Install <em>it</em></h2>
<p>Read the <a href="/guide?a=1">guide</a> first, then run <code>go build</code>.</p>
<pre><code class="language-go">func main() {
	println("hi")
}</code></pre>
<ul><li>one</li><li>two <strong>bold</strong></li></ul>
</main></body></html>`

func TestWebFetchTurnsHTMLIntoMarkdown(t *testing.T) {
	var ua, cookie string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua, cookie = r.UserAgent(), r.Header.Get("Cookie")
		if r.URL.Path == "/start" {
			http.SetCookie(w, &http.Cookie{Name: "s", Value: "secret"})
			http.Redirect(w, r, "/page", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	defer srv.Close()
	res := fetch(t, context.Background(), map[string]any{"url": srv.URL + "/start"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	for _, want := range []string{
		"200 OK " + srv.URL + "/page (text/html), redirected from " + srv.URL + "/start",
		"# Docs page\n\n## Install _it_\n\n",
		"Read the [guide](" + srv.URL + "/guide?a=1) first, then run `go build`.",
		"```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```",
		"- one\n- two **bold**",
	} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("missing %q in:\n%s", want, res.Output)
		}
	}
	for _, not := range []string{"alert", "menu", "p{}"} {
		if strings.Contains(res.Output, not) {
			t.Errorf("%q (script, style or nav) leaked into:\n%s", not, res.Output)
		}
	}
	if !strings.HasPrefix(ua, "talaria") || cookie != "" {
		t.Fatalf("User-Agent %q, Cookie %q: want talaria's, and no cookie", ua, cookie)
	}
}

func TestWebFetchCutsAHugeBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := strings.Repeat("x", 1<<20)
		for range 50 { // 50 MiB, stopped early when the client goes
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	res := fetch(t, context.Background(), map[string]any{"url": srv.URL, "max_bytes": 1 << 20})
	if res.IsError || !strings.Contains(res.Output, "body cut at 1048576 bytes") {
		t.Fatalf("%.300s", res.Output)
	}
	if len(res.Output) > webFetchMaxOutput+200 {
		t.Fatalf("output of %d bytes is over the cap", len(res.Output))
	}
	res = fetch(t, context.Background(), map[string]any{"url": srv.URL})
	if !strings.Contains(res.Output, fmt.Sprintf("body cut at %d bytes", WebFetchDefaultBytes)) {
		t.Fatalf("default cap: %.300s", res.Output)
	}
	if res := fetch(t, context.Background(), map[string]any{"url": srv.URL, "max_bytes": WebFetchMaxBytes + 1}); !res.IsError {
		t.Fatalf("max_bytes over the limit accepted: %.200s", res.Output)
	}
}

func TestWebFetchStopsARedirectLoop(t *testing.T) {
	hops := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops++
		http.Redirect(w, r, "/loop", http.StatusFound)
	}))
	defer srv.Close()
	res := fetch(t, context.Background(), map[string]any{"url": srv.URL})
	if !res.IsError || !strings.Contains(res.Output, "stopped after 5 redirects") || hops != 6 {
		t.Fatalf("%d requests: %s", hops, res.Output)
	}
}

func TestWebFetchRefusesARedirectToAnotherScheme(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	}))
	defer srv.Close()
	res := fetch(t, context.Background(), map[string]any{"url": srv.URL})
	if !res.IsError || !strings.Contains(res.Output, "only http and https") {
		t.Fatal(res.Output)
	}
}

func TestWebFetchRefusesBinary(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sniffed" {
			w.Header()["Content-Type"] = nil
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00"))
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte{0, 1, 2})
	}))
	defer srv.Close()
	res := fetch(t, context.Background(), map[string]any{"url": srv.URL})
	if !res.IsError || !strings.Contains(res.Output, "is application/octet-stream, not text") {
		t.Fatal(res.Output)
	}
	res = fetch(t, context.Background(), map[string]any{"url": srv.URL + "/sniffed"})
	if !res.IsError || !strings.Contains(res.Output, "image/png") {
		t.Fatal(res.Output)
	}
}

func TestWebFetchTimesOutASlowServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res := fetch(t, ctx, map[string]any{"url": srv.URL})
	if !res.IsError || !strings.Contains(res.Output, "timed out") {
		t.Fatal(res.Output)
	}
}

func TestWebFetchBadArguments(t *testing.T) {
	for _, u := range []string{"", "file:///etc/passwd", "ftp://x/y", "http://", "http://user:pw@example.com/"} {
		res := fetch(t, context.Background(), map[string]any{"url": u})
		if !res.IsError {
			t.Errorf("%q accepted: %s", u, res.Output)
		}
	}
}

func TestWebFetchApprovalsArePerDomain(t *testing.T) {
	asked := 0
	a := NewApprover(ApprovalAsk, func(ctx context.Context, req ApprovalRequest) (ApprovalDecision, error) {
		asked++
		return ApprovalDecision{Allow: true, Scope: ScopeSession}, nil
	})
	call := func(u string) bool {
		ok, _ := a.Check(context.Background(), "web_fetch", `{"url":"`+u+`"}`)
		return ok
	}
	if !call("https://Example.com/a") || !call("https://example.com/b") || asked != 1 {
		t.Fatalf("the session approval did not cover the domain: asked %d times", asked)
	}
	if !call("https://other.org/") || asked != 2 {
		t.Fatalf("another domain was not asked for: asked %d times", asked)
	}
	// Headless ask mode refuses; read-only mode does not refuse it.
	if ok, denial := NewApprover(ApprovalAsk, nil).Check(context.Background(), "web_fetch", `{"url":"https://example.com/"}`); ok || !strings.Contains(denial.Output, "needs the user's approval") {
		t.Fatalf("headless: %v %s", ok, denial.Output)
	}
	ro := NewApprover(ApprovalReadOnly, func(context.Context, ApprovalRequest) (ApprovalDecision, error) {
		return ApprovalDecision{Allow: true}, nil
	})
	if ok, denial := ro.Check(context.Background(), "web_fetch", `{"url":"https://example.com/"}`); !ok {
		t.Fatalf("read-only mode refused web_fetch: %s", denial.Output)
	}
	if ok, _ := NewApprover(ApprovalAsk, nil).Check(context.Background(), "web_fetch", `{"url":"file:///etc/passwd"}`); ok {
		t.Fatal("an invalid URL passed the approver")
	}
}

func FuzzHTMLToMarkdown(f *testing.F) {
	f.Add(page)
	f.Add("<pre>```</pre><a href='javascript:x'>y</a><ol><li><ol><li>z")
	base, _ := url.Parse("https://example.com/dir/")
	f.Fuzz(func(t *testing.T, src string) {
		_ = htmlToMarkdown(src, base)
	})
}
