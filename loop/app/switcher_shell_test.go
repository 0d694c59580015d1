package app

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"talaria/loop/config"
	pt "talaria/providers/providertest"
	"talaria/tools"
)

// lockedBuffer is a bytes.Buffer safe for the tool's writer goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestShellRunsWithoutApproval: the user's own !cmd runs in approvals
// mode ask without asking (a newcomer was asked to approve !git status),
// in the session's directory, with its output streamed live.
func TestShellRunsWithoutApproval(t *testing.T) {
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	home, cwd := t.TempDir(), t.TempDir()
	var mu sync.Mutex
	asked := 0
	f := Flags{Home: home, Cwd: cwd, Overrides: config.Overrides{Provider: "openai", Model: "gpt-4.1"},
		UI: Interactive{Approve: func(context.Context, tools.ApprovalRequest) (tools.ApprovalDecision, error) {
			mu.Lock()
			defer mu.Unlock()
			asked++
			return tools.ApprovalDecision{}, nil
		}}}
	w := NewSwitcher(context.Background(), f, newEvents().sink)
	if _, err := w.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	var live lockedBuffer
	res, err := w.Shell(tools.ContextWithOutput(context.Background(), &live), "pwd; echo streamed")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n := asked
	mu.Unlock()
	if n != 0 || res.IsError || !strings.Contains(res.Output, cwd) || !strings.Contains(res.Output, "streamed") {
		t.Fatalf("asked %d times; result %+v", n, res)
	}
	if !strings.Contains(live.String(), "streamed") {
		t.Errorf("no live output: %q", live.String())
	}
}
