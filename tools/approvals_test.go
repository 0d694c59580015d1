package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
func (f fakeTool) Traits() Traits {
	return Traits{ReadOnly: f.readOnly, Claimed: f.readOnly, ParallelSafe: f.readOnly}
}
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
		{"patch v4a without mode, outside", "patch", `{"path":"a.txt","patch":"*** Begin Patch\n*** Update File: /etc/x\n-a\n+b\n*** End Patch"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"patch v4a move outside", "patch", `{"mode":"patch","patch":"*** Begin Patch\n*** Update File: a.go\n*** Move to: /tmp/a.go\n-a\n+b\n*** End Patch"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"patch v4a outside", "patch", `{"mode":"patch","patch":"*** Begin Patch\n*** Update File: ../x.go\n-a\n+b\n*** End Patch"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"terminal", "terminal", `{"command":"go test ./..."}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"terminal destructive", "terminal", `{"command":"rm -rf build"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		{"process kill", "process", `{"action":"kill","id":"proc_1"}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: ask, ApprovalYolo: allow}},
		// The server's read-only mark is trusted only outside ask.
		{"mcp read-only", "srv__read", `{}`, map[ApprovalMode]string{ApprovalAsk: ask, ApprovalAutoEdit: allow, ApprovalYolo: allow}},
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
		{Tool: "terminal", Summary: "Run: rm -rf build && make [destructive: rm]", Destructive: true, NoSessionScope: true},
		{Tool: "terminal", Summary: "Run in the background: make"},
		{Tool: "patch", Summary: "Edit: a.go, b.go, c.go"},
		{Tool: "write_file", Summary: "Write: x.txt"},
	}
	if len(rp.reqs) != len(want) {
		t.Fatalf("%d requests", len(rp.reqs))
	}
	for i, w := range want {
		g := rp.reqs[i]
		if g.Tool != w.Tool || g.Summary != w.Summary || g.Destructive != w.Destructive || g.NoSessionScope != w.NoSessionScope || g.Args == "" {
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
	if got := strings.Join(a.SessionAllowed(), "|"); got != "terminal: make lint|terminal: make test|write_file:cwd" {
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
	mustErr(t, denial, "denied", "psql prod", "Their reason: use the staging database. Do not retry")
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
	ok, denial := a.Check(context.Background(), "terminal", `{"command":"make"}`)
	if ok {
		t.Fatal("allowed on prompt error")
	}
	mustErr(t, denial, "tty gone")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok, denial = a.Check(ctx, "terminal", `{"command":"make"}`)
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
	if first, second := <-results, <-results; !first || !second {
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
	if _, err := ParseApprovalMode("never"); err == nil || !strings.Contains(err.Error(), "ask, auto-edit, read-only or yolo") {
		t.Errorf("bad mode error: %v", err)
	}
}

// TestApprovalSessionScopeOnlyInsideCwd: "allow for this session" on an
// edit covers that tool's edits inside the working directory only; edits
// outside it offer no session scope and are asked for every time.
func TestApprovalSessionScopeOnlyInsideCwd(t *testing.T) {
	ctx := context.Background()
	cwd := t.TempDir()
	rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeSession}}
	a := NewApprover(ApprovalAsk, rp.prompt)
	a.Cwd = cwd
	check := func(tool, args string) {
		t.Helper()
		if ok, d := a.Check(ctx, tool, args); !ok {
			t.Fatalf("%s %s denied: %s", tool, args, d.Output)
		}
	}
	check("write_file", `{"path":"a.txt","content":""}`)
	check("write_file", `{"path":"sub/b.txt","content":""}`)
	if rp.count() != 1 {
		t.Fatalf("inside edit asked %d times after a session approval", rp.count())
	}
	if rp.reqs[0].NoSessionScope {
		t.Error("an edit inside cwd should offer the session scope")
	}
	// Outside cwd: asked although write_file is allowed for the session,
	// and a session answer is taken as once.
	for i, args := range []string{`{"path":"/etc/passwd","content":""}`, `{"path":"../x","content":""}`, `{"path":"~/.bashrc","content":""}`, `{"path":"/etc/passwd","content":""}`} {
		check("write_file", args)
		if rp.count() != 2+i {
			t.Fatalf("outside edit %s not asked (%d prompts)", args, rp.count())
		}
		if r := rp.reqs[len(rp.reqs)-1]; !r.NoSessionScope || r.Destructive {
			t.Errorf("outside edit request %+v: want NoSessionScope and not Destructive", r)
		}
	}
	// The patch tool has its own entry; a V4A patch with one path outside
	// is outside.
	check("patch", `{"path":"a.txt","old_string":"x","new_string":"y"}`)
	check("patch", `{"mode":"patch","patch":"*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** End Patch"}`)
	n := rp.count()
	check("patch", `{"mode":"patch","patch":"*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** Add File: ../evil\n+x\n*** End Patch"}`)
	if rp.count() != n+1 || !rp.reqs[n].NoSessionScope {
		t.Errorf("V4A patch reaching outside cwd was not asked with NoSessionScope")
	}
	if got := strings.Join(a.SessionAllowed(), "|"); got != "patch:cwd|write_file:cwd" {
		t.Errorf("allow-list = %q", got)
	}
	// Destructive commands never offer the session scope either.
	check("terminal", `{"command":"rm -rf build"}`)
	if r := rp.reqs[len(rp.reqs)-1]; !r.NoSessionScope || !r.Destructive {
		t.Errorf("destructive request %+v: want Destructive and NoSessionScope", r)
	}
}

// TestApprovalSymlinkOutOfCwd: auto-edit compares paths with their
// symlinks resolved, as the write follows them.
func TestApprovalSymlinkOutOfCwd(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cwd, elsewhere := filepath.Join(root, "repo"), filepath.Join(root, "elsewhere")
	writeFiles(t, root, map[string]string{"repo/a.txt": "x\n", "repo/real/r.txt": "x\n", "elsewhere/e.txt": "x\n"})
	if err := os.Symlink(elsewhere, filepath.Join(cwd, "vendor")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(cwd, "real"), filepath.Join(cwd, "inlink")); err != nil {
		t.Fatal(err)
	}
	// The session's cwd may itself be reached through a symlink.
	cwdLink := filepath.Join(root, "repolink")
	if err := os.Symlink(cwd, cwdLink); err != nil {
		t.Fatal(err)
	}
	v4a := func(body string) string {
		b, _ := json.Marshal(map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" + body + "\n*** End Patch"})
		return string(b)
	}
	cases := []struct {
		name, tool, args string
		inside           bool
	}{
		{"write below a symlink out", "write_file", `{"path":"vendor/evil.sh","content":"x"}`, false},
		{"write new dir below a symlink out", "write_file", `{"path":"vendor/new/deep.sh","content":"x"}`, false},
		{"write the symlink's target dir", "write_file", `{"path":"vendor","content":"x"}`, false},
		{"replace below a symlink out", "patch", `{"path":"vendor/e.txt","old_string":"x","new_string":"y"}`, false},
		{"V4A update below a symlink out", "patch", v4a("*** Update File: vendor/e.txt\n-x\n+y"), false},
		{"V4A move target below a symlink out", "patch", v4a("*** Update File: a.txt\n*** Move to: vendor/a.txt\n-x\n+y"), false},
		{"V4A Move File target below a symlink out", "patch", v4a("*** Move File: a.txt -> vendor/a.txt"), false},
		{"V4A add below a symlink out", "patch", v4a("*** Add File: a2.txt\n+x\n*** Add File: vendor/b.txt\n+x"), false},
		{"write inside", "write_file", `{"path":"a.txt","content":"x"}`, true},
		{"write below a symlink that stays inside", "write_file", `{"path":"inlink/r.txt","content":"x"}`, true},
		{"absolute path through the cwd symlink", "write_file", `{"path":"` + filepath.Join(cwdLink, "a.txt") + `","content":"x"}`, true},
		{"V4A inside", "patch", v4a("*** Update File: a.txt\n*** Move to: inlink/a.txt\n-x\n+y"), true},
	}
	for _, base := range []string{cwd, cwdLink} {
		for _, c := range cases {
			rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeOnce}}
			a := NewApprover(ApprovalAutoEdit, rp.prompt)
			a.Cwd = base
			if ok, d := a.Check(context.Background(), c.tool, c.args); !ok {
				t.Fatalf("%s: denied: %s", c.name, d.Output)
			}
			if asked := rp.count() > 0; asked == c.inside {
				t.Errorf("cwd %s, %s: asked=%v, want %v", base, c.name, asked, !c.inside)
			}
		}
	}
}

// TestApprovalMCPReadOnlyAsksInAskMode: a server's read-only mark lets a
// tool through without asking in auto-edit and yolo only; in ask mode it
// is asked for and can be allowed for the session.
func TestApprovalMCPReadOnlyAsksInAskMode(t *testing.T) {
	reg := NewRegistry(fakeTool{"srv__read", true})
	rp := &recordingPrompt{d: ApprovalDecision{Allow: true, Scope: ScopeSession}}
	a := NewApprover(ApprovalAsk, rp.prompt)
	a.Tools = reg
	for range 2 {
		if ok, _ := a.Check(context.Background(), "srv__read", `{}`); !ok {
			t.Fatal("denied")
		}
	}
	if rp.count() != 1 || rp.reqs[0].NoSessionScope {
		t.Errorf("ask mode: %d prompts (want 1, then the session approval), request %+v", rp.count(), rp.reqs)
	}
	b := NewApprover(ApprovalAutoEdit, rp.prompt)
	b.Tools = reg
	if ok, _ := b.Check(context.Background(), "srv__read", `{}`); !ok || rp.count() != 1 {
		t.Errorf("auto-edit asked for a read-only MCP tool")
	}
}
