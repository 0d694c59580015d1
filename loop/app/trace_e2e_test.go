package app_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	pt "talaria/providers/providertest"
)

// recordRun records a headless turn (a 429 with Retry-After, three parallel
// reads, an answer) against an httptest provider that is then closed.
func recordRun(t *testing.T) (home, cwd, file string, recorded run) {
	t.Helper()
	home, cwd = t.TempDir(), t.TempDir()
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, n), []byte("file "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(cfg, []byte("agent:\n  retry_base_delay: 1ms\n  retry_max_delay: 5ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(
		pt.Error(429, `{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}`, map[string]string{"Retry-After": "1"}),
		pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"a.txt"}`}, pt.Call{Name: "read_file", Args: `{"path":"b.txt"}`}, pt.Call{Name: "read_file", Args: `{"path":"c.txt"}`}),
		pt.Text("Three files, each naming itself."),
	)
	file = filepath.Join(t.TempDir(), "run.jsonl")
	recorded = talaria(t, home, cwd, srv, "", "--config", cfg, "-p", "read a, b and c", "--json", "--yolo", "--record", file)
	if recorded.code != 0 {
		t.Fatalf("recorded run: exit %d\n%s", recorded.code, recorded.stderr)
	}
	srv.Close()
	return home, cwd, file, recorded
}

// shape is an event stream without its timing: the order of the loop's
// events, tool events set apart (parallel calls finish in any order).
func shape(t *testing.T, jsonl string) (order []string, calls []string) {
	for _, e := range events(t, jsonl) {
		typ := e["type"].(string)
		switch typ {
		case "tool.started", "tool.completed", "tool.output", "session.started", "replay.result":
			if typ == "tool.completed" {
				calls = append(calls, e["id"].(string)+" "+e["name"].(string)+" "+e["output"].(string))
			}
			continue
		case "message.delta":
			order = append(order, typ+" "+e["text"].(string))
			continue
		}
		order = append(order, typ)
	}
	sort.Strings(calls)
	return order, calls
}

func TestRecordThenReplayOffline(t *testing.T) {
	home, cwd, file, recorded := recordRun(t)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-test") {
		t.Fatal("the API key is in the recording")
	}
	if !strings.Contains(string(raw), `"Authorization":"[REDACTED]"`) {
		t.Fatalf("no redacted Authorization header in:\n%s", raw)
	}
	// The provider is gone: the replay serves the recorded bytes.
	rep := talaria(t, home, cwd, nil, "", "replay", file, "--json", "--fast")
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\n%s", rep.code, rep.stderr)
	}
	wantOrder, wantCalls := shape(t, recorded.stdout)
	gotOrder, gotCalls := shape(t, rep.stdout)
	if strings.Join(wantOrder, "\n") != strings.Join(gotOrder, "\n") || strings.Join(wantCalls, "\n") != strings.Join(gotCalls, "\n") {
		t.Fatalf("replay events differ:\nrecorded %q\n%q\nreplayed %q\n%q", wantOrder, wantCalls, gotOrder, gotCalls)
	}
	if !strings.Contains(rep.stdout, `"type":"replay.result"`) {
		t.Fatalf("no replay.result line: %s", rep.stdout)
	}

	// The timeline of the recorded turn is saved with the session.
	var sid string
	for _, e := range events(t, recorded.stdout) {
		sid = e["session_id"].(string)
		break
	}
	tl := talaria(t, home, cwd, nil, "", "timeline", sid, "--json")
	var log struct {
		Spans []struct {
			Kind, Reason string
			HTTPStatus   int `json:"http_status"`
		}
	}
	if err := json.Unmarshal([]byte(tl.stdout), &log); err != nil || tl.code != 0 {
		t.Fatalf("timeline --json: exit %d %v\n%s%s", tl.code, err, tl.stdout, tl.stderr)
	}
	kinds := map[string]int{}
	for _, s := range log.Spans {
		kinds[s.Kind]++
		if s.Kind == "retry_wait" && (s.Reason != "rate_limit" || s.HTTPStatus != 429) {
			t.Fatalf("retry wait %+v", s)
		}
	}
	if kinds["attempt"] != 3 || kinds["tool"] != 3 || kinds["retry_wait"] != 1 {
		t.Fatalf("timeline spans %v", kinds)
	}
	table := talaria(t, home, cwd, nil, "", "timeline", sid)
	if table.code != 0 || !strings.Contains(table.stdout, "retry_wait") || !strings.Contains(table.stdout, "read_file") {
		t.Fatalf("timeline table: %s %s", table.stdout, table.stderr)
	}
}

func TestReplayReportsAnEditedToolCall(t *testing.T) {
	home, cwd, file, _ := recordRun(t)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	edited := false
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"tool"`) && strings.Contains(l, `b.txt`) {
			lines[i] = strings.Replace(l, `"name":"read_file"`, `"name":"search_files"`, 1)
			edited = lines[i] != l
			break
		}
	}
	if !edited {
		t.Fatalf("no tool line for b.txt in:\n%s", raw)
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := talaria(t, home, cwd, nil, "", "replay", file, "--fast")
	if rep.code != 1 || !strings.Contains(rep.stderr, "diverged (tool)") || !strings.Contains(rep.stderr, "search_files") || !strings.Contains(rep.stderr, "read_file") {
		t.Fatalf("replay of an edited recording: exit %d\n%s", rep.code, rep.stderr)
	}
}

func TestReplayOfAMissingFileIsAUsageError(t *testing.T) {
	r := talaria(t, t.TempDir(), t.TempDir(), nil, "", "replay", filepath.Join(t.TempDir(), "nope.jsonl"))
	if r.code != 2 || !strings.Contains(r.stderr, "nope.jsonl") {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
}

// otlpReceiver is an in-test OTLP/HTTP collector keeping span names and
// their gen_ai.conversation.id.
type otlpReceiver struct {
	mu    sync.Mutex
	spans map[string]string
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req collector.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				for _, kv := range s.Attributes {
					if kv.Key == "gen_ai.conversation.id" {
						rc.spans[s.Name] = kv.Value.GetStringValue()
					}
				}
			}
		}
	}
	rc.mu.Unlock()
	b, _ := proto.Marshal(&collector.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

func TestHeadlessRunExportsOTelTraces(t *testing.T) {
	rc := &otlpReceiver{spans: map[string]string{}}
	col := httptest.NewServer(rc)
	defer col.Close()
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"*.txt","target":"files"}`}), pt.Text("none here"))
	home, cwd := t.TempDir(), t.TempDir()
	r := talariaWith(t, home, cwd, srv, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.URL}, "-p", "any txt files?", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sid := events(t, r.stdout)[0]["session_id"].(string)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, name := range []string{"invoke_agent", "chat gpt-4.1", "execute_tool search_files"} {
		if rc.spans[name] != sid {
			t.Fatalf("span %q with conversation id %q, want %q (got %v)", name, rc.spans[name], sid, rc.spans)
		}
	}
}

func TestAClosedCollectorPortFailsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := pt.New(t)
	srv.Push(pt.Text("fine"))
	home, cwd := t.TempDir(), t.TempDir()
	r := talariaWith(t, home, cwd, srv, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + addr}, "-p", "hello")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "fine" || strings.Contains(r.stderr, "export") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	bad := talariaWith(t, home, cwd, srv, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318"}, "-p", "hello")
	if bad.code != 2 || !strings.Contains(bad.stderr, "OTEL_EXPORTER_OTLP_ENDPOINT") {
		t.Fatalf("a bad endpoint: exit %d %q", bad.code, bad.stderr)
	}
}

// TestTimelineOfOldTurnsAndResumedSessions: each turn's span log is kept
// with the session; a continued session numbers its turns on.
func TestTimelineOfOldTurnsAndResumedSessions(t *testing.T) {
	srv := pt.New(t)
	srv.Push(pt.Text("first answer"), pt.Text("second answer"))
	home, cwd := t.TempDir(), t.TempDir()
	if r := talaria(t, home, cwd, srv, "", "-p", "first"); r.code != 0 {
		t.Fatalf("first: %d %s", r.code, r.stderr)
	}
	if r := talaria(t, home, cwd, srv, "", "-c", "-p", "second"); r.code != 0 {
		t.Fatalf("second: %d %s", r.code, r.stderr)
	}
	ls := talaria(t, home, cwd, nil, "", "sessions", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions: %q %v", ls.stdout, err)
	}
	id := list[0]["id"].(string)
	for turn, want := range map[string]string{"": "second", "1": "first", "2": "second"} {
		args := []string{"timeline", id, "--json"}
		if turn != "" {
			args = append(args, "--turn", turn)
		}
		r := talaria(t, home, cwd, nil, "", args...)
		var l struct {
			Turn  int
			Input string
		}
		if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || l.Input != want {
			t.Fatalf("timeline --turn %q: %v %+v %s", turn, err, l, r.stderr)
		}
	}
	if r := talaria(t, home, cwd, nil, "", "timeline", id, "--turn", "7"); r.code != 1 || !strings.Contains(r.stderr, "recorded turns: 1, 2") {
		t.Fatalf("a turn without a timeline: %d %s", r.code, r.stderr)
	}
}
