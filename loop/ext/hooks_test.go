package ext

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"talaria/loop/config"
)

// runner builds a Runner for one event's hooks, each a script written to
// a temp dir.
func runner(t *testing.T, event, matcher string, timeout float64, scripts ...string) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	var cmds []config.HookCommand
	for i, body := range scripts {
		p := filepath.Join(dir, "hook"+strconv.Itoa(i)+".sh")
		write(t, p, "#!/bin/bash\n"+body+"\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, config.HookCommand{Type: "command", Command: `"$TALARIA_PROJECT_DIR"/` + filepath.Base(p), Timeout: timeout})
	}
	hooks, notes := CompileHooks(config.Hooks{event: {{Matcher: matcher, Hooks: cmds}}}, Source{Path: "config.yaml", Origin: OriginHome})
	if len(notes) > 0 {
		t.Fatal(notes)
	}
	return &Runner{Hooks: hooks, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}, dir
}

func toolInput(cmd string) Input {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return Input{SessionID: "s1", ToolName: "terminal", ToolInput: in, ToolUseID: "call_1"}
}

func TestHookTimeoutIsNonBlockingFailure(t *testing.T) {
	r, _ := runner(t, PreToolUse, "", 0.2, "sleep 30")
	res := r.Run(context.Background(), PreToolUse, toolInput("ls"))
	o := res.Outcomes[0]
	if !o.TimedOut || !o.Failed() || o.Label(PreToolUse) != "timeout" {
		t.Fatalf("outcome = %+v", o)
	}
	if res.Decision.Block || res.Decision.Permission != "" || res.Decision.Failed != 1 {
		t.Errorf("a timed-out hook must not block: %+v", res.Decision)
	}
}

func TestHookOutputCapped(t *testing.T) {
	r, _ := runner(t, PostToolUse, "", 0, "head -c 100000000 /dev/zero | tr '\\0' x; head -c 3000000 /dev/zero >&2")
	res := r.Run(context.Background(), PostToolUse, toolInput("ls"))
	o := res.Outcomes[0]
	if o.ExitCode != 0 || len(o.Stdout) != MaxHookOutput || o.StdoutDropped != 100000000-MaxHookOutput {
		t.Errorf("stdout kept %d dropped %d exit %d", len(o.Stdout), o.StdoutDropped, o.ExitCode)
	}
	if len(o.Stderr) != MaxHookOutput || o.StderrDropped != 3000000-MaxHookOutput {
		t.Errorf("stderr kept %d dropped %d", len(o.Stderr), o.StderrDropped)
	}
}

func TestHookExit1NonBlocking(t *testing.T) {
	r, _ := runner(t, PreToolUse, "Bash", 0, "echo 'lint crashed' >&2; exit 1")
	res := r.Run(context.Background(), PreToolUse, toolInput("ls"))
	d := res.Decision
	if d.Block || d.Permission != "" || d.Failed != 1 || len(d.Messages) != 1 || d.Messages[0] != "lint crashed" {
		t.Errorf("decision = %+v", d)
	}
	if l := res.Outcomes[0].Label(PreToolUse); l != "error" {
		t.Errorf("label = %q", l)
	}
}

func TestHookExit2Blocks(t *testing.T) {
	r, _ := runner(t, PreToolUse, "", 0, "cat >/dev/null; echo 'not on main' >&2; exit 2")
	d := r.Run(context.Background(), PreToolUse, toolInput("git push")).Decision
	if !d.Block || d.Reason != "not on main" || d.Permission != PermissionDeny || d.Failed != 0 {
		t.Errorf("decision = %+v", d)
	}
	// On an event that cannot block, exit 2 is shown, not a block.
	r, _ = runner(t, SessionEnd, "", 0, "echo bye >&2; exit 2")
	d = r.Run(context.Background(), SessionEnd, Input{Reason: "other"}).Decision
	if d.Block || len(d.Messages) != 1 {
		t.Errorf("SessionEnd exit 2 = %+v", d)
	}
}

func TestHookJSONDecisions(t *testing.T) {
	deny := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"secrets stay put"}}'`
	ask := `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check it"}}'`
	allow := `echo '{"hookSpecificOutput":{"permissionDecision":"allow","additionalContext":"fine by policy"},"systemMessage":"auto-approved"}'`
	r, _ := runner(t, PreToolUse, "terminal", 0, allow, deny, ask)
	d := r.Run(context.Background(), PreToolUse, toolInput("cat .env")).Decision
	if d.Permission != PermissionDeny || d.PermissionReason != "secrets stay put" || !d.Block || d.Reason != "secrets stay put" {
		t.Errorf("deny must beat ask and allow: %+v", d)
	}
	if len(d.Context) != 1 || d.Context[0] != "fine by policy" || len(d.Messages) != 1 {
		t.Errorf("context/messages = %+v", d)
	}
	r, _ = runner(t, PreToolUse, "", 0, allow, ask)
	if d := r.Run(context.Background(), PreToolUse, toolInput("x")).Decision; d.Permission != PermissionAsk || d.Block {
		t.Errorf("ask must beat allow: %+v", d)
	}
	r, _ = runner(t, PreToolUse, "", 0, allow)
	if d := r.Run(context.Background(), PreToolUse, toolInput("x")).Decision; d.Permission != PermissionAllow || d.Block {
		t.Errorf("allow: %+v", d)
	}
	r, _ = runner(t, Stop, "", 0, `echo '{"decision":"block","reason":"tests still fail"}'`, `echo '{"continue":false,"stopReason":"budget"}'`)
	if d := r.Run(context.Background(), Stop, Input{}).Decision; !d.Block || d.Reason != "tests still fail" || !d.Stop || d.StopReason != "budget" {
		t.Errorf("Stop: %+v", d)
	}
}

func TestHookPlainStdoutIsContext(t *testing.T) {
	r, _ := runner(t, UserPromptSubmit, "", 0, "echo 'branch: main'")
	if d := r.Run(context.Background(), UserPromptSubmit, Input{Prompt: "hi"}).Decision; len(d.Context) != 1 || d.Context[0] != "branch: main" {
		t.Errorf("UserPromptSubmit context = %+v", d)
	}
	r, _ = runner(t, PostToolUse, "", 0, "echo 'formatted'")
	if d := r.Run(context.Background(), PostToolUse, toolInput("x")).Decision; len(d.Context) != 0 {
		t.Errorf("PostToolUse plain stdout must not reach the model: %+v", d)
	}
}

func TestHookStdinEnvAndDir(t *testing.T) {
	r, dir := runner(t, Stop, "", 0, `cat > "$TALARIA_PROJECT_DIR/stdin.json"; printf '%s|%s|%s|%s' "$TALARIA_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" "$PWD" "${LEAK-unset}"`)
	t.Setenv("LEAK", "secret")
	res := r.Run(context.Background(), Stop, Input{SessionID: "s9", TranscriptPath: "/t.jsonl"})
	if want := dir + "|" + dir + "|" + dir + "|unset"; res.Outcomes[0].Stdout != want {
		t.Errorf("env/dir = %q, want %q", res.Outcomes[0].Stdout, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "stdin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got["hook_event_name"] != "Stop" || got["session_id"] != "s9" || got["stop_hook_active"] != false || got["cwd"] != dir || got["transcript_path"] != "/t.jsonl" {
		t.Errorf("stdin = %s", data)
	}
	if _, ok := got["tool_name"]; ok {
		t.Errorf("Stop's stdin has tool_name: %s", data)
	}
}

func TestHookCancelKillsGroup(t *testing.T) {
	r, dir := runner(t, PreToolUse, "", 60, `sleep 300 & echo $! > "$TALARIA_PROJECT_DIR/child.pid"; wait`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- r.Run(ctx, PreToolUse, toolInput("x")) }()
	pidFile := filepath.Join(dir, "child.pid")
	var pid int
	waitFor(t, "the hook's background child to start", func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return pid > 0
	})
	cancel()
	var res Result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if o := res.Outcomes[0]; !o.Canceled || o.Label(PreToolUse) != "canceled" || res.Decision.Block {
		t.Errorf("outcome = %+v decision %+v", o, res.Decision)
	}
	waitFor(t, "the background child to die", func() bool { return gone(pid) })
}

// gone reports a process that no longer runs (absent or a zombie).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBlockRmFixtureHook(t *testing.T) {
	root := copyProject(t)
	hooks, _ := CompileHooks(config.Hooks{PreToolUse: {{Matcher: "Bash", Hooks: []config.HookCommand{{Command: `"$CLAUDE_PROJECT_DIR"/hooks/block-rm.sh`}}}}}, Source{Path: "x", Origin: OriginProject})
	r := &Runner{Hooks: hooks, Dir: root, Env: []string{"PATH=" + os.Getenv("PATH")}}
	d := r.Run(context.Background(), PreToolUse, toolInput("rm -rf build")).Decision
	if !d.Block || !strings.Contains(d.Reason, "rm -r is blocked") {
		t.Errorf("rm -rf: %+v", d)
	}
	if d := r.Run(context.Background(), PreToolUse, toolInput("ls -la")).Decision; d.Block || d.Failed != 0 {
		t.Errorf("ls: %+v", d)
	}
	in := toolInput("rm -rf /")
	in.ToolName = "write_file"
	if res := r.Run(context.Background(), PreToolUse, in); len(res.Outcomes) != 0 {
		t.Errorf("a Bash matcher ran for write_file: %+v", res)
	}
}

func TestHookMatchers(t *testing.T) {
	cases := []struct {
		matcher, target string
		want            bool
	}{
		{"", "anything", true},
		{"*", "terminal", true},
		{"Bash", "terminal", true},
		{"terminal", "terminal", true},
		{"Write|Edit", "patch", true},
		{"Write,Edit", "write_file", true},
		{"Write|Edit", "terminal", false},
		{"Edit.*", "patch", true},
		{"mcp__mem__.*", "mem__save", true},
		{"mcp__mem__save", "mem__save", true},
		{"mcp__mem", "mem__save", true},
		{"read", "read_file", false},
		{"read.*", "read_file", true},
		{"startup|resume", "resume", true},
		{"manual", "auto", false},
	}
	for _, c := range cases {
		h := Hook{Matcher: c.matcher}
		if err := h.compile(); err != nil {
			t.Fatal(err)
		}
		if got := h.Matches(c.target); got != c.want {
			t.Errorf("matcher %q on %q = %v, want %v", c.matcher, c.target, got, c.want)
		}
	}
}

func TestHookDuplicatesRunOnceAndUnsupportedTypes(t *testing.T) {
	hooks, notes := CompileHooks(config.Hooks{
		PostToolUse: {{Hooks: []config.HookCommand{{Command: "true"}, {Command: "true"}, {Type: "prompt", Command: "x"}}}},
	}, Source{Path: "cfg"})
	if len(hooks) != 2 || len(notes) != 1 || !strings.Contains(notes[0].Msg, `type "prompt"`) {
		t.Fatalf("hooks %d notes %v", len(hooks), notes)
	}
	r := &Runner{Hooks: hooks, Dir: t.TempDir()}
	if res := r.Run(context.Background(), PostToolUse, toolInput("x")); len(res.Outcomes) != 1 {
		t.Errorf("the same command twice must run once: %d", len(res.Outcomes))
	}
	var nilRunner *Runner
	if res := nilRunner.Run(context.Background(), Stop, Input{}); len(res.Outcomes) != 0 {
		t.Error("nil runner")
	}
}

func TestHookStartFailure(t *testing.T) {
	r := &Runner{Hooks: []Hook{{Event: Stop, Command: "true", all: true}}, Dir: t.TempDir(), Shell: "/nonexistent/shell"}
	res := r.Run(context.Background(), Stop, Input{})
	if o := res.Outcomes[0]; o.StartErr == "" || !o.Failed() || res.Decision.Block || res.Decision.Failed != 1 {
		t.Errorf("outcome %+v decision %+v", o, res.Decision)
	}
}
