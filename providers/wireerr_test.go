package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestWithContext checks each case of WithContext.
func TestWithContext(t *testing.T) {
	boom := errors.New("read: connection reset")
	live := context.Background()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if got := WithContext(live, boom); got != boom {
		t.Errorf("live ctx: %v, want the error itself", got)
	}
	if got := WithContext(live, nil); got != nil {
		t.Errorf("live ctx, nil error: %v", got)
	}
	if got := WithContext(ended, nil); got != context.Canceled {
		t.Errorf("ended ctx, nil error: %v, want context.Canceled", got)
	}
	wrapped := &APIError{Err: context.Canceled}
	if got := WithContext(ended, wrapped); got != error(wrapped) {
		t.Errorf("ended ctx, error already wrapping it: %v", got)
	}
	got := WithContext(ended, boom)
	if !errors.Is(got, context.Canceled) || !errors.Is(got, boom) || got.Error() != "context canceled: read: connection reset" {
		t.Errorf("ended ctx: %v, want both errors", got)
	}
}

// TestReadHTTPError checks the fields, the header copy and the body limit.
func TestReadHTTPError(t *testing.T) {
	h := http.Header{"Retry-After": {"7"}}
	res := &http.Response{StatusCode: 429, Header: h, Body: io.NopCloser(strings.NewReader(`{"error":"slow down"}`))}
	e, body := ReadHTTPError("p", res)
	if e.Provider != "p" || e.Status != 429 || e.Body != `{"error":"slow down"}` || string(body) != e.Body ||
		e.Err != nil || e.Message != "" || e.MidStream || e.Headers.Get("Retry-After") != "7" {
		t.Errorf("APIError %+v body %q", e, body)
	}
	h.Set("Retry-After", "8")
	if e.Headers.Get("Retry-After") != "7" {
		t.Error("Headers is not a copy of the response's")
	}

	big := strings.Repeat("x", MaxErrorBody+10)
	e, body = ReadHTTPError("p", &http.Response{StatusCode: 502, Body: io.NopCloser(strings.NewReader(big))})
	if len(body) != MaxErrorBody || len(e.Body) != MaxErrorBody {
		t.Errorf("read %d bytes, want the first %d", len(body), MaxErrorBody)
	}

	boom := errors.New("unexpected EOF in body")
	e, _ = ReadHTTPError("p", &http.Response{StatusCode: 500, Body: io.NopCloser(io.MultiReader(strings.NewReader("part"), &failReader{boom}))})
	if e.Err != boom || e.Body != "part" {
		t.Errorf("read error: %+v", e)
	}
}

type failReader struct{ err error }

func (r *failReader) Read([]byte) (int, error) { return 0, r.err }

// TestSendError checks the message with a live context and its absence
// with an ended one.
func TestSendError(t *testing.T) {
	boom := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	e := SendError(context.Background(), "p", "http://127.0.0.1:1/v1", boom, "check the network and base_url")
	want := "cannot reach http://127.0.0.1:1/v1: dial tcp 127.0.0.1:1: connect: connection refused; check the network and base_url"
	if e.Provider != "p" || e.Status != 0 || e.MidStream || e.Message != want || e.Err != boom {
		t.Errorf("live ctx: %+v", e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e = SendError(ctx, "p", "http://x", boom, "advice")
	if e.Message != "" || !errors.Is(e, context.Canceled) || !errors.Is(e, boom) {
		t.Errorf("ended ctx: %+v", e)
	}
}

// TestStreamCutError checks the mid-stream errors.
func TestStreamCutError(t *testing.T) {
	h := http.Header{"Request-Id": {"req_1"}}
	e := StreamCutError(context.Background(), "p", h, "before its stop_reason")
	if e.Provider != "p" || !e.MidStream || e.Status != 0 || e.Headers.Get("Request-Id") != "req_1" ||
		e.Message != "the stream ended before its stop_reason; the response is incomplete, retry the request" ||
		!errors.Is(e, io.ErrUnexpectedEOF) {
		t.Errorf("APIError %+v", e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if e := StreamCutError(ctx, "p", nil, "x"); !errors.Is(e, context.Canceled) || !errors.Is(e, io.ErrUnexpectedEOF) {
		t.Errorf("ended ctx: %v", e.Err)
	}
	boom := errors.New("boom")
	if e := MidStreamError("p", h, "msg", boom); !e.MidStream || e.Message != "msg" || e.Err != boom || e.Headers.Get("Request-Id") != "req_1" {
		t.Errorf("MidStreamError: %+v", e)
	}
}

// TestTruncateBody checks the cut, which never leaves half a character.
func TestTruncateBody(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdefgh", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: its first one is dropped
		{"", 0, ""},
	} {
		if got := TruncateBody([]byte(tc.in), tc.n); got != tc.want {
			t.Errorf("TruncateBody(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestSummarize checks SummarizeText and SummarizePage on the bodies a
// proxy or a server in the wrong mode sends.
func TestSummarize(t *testing.T) {
	long := strings.Repeat("word ", 100)
	const hint = " (non-JSON error page; check base_url and any proxy in between)"
	tests := []struct {
		status     int
		body       string
		text, page string
	}{
		{502, "  Bad\tgateway \n from upstream ", "Bad gateway from upstream", "Bad gateway from upstream"},
		{503, "", "Service Unavailable", "Service Unavailable"},
		{599, "   ", "HTTP 599 with an empty body", "HTTP 599 with an empty body"},
		{599, "<html></html>", "<html></html>", "HTTP 599 with an empty body"},
		{404, "<html><body></body></html>", "<html><body></body></html>", "Not Found" + hint},
		{502, "<html><head><TITLE>502 Bad Gateway</TITLE></head><body><h1>nginx</h1></body></html>",
			"<html><head><TITLE>502 Bad Gateway</TITLE></head><body><h1>nginx</h1></body></html>", "502 Bad Gateway" + hint},
		{403, "<p>Access &amp; denied</p>\n<p>Ray ID: 1</p>", "<p>Access &amp; denied</p> <p>Ray ID: 1</p>", "Access & denied Ray ID: 1" + hint},
		{500, "x < y and a > b", "x < y and a > b", "x b"},
		{500, long, long[:200] + "…", long[:200] + "…"},
	}
	for _, tc := range tests {
		if got := SummarizeText(tc.status, []byte(tc.body)); got != tc.text {
			t.Errorf("SummarizeText(%d, %q) = %q, want %q", tc.status, tc.body, got, tc.text)
		}
		if got := SummarizePage(tc.status, []byte(tc.body)); got != tc.page {
			t.Errorf("SummarizePage(%d, %q) = %q, want %q", tc.status, tc.body, got, tc.page)
		}
	}
}
