package loop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"talaria/providers"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// memStore records appended messages and reports each append.
type memStore struct {
	mu       sync.Mutex
	msgs     []providers.Message
	appended chan struct{}
}

func (s *memStore) AppendMessages(_ string, _ int, msgs ...providers.Message) error {
	s.mu.Lock()
	s.msgs = append(s.msgs, msgs...)
	s.mu.Unlock()
	select {
	case s.appended <- struct{}{}:
	default:
	}
	return nil
}

func (s *memStore) AddUsage(string, int, providers.Usage) error { return nil }

func (s *memStore) snapshot() []providers.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]providers.Message(nil), s.msgs...)
}

// gateTool blocks until released, after saying it started.
type gateTool struct{ started, release chan struct{} }

func (gateTool) Name() string            { return "gate" }
func (gateTool) Traits() tools.Traits    { return tools.Traits{} }
func (gateTool) Description() string     { return "waits" }
func (gateTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (g gateTool) Run(ctx context.Context, _ *tools.Env, _ json.RawMessage) tools.Result {
	close(g.started)
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return tools.Result{Output: "opened"}
}

// The assistant's tool calls are saved before any tool runs, and a
// finished result is saved while a later call still runs.
func TestCallsAndResultsSavedWhileTheBatchRuns(t *testing.T) {
	st := &memStore{appended: make(chan struct{}, 64)}
	gate := gateTool{started: make(chan struct{}), release: make(chan struct{})}
	f := newFixture(t, func(o *Options) {
		o.Store = st
		o.Tools.Register(gate)
	})
	if err := os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Push(
		pt.ToolCalls(pt.Call{ID: "r1", Name: "read_file", Args: `{"path":"a.txt"}`}, pt.Call{ID: "g1", Name: "gate", Args: `{}`}),
		pt.Text("done"),
	)
	done := f.runAsync("read then wait")
	<-gate.started
	// While the gate holds the batch, the store must come to hold the
	// calls and the read_file result.
	for {
		var calls, readResult bool
		for _, m := range st.snapshot() {
			calls = calls || len(m.ToolCalls) == 2
			readResult = readResult || (m.Role == providers.RoleTool && m.ToolCallID == "r1")
		}
		if calls && readResult {
			break
		}
		select {
		case <-st.appended:
		case <-time.After(30 * time.Second):
			close(gate.release)
			t.Fatal("the calls and the finished result were not saved while the batch ran")
		}
	}
	close(gate.release)
	if res := await(t, done); !res.Completed {
		t.Fatalf("turn: %+v", res)
	}
	var gateSaved bool
	for _, m := range st.snapshot() {
		gateSaved = gateSaved || (m.Role == providers.RoleTool && m.ToolCallID == "g1" && m.Content == "opened")
	}
	if !gateSaved {
		t.Fatal("the last result was never saved")
	}
}
