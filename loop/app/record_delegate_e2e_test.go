package app_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestRecordHoldsTheSubagentsCalls records a turn that delegates (the
// child reads a file, then answers) and checks that the recording holds
// the child's model calls, named by the child, besides the parent's, and
// that the recording replays offline without a divergence. The child's
// options were once copied before the recorder wrapped the transports, so
// its calls went unrecorded.
func TestRecordHoldsTheSubagentsCalls(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("zebra notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "delegate_task", Args: `{"goal":"read notes.txt"}`}), // parent
		pt.ToolCalls(pt.Call{Name: "read_file", Args: `{"path":"notes.txt"}`}),          // child
		pt.Text("Child summary: the notes are about zebras."),                           // child
		pt.Text("The subagent read the notes: zebras."),                                 // parent
	)
	file := filepath.Join(t.TempDir(), "run.jsonl")
	r := talaria(t, home, cwd, srv, "", "-p", "delegate the reading", "--json", "--yolo", "--record", file)
	if r.code != 0 {
		t.Fatalf("recorded run: exit %d\n%s", r.code, r.stderr)
	}
	srv.Close()
	if n := len(srv.RawRequests()); n != 4 {
		t.Fatalf("the provider served %d requests, want 4", n)
	}

	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var own, child int
	var childAgent string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var l struct {
			Type  string          `json:"type"`
			Agent string          `json:"agent"`
			Body  json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("recording line: %v: %s", err, sc.Text())
		}
		if l.Type != "request" {
			continue
		}
		if l.Agent == "" {
			own++
			continue
		}
		child++
		childAgent = l.Agent
		if child == 1 && !strings.Contains(string(l.Body), "read notes.txt") {
			t.Errorf("the child's first recorded request does not carry its goal: %s", l.Body)
		}
	}
	if own != 2 || child != 2 {
		t.Fatalf("recorded requests: %d of the session's agent (want 2), %d of the subagent (want 2)", own, child)
	}
	if !strings.Contains(childAgent, "-sub1") {
		t.Errorf("the child's lines name %q, want the child's session id", childAgent)
	}

	// The provider is gone: the replay serves the parent's calls and the
	// delegate_task result from the recording.
	rep := talaria(t, home, cwd, nil, "", "replay", file, "--json", "--fast")
	if rep.code != 0 || strings.Contains(rep.stdout, `"divergence"`) {
		t.Fatalf("replay: exit %d\n%s\n%s", rep.code, rep.stdout, rep.stderr)
	}
	// A replay takes no checkpoints (delegate_task may change files).
	wantOrder, wantCalls := shape(t, strings.ReplaceAll(r.stdout, `"type":"checkpoint.created"`, `"type":"tool.output"`))
	gotOrder, gotCalls := shape(t, rep.stdout)
	if strings.Join(wantOrder, "\n") != strings.Join(gotOrder, "\n") || strings.Join(wantCalls, "\n") != strings.Join(gotCalls, "\n") {
		t.Fatalf("replay events differ:\nrecorded %q\n%q\nreplayed %q\n%q", wantOrder, wantCalls, gotOrder, gotCalls)
	}
}
