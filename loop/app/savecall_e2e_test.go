package app_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	pt "talaria/providers/providertest"
)

// kill -9 while a tool batch runs: after -c the next request carries the
// assistant's tool calls, and every call without a saved result gets a
// "may have run" receipt (the file write already happened on disk, so the
// model must be told to check, not that it was skipped).
func TestKill9MidBatchKeepsTheCalls(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	fifo := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(
		pt.Call{ID: "call_w", Name: "write_file", Args: `{"path":"done.txt","content":"written\n"}`},
		pt.Call{ID: "call_t", Name: "terminal", Args: `{"command":"echo ready > ` + fifo + `; sleep 30"}`},
	))
	cmd := exec.Command(binary, "-p", "write then wait", "--yolo")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Opening the FIFO blocks until the command writes to it: the write
	// has happened and the second call is running.
	if b, err := os.ReadFile(fifo); err != nil || strings.TrimSpace(string(b)) != "ready" {
		t.Fatalf("fifo: %q %v", b, err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if b, _ := os.ReadFile(filepath.Join(cwd, "done.txt")); string(b) != "written\n" {
		t.Fatalf("the write did not happen: %q", b)
	}
	srv.Push(pt.Text("checked"))
	r := talaria(t, home, cwd, srv, "", "-c", "-p", "go on", "--yolo")
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	raw, _ := json.Marshal(reqs[len(reqs)-1]["messages"])
	var msgs []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatal(err)
	}
	var calls []string
	results := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.ID)
		}
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	if strings.Join(calls, ",") != "call_w,call_t" {
		t.Fatalf("the assistant's tool calls were not saved: %s", raw)
	}
	if !strings.Contains(results["call_t"], "may have run") {
		t.Fatalf("the running call's receipt: %q", results["call_t"])
	}
	if w := results["call_w"]; w == "" || strings.Contains(w, "skipped") {
		t.Fatalf("the finished write's result: %q", w)
	}
}
