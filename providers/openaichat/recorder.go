package openaichat

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"

	"talaria/providers"
	"talaria/providers/sse"
)

// maxPlainBody bounds a 2xx JSON body answering a stream request, read
// into memory by the recorder.
const maxPlainBody = 64 << 20

// callKey is the context key of a *callState.
type callKey struct{}

// callState is what one Stream call learns from the HTTP layer that
// go-openai does not pass on. The recorder fills it; it travels in the
// request context, so concurrent calls never share one.
type callState struct {
	// rewrite, when set, replaces the JSON request body before it is sent.
	rewrite func([]byte) ([]byte, error)

	status  int
	headers http.Header
	// errBody is the raw body of a non-2xx response.
	errBody []byte
	// plain is set, and plainBody holds the body, when a 2xx answer was a
	// whole JSON document or HTML page rather than a stream (a server that
	// ignored stream:true, an error reported with 200, a captive portal).
	plain     bool
	plainBody []byte
	// sawDone is set when the data: [DONE] line went by.
	sawDone bool
}

func withCallState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, callKey{}, st)
}

// recorder is the http.RoundTripper wrapped around the endpoint's own. For
// requests carrying a *callState it records status, headers and error
// bodies, and filters SSE bodies (see sseFilter).
type recorder struct {
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(callKey{}).(*callState)
	if st == nil {
		return r.next.RoundTrip(req)
	}
	if st.rewrite != nil && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if body, err = st.rewrite(body); err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	st.status = resp.StatusCode
	st.headers = resp.Header.Clone()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		st.errBody, err = readAllLimited(resp.Body, resp.Body, providers.MaxErrorBody)
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(st.errBody))
		return resp, nil
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	if !sse.IsEventStream(resp.Header.Get("Content-Type")) && !sse.LooksLikeStream(br) {
		// A whole JSON document or an HTML page, not a stream.
		st.plainBody, err = readAllLimited(br, resp.Body, maxPlainBody)
		if err != nil {
			return nil, err
		}
		st.plain = true
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp, nil
	}
	resp.Body = &sseFilter{src: br, body: resp.Body, st: st}
	return resp, nil
}

func readAllLimited(r io.Reader, c io.Closer, limit int64) ([]byte, error) {
	defer c.Close()
	return io.ReadAll(io.LimitReader(r, limit))
}

// sseFilter passes an SSE body through line by line for go-openai. It
// drops comment lines (": keep-alive", ": OPENROUTER PROCESSING") and blank
// lines, which go-openai would count towards its EmptyMessagesLimit and mix
// into its error accumulator; go-openai reads one data line per event, so
// nothing it uses is lost. It notes the data: [DONE] line, which go-openai
// reports exactly like a cut connection. And it turns `data: {"error":…`
// into `data: { "error":…`, the same JSON that go-openai no longer takes
// for an error line, so every in-stream error (and "error":null) reaches
// the chunk decoder, which reads them all the same way.
type sseFilter struct {
	src     *bufio.Reader
	body    io.ReadCloser
	st      *callState
	pending []byte // rest of the current line, still to hand out
	midLine bool   // the previous ReadSlice ended inside a long line
	drop    bool   // the current (long) line is being dropped
	err     error  // read error to report once pending is drained
}

// Markers the filter looks for at the start of a data line.
const (
	dataField   = "data:"
	doneMarker  = "[DONE]"
	errorMarker = `{"error":`
)

// Read implements io.Reader.
func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.src.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			f.err = err
		}
		if len(line) == 0 {
			continue
		}
		if !f.midLine {
			f.drop, line = f.classify(line)
		}
		f.midLine = line[len(line)-1] != '\n'
		if !f.drop {
			f.pending = line
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// classify looks at the start of a line: it reports whether to drop it,
// and returns the line to pass on (a copy when an error line is patched).
func (f *sseFilter) classify(line []byte) (bool, []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] == ':' {
		return true, line
	}
	data, ok := bytes.CutPrefix(t, []byte(dataField))
	if !ok {
		return false, line
	}
	data = bytes.TrimSpace(data)
	switch {
	case string(data) == doneMarker:
		f.st.sawDone = true
	case bytes.HasPrefix(data, []byte(errorMarker)):
		i := bytes.IndexByte(line, '{')
		patched := make([]byte, 0, len(line)+1)
		patched = append(patched, line[:i+1]...)
		patched = append(patched, ' ')
		return false, append(patched, line[i+1:]...)
	}
	return false, line
}

// unpatchError restores an error line patched by sseFilter.classify.
func unpatchError(raw []byte) []byte {
	if rest, ok := bytes.CutPrefix(raw, []byte(`{ "error":`)); ok {
		return append([]byte(`{"error":`), rest...)
	}
	return raw
}

// Close implements io.Closer.
func (f *sseFilter) Close() error { return f.body.Close() }
