package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// fakeTool is a registry entry standing in for an MCP tool.
type fakeTool struct {
	name     string
	readOnly bool
}

func (f fakeTool) Name() string            { return f.name }
func (f fakeTool) Description() string     { return "fake" }
func (f fakeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f fakeTool) ReadOnly() bool          { return f.readOnly }
func (f fakeTool) Run(context.Context, *Env, json.RawMessage) Result {
	return Result{Output: "ran"}
}

// recordingPrompt answers every request with d and records the requests.
type recordingPrompt struct {
	mu   sync.Mutex
	reqs []ApprovalRequest
	d    ApprovalDecision
}

func (p *recordingPrompt) prompt(_ context.Context, r ApprovalRequest) (ApprovalDecision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, r)
	return p.d, nil
}

func (p *recordingPrompt) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.reqs)
}

func TestApprovalMatrix(t *testing.T) {
	reg := NewRegistry(append(Builtins(), fakeTool{"srv__read", true}, fakeTool{"srv__write", false})...)
	const (
		allow = "allow"  // runs without asking
		ask   = "prompt" // asks the user
	)
	calls := []struct {
		name, tool, args string
		want             map[ApprovalMode]string
	}{
		{"read_file", "read_file", `{"path":"a"}`, map[ApprovalMode]string{ApprovalAsk: allow, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"search", "search_files", `{"pattern":"x"}`, map[ApprovalMode]string{ApprovalAsk: allow, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"todo", "todo", `{}`, map[ApprovalMode]string{ApprovalAsk: allow, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"clarify", "clarify", `{"question":"q"}`, map[ApprovalMode]string{ApprovalAsk: allow, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"process poll", "process", `{"action":"poll","id":"proc_1"}`, map[ApprovalMode]string{ApprovalAsk: allow, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"write inside", "write_file", `{"path":"a.txt","content":"x"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"write outside", "write_file", `{"path":"/etc/x","content":"x"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"patch replace", "patch", `{"path":"a.txt","old_string":"a","new_string":"b"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"patch v4a outside", "patch", `{"mode":"patch","patch":"*** Begin Patch\n*** Update File: ../x.go\n-a\n+b\n*** End Patch"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"terminal", "terminal", `{"command":"go test ./..."}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"terminal destructive", "terminal", `{"command":"rm -rf build"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"process kill", "process", `{"action":"kill","id":"proc_1"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"mcp read-only", "srv__read", `{}`, map[ApprovalMode]string{ApprovalAsk: allow, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
		{"mcp mutating", "srv__write", `{"x":1}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
	}
	for _, mode := range []ApprovalMode{ApprovalAsk, ApprovalAutoEdit, ApprovalYolo} {
		for _, c := range calls {
			rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeOnce}}
			a := NewApprover(mode, rp.prompt)
			a.Tools, a.Cwd = reg, "/work/repo"
			ok, denial := a.Check(context.Background(), c.tool, c.args)
			got := allow
			if rp.count() > 0 {
				got = ask
			}
			if !ok || got != c.want[mode] {
				t.Errorf("%s / %s: allowed=%v (%s) prompted=%s, want %s", mode, c.name, ok, denial.Output, got, c.want[mode])
			}
			// Headless: what would prompt is denied, with how to allow it.
			h := NewApprover(mode, nil)
			h.Tools, h.Cwd = reg, "/work/repo"
			ok, denial = h.Check(context.Background(), c.tool, c.args)
			if ok != (c.want[mode] == allow) {
				t.Errorf("headless %s / %s: allowed=%v", mode, c.name, ok)
			}
			if !ok {
				mustErr(t, denial, c.tool+" was not run", "headless", "--yolo", "approvals: yolo", "approvals: auto-edit", "config.yaml")
			}
		}
	}
}

func TestApprovalRequestContent(t *testing.T) {
	rp := &recordingPrompt{d: ApprovalDecision{Allow: true}}
	a := NewApprover(ApprovalAsk, rp.prompt)
	a.Check(context.Background(), "terminal", `{"command":"rm -rf build && make"}`)
	a.Check(context.Background(), "terminal", `{"command":"make","background":true}`)
	a.Check(context.Background(), "patch", `{"mode":"patch","patch":"*** Begin Patch\n*** Update File: a.go\n-a\n+b\n*** Move File: b.go -> c.go\n*** End Patch"}`)
	a.Check(context.Background(), "write_file", `{"path":"x.txt","content":"hi"}`)
	want := []ApprovalRequest{
		{Tool: "terminal", Summary: "Run: rm -rf build && make [destructive: rm]", Destructive: true},
		{Tool: "terminal", Summary: "Run in the background: make"},
		{Tool: "patch", Summary: "Edit: a.go, b.go, c.go"},
		{Tool: "write_file", Summary: "Write: x.txt"},
	}
	if len(rp.reqs) != len(want) {
		t.Fatalf("%d requests", len(rp.reqs))
	}
	for i, w := range want {
		g := rp.reqs[i]
		if g.Tool != w.Tool || g.Summary != w.Summary || g.Destructive != w.Destructive || g.Args == "" {
			t.Errorf("request %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestApprovalSessionAllowListAndDenial(t *testing.T) {
	ctx := context.Background()
	rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeSession}}
	a := NewApprover(ApprovalAsk, rp.prompt)
	check := func(tool, args string) bool {
		ok, _ := a.Check(ctx, tool, args)
		return ok
	}
	// terminal: remembered per exact command.
	check("terminal", `{"command":"make test"}`)
	check("terminal", `{"command":"make test"}`)
	check("terminal", `{"command":" make test "}`)
	if rp.count() != 1 {
		t.Errorf("same command asked %d times", rp.count())
	}
	check("terminal", `{"command":"make lint"}`)
	if rp.count() != 2 {
		t.Errorf("another command not asked: %d", rp.count())
	}
	// Other tools: remembered per tool.
	check("write_file", `{"path":"a","content":""}`)
	check("write_file", `{"path":"b","content":""}`)
	if rp.count() != 3 {
		t.Errorf("write_file asked %d times in all", rp.count()-2)
	}
	// Destructive commands are never remembered.
	check("terminal", `{"command":"rm -rf build"}`)
	check("terminal", `{"command":"rm -rf build"}`)
	if rp.count() != 5 {
		t.Errorf("destructive command remembered: %d prompts", rp.count())
	}
	if got := strings.Join(a.SessionAllowed(), "|"); got != "terminal: make lint|terminal: make test|write_file" {
		t.Errorf("allow-list = %q", got)
	}
	// Once is not remembered.
	rp.d = ApprovalDecision{Allow: true, Scope: ScopeOnce}
	check("patch", `{"path":"a","old_string":"x","new_string":"y"}`)
	check("patch", `{"path":"a","old_string":"x","new_string":"y"}`)
	if rp.count() != 7 {
		t.Errorf("once remembered: %d prompts", rp.count())
	}
	// A denial carries the user's reason to the model.
	rp.d = ApprovalDecision{Allow: false, Reason: "use the staging database"}
	ok, denial := a.Check(ctx, "terminal", `{"command":"psql prod"}`)
	if ok {
		t.Fatal("denied call allowed")
	}
	mustErr(t, denial, "denied", "psql prod", "Their reason: use the staging database", "Do not retry")
	// The mode can change at runtime.
	a.SetMode(ApprovalYolo)
	if !check("terminal", `{"command":"psql prod"}`) || a.Mode() != ApprovalYolo {
		t.Error("yolo after SetMode still asks")
	}
}

func TestApprovalPromptErrorsAndSerialization(t *testing.T) {
	a := NewApprover(ApprovalAsk, func(context.Context, ApprovalRequest) (ApprovalDecision, error) {
		return ApprovalDecision{}, errors.New("tty gone")
	})
	ok, denial := a.Check(context.Background(), "terminal", `{"command":"ls"}`)
	if ok {
		t.Fatal("allowed on prompt error")
	}
	mustErr(t, denial, "tty gone")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok, denial = a.Check(ctx, "terminal", `{"command":"ls"}`)
	if ok {
		t.Fatal("allowed when cancelled")
	}
	mustErr(t, denial, "cancelled")

	// Prompts are put one at a time; a session approval given in the
	// first prompt lets the waiting identical call through unasked.
	entered := make(chan struct{}, 2)
	release := make(chan struct{})
	var mu sync.Mutex
	inside, prompts := 0, 0
	b := NewApprover(ApprovalAsk, func(context.Context, ApprovalRequest) (ApprovalDecision, error) {
		mu.Lock()
		inside++
		prompts++
		if inside > 1 {
			t.Error("two prompts at once")
		}
		mu.Unlock()
		entered <- struct{}{}
		<-release
		mu.Lock()
		inside--
		mu.Unlock()
		return ApprovalDecision{Allow: true, Scope: ScopeSession}, nil
	})
	var wg sync.WaitGroup
	results := make(chan bool, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, _ := b.Check(context.Background(), "write_file", `{"path":"a","content":""}`)
			results <- ok
		}()
	}
	<-entered
	close(release)
	wg.Wait()
	if <-results != true || <-results != true {
		t.Error("a call was denied")
	}
	if prompts != 1 {
		t.Errorf("%d prompts; the second call should reuse the session approval", prompts)
	}
}

func TestParseApprovalMode(t *testing.T) {
	for in, want := range map[string]ApprovalMode{"": ApprovalAsk, "ask": ApprovalAsk, "Auto-Edit": ApprovalAutoEdit, "auto_edit": ApprovalAutoEdit, "yolo": ApprovalYolo} {
		if got, err := ParseApprovalMode(in); err != nil || got != want {
			t.Errorf("ParseApprovalMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseApprovalMode("never"); err == nil || !strings.Contains(err.Error(), "ask, auto-edit or yolo") {
		t.Errorf("bad mode error: %v", err)
	}
}
