package app_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestTerminalStreamsOutputHeadless: a command printing a line every 200 ms
// for 1 s gives several tool.output events, in order, before its
// tool.completed, through the binary's --json stream.
func TestTerminalStreamsOutputHeadless(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{ID: "t1", Name: "terminal", Args: `{"command":"for i in 1 2 3 4 5; do echo tick$i; sleep 0.2; done"}`}),
		pt.Text("ticked"),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "tick", "--json", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var outputs []string
	completed := false
	for _, ev := range events(t, r.stdout) {
		switch ev["type"] {
		case "tool.output":
			if completed {
				t.Fatal("tool.output after tool.completed")
			}
			if ev["id"] != "t1" {
				t.Fatalf("tool.output id %v", ev["id"])
			}
			outputs = append(outputs, ev["text"].(string))
		case "tool.completed":
			completed = true
		}
	}
	if len(outputs) < 3 {
		t.Fatalf("%d tool.output events, want >= 3: %q", len(outputs), outputs)
	}
	if got := strings.Join(outputs, ""); got != "tick1\ntick2\ntick3\ntick4\ntick5\n" {
		t.Fatalf("streamed %q", got)
	}
}

// TestStdinCancelStopsOneCall: /cancel ID on stdin stops that terminal call
// (a receipt with what it printed, cancelled true); the batch's other calls
// run and the turn answers.
func TestStdinCancelStopsOneCall(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(
			pt.Call{ID: "long", Name: "terminal", Args: `{"command":"echo started; sleep 60"}`},
			pt.Call{ID: "after1", Name: "terminal", Args: `{"command":"echo one"}`},
			pt.Call{ID: "after2", Name: "terminal", Args: `{"command":"echo two"}`},
		),
		pt.Text("the rest ran"),
	)
	cmd := exec.Command(binary, "-p", "go", "--stdin-commands", "--json", "--yolo")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	done := map[string]map[string]any{}
	var final map[string]any
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		switch ev["type"] {
		case "tool.output":
			if ev["id"] == "long" && strings.Contains(ev["text"].(string), "started") {
				_, _ = stdin.Write([]byte("/cancel long\n"))
			}
		case "tool.completed":
			done[ev["id"].(string)] = ev
		case "turn.finished":
			final = ev
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	long := done["long"]
	if long == nil || long["cancelled"] != true || !strings.Contains(long["output"].(string), "The user stopped this terminal call") ||
		!strings.Contains(long["output"].(string), "started") {
		t.Fatalf("long: %v", long)
	}
	for _, id := range []string{"after1", "after2"} {
		if done[id] == nil || done[id]["ok"] != true || done[id]["cancelled"] != false {
			t.Fatalf("%s: %v", id, done[id])
		}
	}
	if final == nil || final["final_response"] != "the rest ran" || final["completed"] != true {
		t.Fatalf("turn: %v", final)
	}
}

// TestDelegateStreamsChildProgress: a delegate_task call streams one line
// per child event as its tool.output.
func TestDelegateStreamsChildProgress(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{ID: "d1", Name: "delegate_task", Args: `{"goal":"list the files"}`}),
		pt.ToolCalls(pt.Call{ID: "c1", Name: "search_files", Args: `{"pattern":"*.go","target":"files"}`}),
		pt.Text("Child summary: no Go files."),
		pt.Text("The subagent found no Go files."),
	)
	r := talaria(t, home, cwd, srv, "", "-p", "delegate it", "--json", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var streamed strings.Builder
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "tool.output" && ev["id"] == "d1" {
			streamed.WriteString(ev["text"].(string))
		}
	}
	got := streamed.String()
	for _, want := range []string{"iteration 1", "→ search_files *.go", "✓ search_files *.go", "iteration 2", "finished: "} {
		if !strings.Contains(got, want) {
			t.Fatalf("child progress lacks %q:\n%s", want, got)
		}
	}
}
