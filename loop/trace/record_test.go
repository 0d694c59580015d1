package trace

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"talaria/providers"
)

// nopCloser adapts a buffer to the recorder's closer.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// TestRecordingHoldsNoKey tries every place a key can travel: the
// Authorization and vendor key headers, a URL query parameter, the request
// body (raw and JSON-escaped) and a response that echoes it.
func TestRecordingHoldsNoKey(t *testing.T) {
	const key = "sk-ant-<secret>&/value+1"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "session="+key)
		w.Write([]byte(`{"echo":` + string(body) + `,"auth":"` + r.Header.Get("Authorization") + `"}`))
	}))
	defer srv.Close()
	var buf bytes.Buffer
	rec := newRecorder(&buf, nopCloser{}, []string{key})
	rec.write(Header{Type: "header", Version: RecordVersion, SystemPrompt: "prompt mentioning " + key})
	client := &http.Client{Transport: rec.Transport(nil, "anthropic_messages", "m")}
	body := `{"model":"m","messages":[{"role":"user","content":"my key is ` + key + ` and \u003c"}]}`
	req, _ := http.NewRequest("POST", srv.URL+"/v1/messages?key="+key, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("X-Goog-Api-Key", key)
	req.Header.Set("Api-Key", key)
	req.Header.Set("X-Custom-Auth-Token", "tok-12345678")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, leak := range []string{key, "sk-ant-", "\\u003csecret\\u003e", "tok-12345678", "Set-Cookie"} {
		if strings.Contains(out, leak) {
			t.Fatalf("recording holds %q:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, `"X-Api-Key":"[REDACTED]"`) || !strings.Contains(out, `"type":"response"`) || !strings.Contains(out, "my key is [REDACTED]") {
		t.Fatalf("recording lacks the redacted request or the response:\n%s", out)
	}
	parsed, err := ParseRecording(strings.NewReader(out))
	if err != nil || len(parsed.Lines) != 2 {
		t.Fatalf("parse back: %v %+v", err, parsed)
	}
}

func TestParseRecordingRejectsOtherVersions(t *testing.T) {
	if _, err := ParseRecording(strings.NewReader(`{"type":"header","version":99}` + "\n")); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("err %v", err)
	}
	if _, err := ParseRecording(strings.NewReader(`{"type":"header","version":1}` + "\n{broken\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err %v", err)
	}
	if _, err := ParseRecording(strings.NewReader(`{"type":"request"}` + "\n")); err == nil {
		t.Fatal("a file without header was accepted")
	}
}

func TestFirstDiffNamesThePath(t *testing.T) {
	a := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}}
	b := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "ho"}}}
	p, x, y, d := firstDiff("$", a, b)
	if !d || p != "$.messages[0].content" || x != `"hi"` || y != `"ho"` {
		t.Fatalf("%v %q %q %q", d, p, x, y)
	}
	if _, _, _, d := firstDiff("$", a, a); d {
		t.Fatal("equal values differ")
	}
}

// fullFake is a store with the optional methods the loop looks for.
type fullFake struct {
	mu        sync.Mutex
	turnEnds  int
	apiCalls  int
	toolMsgs  int
	snapshots int
}

func (f *fullFake) count(msgs []providers.Message) {
	for _, m := range msgs {
		if m.Role == providers.RoleTool {
			f.toolMsgs++
		}
	}
}

func (f *fullFake) AppendMessages(_ string, _ int, msgs ...providers.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.count(msgs)
	return nil
}

func (f *fullFake) AddUsage(_ string, n int, _ providers.Usage) error {
	return f.AddUsageCost("", n, providers.Usage{}, 0)
}

func (f *fullFake) AddUsageCost(_ string, n int, _ providers.Usage, _ float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apiCalls += n
	return nil
}

func (f *fullFake) SaveTurnEnd(_ string, _ int, msgs []providers.Message, n int, _ providers.Usage, _ float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turnEnds++
	f.apiCalls += n
	f.count(msgs)
	return nil
}

func (f *fullFake) SaveSnapshot(string, []providers.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snapshots++
	return nil
}

// TestRecordingKeepsTheStoreWhole: the recorder stands between the loop
// and the session's store; the loop must still find the store's one-commit
// turn end (which carries the cost) and snapshots, and every tool result
// must still be recorded, whichever of the two paths saves it.
func TestRecordingKeepsTheStoreWhole(t *testing.T) {
	st := &fullFake{}
	wrapped := newRecorder(io.Discard, nopCloser{}, nil).WrapStore(st)
	if _, ok := wrapped.(interface {
		SaveSnapshot(string, []providers.Message) error
	}); !ok {
		t.Fatal("the wrapped store hides SaveSnapshot: compaction snapshots would not be saved")
	}
	const n = 3
	rec := recordCallsTo(t, n, func(i int) string { return fmt.Sprintf(`{"n":%d}`, i) }, echoTool{}, st)
	if st.turnEnds != 1 || st.apiCalls != n+1 || st.toolMsgs != n {
		t.Fatalf("store saw %d turn ends, %d API calls, %d tool results; want 1, %d, %d", st.turnEnds, st.apiCalls, st.toolMsgs, n+1, n)
	}
	tools := 0
	for _, l := range rec.Lines {
		if l.Type == "tool" {
			tools++
		}
	}
	if tools != n {
		t.Fatalf("recording holds %d tool results, want %d", tools, n)
	}
}
