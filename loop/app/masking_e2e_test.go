package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	pt "talaria/providers/providertest"
)

// maskedKey is the provider key the masking test plants in the env.
const maskedKey = "sk-proj-Q7vX2mLp9RtY4wZk8HbN3cJd6FgS1aEu"

// maskedPassword is the password of a database URL a command prints.
const maskedPassword = "S3cretPass"

// deltaChunk is one streamed OpenAI chat chunk carrying text.
func deltaChunk(text string) string {
	b, _ := json.Marshal(text)
	return `{"id":"chatcmpl-mask","object":"chat.completion.chunk","created":1727346168,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":` + string(b) + `},"finish_reason":null}]}`
}

// bodyCollector is an OTLP/HTTP collector that keeps every body it gets.
type bodyCollector struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *bodyCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK) // an empty ExportTraceServiceResponse
}

// TestNoFileOrStreamHoldsAPlantedSecret plants a provider key (the
// configured key variable's value) and a database password, lets the model
// answer with the key whole and split across two deltas and a command
// print the password's URL and the key, runs it headless with --json,
// --record, the span log and an OTLP export with content, then greps every
// file under $TALARIA_HOME (the store's raw bytes, logs, checkpoints), the
// recording, every stdout and stderr (the run, `timeline --json`,
// `export`) and every OTLP body for the key, the password and each half of
// the split key.
func TestNoFileOrStreamHoldsAPlantedSecret(t *testing.T) {
	col := &bodyCollector{}
	collector := httptest.NewServer(col)
	defer collector.Close()
	home, cwd := t.TempDir(), t.TempDir()
	talariaHome := filepath.Join(home, ".talaria")
	if err := os.MkdirAll(talariaHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(talariaHome, "config.yaml"), []byte("telemetry:\n  log_content: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dbURL := "postgres://admin:" + maskedPassword + "@db/x"
	half := 20
	first, second := maskedKey[:half], maskedKey[half:]
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: fmt.Sprintf(`{"command":"echo %s %s"}`, dbURL, maskedKey)}),
		pt.Reply{Chunks: []string{
			deltaChunk("The key is "),
			deltaChunk(maskedKey + " whole. "),
			deltaChunk("Split: " + first), // the key ends in the next delta
			deltaChunk(second + " and the URL " + dbURL + " done."),
			`{"id":"chatcmpl-mask","object":"chat.completion.chunk","created":1727346168,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		}},
	)
	record := filepath.Join(t.TempDir(), "run.jsonl")
	secretEnv := []string{"OPENAI_API_KEY=" + maskedKey, "OTEL_EXPORTER_OTLP_ENDPOINT=" + collector.URL}
	runs := map[string]run{}
	runs["headless"] = talariaWith(t, home, cwd, srv, secretEnv, "-p", "print the database URL", "--json", "--yolo", "--record", record)
	if r := runs["headless"]; r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	evs := events(t, runs["headless"].stdout)
	sid := evs[0]["session_id"].(string)
	// The run really carried the secrets: the model's answer is there,
	// masked, and the command's output too.
	var answer strings.Builder
	sawOutput := false
	for _, e := range evs {
		switch e["type"] {
		case "message.delta":
			answer.WriteString(e["text"].(string))
		case "tool.completed":
			sawOutput = strings.Contains(e["output"].(string), "postgres://")
		}
	}
	if !strings.Contains(answer.String(), "The key is sk-") || !strings.Contains(answer.String(), " done.") || !sawOutput {
		t.Fatalf("the run did not stream the answer and the command's output: %q (output seen %v)", answer.String(), sawOutput)
	}
	runs["timeline"] = talariaWith(t, home, cwd, nil, secretEnv, "timeline", sid, "--json")
	runs["export"] = talariaWith(t, home, cwd, nil, secretEnv, "export", sid)
	for name, r := range runs {
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, r.code, r.stderr)
		}
	}

	forbidden := map[string]string{"the key": maskedKey, "the password": maskedPassword, "the key's first half": first, "the key's second half": second}
	check := func(where string, data []byte) {
		t.Helper()
		for what, s := range forbidden {
			if strings.Contains(string(data), s) {
				i := strings.Index(string(data), s)
				t.Errorf("%s holds %s: …%s…", where, what, clipAround(string(data), i, len(s)))
			}
		}
	}
	files := 0
	err := filepath.WalkDir(talariaHome, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		check(path, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"state.db", filepath.Join("logs", "talaria.log")} {
		if _, err := os.Stat(filepath.Join(talariaHome, want)); err != nil {
			t.Errorf("no %s was written to check: %v", want, err)
		}
	}
	rec, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rec), `"type":"response"`) {
		t.Fatalf("the recording holds no provider traffic:\n%s", rec)
	}
	check("the recording", rec)
	for name, r := range runs {
		check(name+" stdout", []byte(r.stdout))
		check(name+" stderr", []byte(r.stderr))
	}
	if !strings.Contains(runs["timeline"].stdout, "postgres://") {
		t.Errorf("the span log lacks the command's output, so it checks nothing: %s", runs["timeline"].stdout)
	}
	col.mu.Lock()
	bodies := col.bodies
	col.mu.Unlock()
	if len(bodies) == 0 {
		t.Fatal("no OTLP export reached the collector")
	}
	for i, b := range bodies {
		check(fmt.Sprintf("OTLP body %d", i), b)
	}
	t.Logf("checked %d files under $TALARIA_HOME, the recording (%d bytes), %d outputs and %d OTLP bodies", files, len(rec), 2*len(runs), len(bodies))
}

// clipAround shows a short context around s[i:i+n].
func clipAround(s string, i, n int) string {
	from, to := max(0, i-40), min(len(s), i+n+40)
	return strings.ReplaceAll(s[from:to], "\n", `\n`)
}
