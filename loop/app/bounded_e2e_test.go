package app_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// hostileServer answers every chat completion request with h; it is
// closed when the test ends.
func hostileServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// boundedHome writes a config with tight limits and returns the home.
func boundedHome(t *testing.T, extra string) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".talaria")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "agent:\n  api_max_retries: 1\n  retry_base_delay: 10ms\n  retry_max_delay: 20ms\n" +
		"  request_timeout: 1s\n  stream_read_timeout: 1s\n" + extra
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// runAt runs the binary against the provider at url.
func runAt(t *testing.T, home, url, stdin string, args ...string) run {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TALARIA_HOME=" + filepath.Join(home, ".talaria"),
		"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + url}
	cmd.Dir = home
	cmd.Stdin = strings.NewReader(stdin)
	return runCmd(t, cmd)
}

func e2eNoHeaders(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// e2eOneChunk sends the opening chunk of an answer (a role, no text),
// then nothing.
func e2eOneChunk(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant"}}]}`+"\n\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func e2ePings(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// Each hostile provider ends the headless turn with timeout failures,
// retried, then exit 1, and the retry events name the expired key.
func TestHostileProviderTimesOutHeadless(t *testing.T) {
	cases := []struct {
		name  string
		h     http.HandlerFunc
		key   string
		stale string
	}{
		{"never_sends_headers", e2eNoHeaders, "agent.request_timeout", "1s"},
		{"one_chunk_then_silence", e2eOneChunk, "agent.stream_read_timeout", "1h"},
		{"pings_only", e2ePings, "agent.stream_stale_timeout", "1s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := boundedHome(t, "  stream_stale_timeout: "+c.stale+"\n")
			start := time.Now()
			r := runAt(t, home, hostileServer(t, c.h), "", "-p", "hello", "--json")
			t.Logf("%s: gave up after %s (2 attempts of 1s, 10ms backoff)", c.name, time.Since(start).Round(10*time.Millisecond))
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\nstderr: %s", r.code, r.stderr)
			}
			var retries int
			var fin map[string]any
			for _, ev := range events(t, r.stdout) {
				switch ev["type"] {
				case "retry.scheduled":
					retries++
					if ev["reason"] != "timeout" || !strings.Contains(ev["message"].(string), c.key) {
						t.Fatalf("retry event: %v", ev)
					}
				case "turn.finished":
					fin = ev
				}
			}
			if retries != 1 || fin == nil || fin["exit_reason"] != "all_retries_exhausted_no_response" ||
				!strings.Contains(fin["final_response"].(string), c.key) {
				t.Fatalf("retries %d, finished %v", retries, fin)
			}
		})
	}
}

// maxRSS is the peak resident set of a finished child, in MiB.
func maxRSS(cmd *exec.Cmd) float64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024
	}
	return 0
}

// A 50 MB streamed answer is cut at the default 8 MiB cap: the partial
// text is printed and saved, the explanation names the key, and the
// provider's stream is abandoned.
func TestHugeAnswerIsCutAtTheCap(t *testing.T) {
	const total = 50 << 20
	var sent atomic.Int64
	url := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		piece := strings.Repeat("a", 1023) + " "
		line := `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"` + piece + `"}}]}` + "\n\n"
		for n := 0; n < total; n += len(piece) {
			if _, err := io.WriteString(w, line); err != nil {
				return
			}
			sent.Add(int64(len(piece)))
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
	home := boundedHome(t, "")
	cmd := exec.Command(binary, "-p", "write a lot")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TALARIA_HOME=" + filepath.Join(home, ".talaria"),
		"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + url}
	cmd.Dir = home
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("run: %v\nstderr: %s", err, errb.String())
	}
	t.Logf("50 MB answer: peak RSS %.1f MiB, %d MiB sent by the server, %d MiB printed", maxRSS(cmd), sent.Load()>>20, out.Len()>>20)
	if n := out.Len(); n < 7<<20 || n > 8<<20+2 {
		t.Fatalf("printed %d bytes, want the first 8 MiB", n)
	}
	if !strings.Contains(errb.String(), "agent.max_response_bytes") || !strings.Contains(errb.String(), "response_too_large") {
		t.Fatalf("stderr: %s", errb.String())
	}
	if sent.Load() >= total {
		t.Fatal("the whole answer was read")
	}
}

// A 10 MB prompt on stdin is refused before anything is sent, reading no
// more than the limit.
func TestHugePromptIsRefused(t *testing.T) {
	var calls atomic.Int32
	url := hostileServer(t, func(w http.ResponseWriter, r *http.Request) { calls.Add(1) })
	home := boundedHome(t, "")
	cmd := exec.Command(binary, "-p", "-")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TALARIA_HOME=" + filepath.Join(home, ".talaria"),
		"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + url}
	cmd.Dir = home
	cmd.Stdin = bytes.NewReader(bytes.Repeat([]byte("p"), 10<<20))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("run: %v\nstderr: %s", err, errb.String())
	}
	t.Logf("10 MB prompt: peak RSS %.1f MiB", maxRSS(cmd))
	if !strings.Contains(errb.String(), "4 MiB limit") || calls.Load() != 0 {
		t.Fatalf("calls %d, stderr: %s", calls.Load(), errb.String())
	}
}
