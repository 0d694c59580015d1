package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/providers"
	"talaria/providers/openaichat"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// echoTool answers with its arguments.
type echoTool struct{}

func (echoTool) Name() string            { return "echo" }
func (echoTool) Traits() tools.Traits    { return tools.Traits{} }
func (echoTool) Description() string     { return "echo the arguments" }
func (echoTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (echoTool) Run(_ context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
	return tools.Result{Output: "echo " + string(args)}
}

func wires() *providers.Registry {
	r := providers.NewRegistry()
	r.Register(openaichat.APIMode, openaichat.New)
	return r
}

// recordLoop records a turn of iterations tool-calling iterations (one
// echo call each) and a final answer, in memory.
func recordLoop(t testing.TB, iterations int) *Recording {
	return recordCalls(t, iterations, func(i int) string { return fmt.Sprintf(`{"n":%d}`, i) }, echoTool{})
}

// recordCalls records iterations calls of tool, with args(i), then an
// answer.
func recordCalls(t testing.TB, iterations int, args func(int) string, tool tools.Tool) *Recording {
	return recordCallsTo(t, iterations, args, tool, nil)
}

// recordCallsTo is recordCalls with the loop saving through the
// recorder into store (nil: none).
func recordCallsTo(t testing.TB, iterations int, args func(int) string, tool tools.Tool, store loop.Store) *Recording {
	srv := pt.New(t)
	for i := range iterations {
		srv.Push(pt.ToolCalls(pt.Call{Name: tool.Name(), Args: args(i)}))
	}
	srv.Push(pt.Text("all echoed"))
	backend := providers.Backend{Provider: "openai", Model: "gpt-test", BaseURL: srv.URL(), APIMode: openaichat.APIMode, APIKeys: []string{"sk-test-key"}}
	reg := tools.NewRegistry(tool)
	h := Header{Type: "header", Version: RecordVersion, SessionID: "s1", Provider: "openai", Model: "gpt-test", APIMode: openaichat.APIMode,
		MaxIterations: iterations + 5, SystemPrompt: "You are a test.",
		Chain: []ChainEntry{{Provider: "openai", Model: "gpt-test", APIMode: openaichat.APIMode, BaseURL: srv.URL(), Keys: 1}},
		Tools: []ToolDef{{Name: tool.Name(), Description: tool.Description(), Schema: tool.Schema()}}}
	var buf bytes.Buffer
	rec := newRecorder(&buf, nopCloser{}, []string{"sk-test-key"})
	rec.write(h)
	agent := loop.New(loop.Options{SessionID: "s1", Chain: providers.NewFallbackChain(backend, nil),
		NewTransport: func(b providers.Backend, key string) (loop.Transport, error) {
			return wires().New(b.APIMode, providers.Endpoint{Provider: b.Provider, Model: b.Model, BaseURL: b.BaseURL, APIKey: key,
				HTTPClient: &http.Client{Transport: rec.Transport(nil, b.APIMode, b.Model)}})
		},
		Provider: "openai", Model: "gpt-test", SystemPrompt: h.SystemPrompt, Tools: reg,
		Sink: rec.Wrap(nil), Store: rec.WrapStore(store), MaxIterations: h.MaxIterations})
	res, err := agent.Run(context.Background(), "echo everything")
	if err != nil || !res.Completed {
		t.Fatalf("recorded run: %v %+v", err, res)
	}
	rec.Close()
	srv.Close()
	out, err := ParseRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReplayMatchesItsRecording(t *testing.T) {
	rec := recordLoop(t, 3)
	res, err := Replay(context.Background(), rec, ReplayOptions{Wires: wires(), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Divergence != nil || res.Requests != 4 || res.ToolCalls != 3 || res.Turns != 1 {
		t.Fatalf("replay: %+v %v", res, res.Divergence)
	}
}

func TestReplayNamesTheFirstDifferingRequest(t *testing.T) {
	rec := recordLoop(t, 2)
	// The second request's history differs: the recorded tool result of
	// the first call is edited, so the replayed request carries the new
	// text where the recorded one had the old.
	for i, l := range rec.Lines {
		if l.Type == "tool" {
			rec.Lines[i].Output = "edited output"
			break
		}
	}
	res, err := Replay(context.Background(), rec, ReplayOptions{Wires: wires(), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Divergence
	if d == nil || d.Kind != "request" || d.Seq != 2 || !strings.Contains(d.Path, "messages") || !strings.Contains(d.Replayed, "edited output") {
		t.Fatalf("divergence %+v", d)
	}
	if !strings.Contains(d.String(), "request 2") {
		t.Fatalf("report %q", d.String())
	}
}

func TestReplayReportsAnotherExitReason(t *testing.T) {
	rec := recordLoop(t, 1)
	for i, l := range rec.Lines {
		if l.Type == "finished" {
			rec.Lines[i].ExitReason = "budget_exhausted"
		}
	}
	res, err := Replay(context.Background(), rec, ReplayOptions{Wires: wires(), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Divergence; d == nil || d.Kind != "exit" || d.Recorded != "budget_exhausted" || !strings.HasPrefix(d.Replayed, "text_response") {
		t.Fatalf("divergence %+v", d)
	}
}

// TestReplayKeepsTheRecordedTiming: without --fast a chunk is not served
// before its recorded offset (a lower bound, which a timer guarantees),
// and a cancelled replay stops waiting.
func TestReplayKeepsTheRecordedTiming(t *testing.T) {
	b := &replayBody{ctx: context.Background(), chunks: []Chunk{{TMS: 0, Data: "a"}, {TMS: 30, Data: "b"}}, start: time.Now()}
	var got bytes.Buffer
	start := time.Now()
	if _, err := got.ReadFrom(b); err != nil || got.String() != "ab" {
		t.Fatalf("%q %v", got.String(), err)
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Fatal("the recorded chunk offset was not kept")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b = &replayBody{ctx: ctx, chunks: []Chunk{{TMS: 60000, Data: "late"}}, start: time.Now()}
	if _, err := b.Read(make([]byte, 8)); err == nil {
		t.Fatal("a cancelled replay still waited for its chunk")
	}
}

// BenchmarkReplayFast50 is the replay time of a recording of a 50-iteration
// turn (50 tool calls), with --fast.
func BenchmarkReplayFast50(b *testing.B) {
	rec := recordLoop(b, 50)
	b.ResetTimer()
	for range b.N {
		res, err := Replay(context.Background(), rec, ReplayOptions{Wires: wires(), Fast: true})
		if err != nil || res.Divergence != nil || res.Requests != 51 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// failTool always fails the same way.
type failTool struct{}

func (failTool) Name() string            { return "probe" }
func (failTool) Traits() tools.Traits    { return tools.Traits{} }
func (failTool) Description() string     { return "fails" }
func (failTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (failTool) Run(context.Context, *tools.Env, json.RawMessage) tools.Result {
	return tools.Result{Output: "error: no such host", IsError: true}
}

// TestReplayThroughGuardrailWarnings: the recorded results carry the
// guardrail's notes, which the replay's guardrail adds again: the replay
// still matches.
func TestReplayThroughGuardrailWarnings(t *testing.T) {
	rec := recordCalls(t, 4, func(int) string { return `{"host":"x"}` }, failTool{})
	noted := false
	for _, l := range rec.Lines {
		noted = noted || l.Type == "tool" && strings.Contains(l.Output, "[Tool loop warning")
	}
	if !noted {
		t.Fatal("the recording has no guardrail warning to replay through")
	}
	res, err := Replay(context.Background(), rec, ReplayOptions{Wires: wires(), Fast: true})
	if err != nil || res.Divergence != nil {
		t.Fatalf("%v %v", err, res.Divergence)
	}
}
