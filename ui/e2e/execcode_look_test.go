package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestTUIExecuteCodeCard runs a real execute_code script at 80x24: its
// card shows the script, the inner calls nested under it and the
// script's output; a PreToolUse hook that blocks rm shows on the inner
// call it blocked.
func TestTUIExecuteCodeCard(t *testing.T) {
	for _, tool := range []string{"tmux", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	home, cwd := t.TempDir(), t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, f), []byte("line one\nline two\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hook := filepath.Join(home, "no-rm.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ngrep -q '\"rm ' && { echo 'rm is not allowed here' >&2; exit 2; }\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "approvals: yolo\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: " + hook + "\n"
	if err := os.MkdirAll(filepath.Join(home, ".talaria"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".talaria", "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "from talaria_tools import *\ntotal = 0\nfor f in ['a.txt', 'b.txt', 'c.txt']:\n    text = read_file(path=f)\n    total += text.count('line')\n    print(f, 'read')\ntry:\n    terminal(command='rm -f a.txt')\nexcept ToolError as e:\n    print('refused:', str(e)[:40])\nprint('total lines', total)\n"
	args, _ := json.Marshal(map[string]string{"code": script})
	srv.Push(pt.ToolCalls(pt.Call{Name: "execute_code", Args: string(args)}), pt.Text("Counted."))
	s := startIn(t, bin, srv, home, cwd, 80, 24, "Ask anything")
	s.typeLine("count the lines")
	s.waitFor("Counted.")
	screen := s.capture()
	t.Logf("80x24:\n%s", screen)
	for _, want := range []string{"script lines", "↳ ✓ read_file c.txt", "↳ ⊘ terminal", "PreToolUse hook", "total lines"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(cwd, "a.txt")); err != nil {
		t.Errorf("the hook did not block rm: %v", err)
	}
}
