package app_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// A second process continuing a session a live process runs is refused
// (exit 2, saying who holds it); `sessions` shows the session busy; with
// --wait it runs once the first is done.
func TestOneWriterPerSession(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.Text("first"))
	if r := talaria(t, home, cwd, srv, "", "-p", "start"); r.code != 0 {
		t.Fatalf("first: %d %s", r.code, r.stderr)
	}
	hold := make(chan struct{})
	srv.Push(pt.Reply{Chunks: pt.TextChunks("second", "stop"), Hold: hold})
	a := exec.Command(binary, "-c", "-p", "continue")
	a.Env, a.Dir = env(home, srv), cwd
	var aOut bytes.Buffer
	a.Stdout = &aOut
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Process.Kill(); _ = a.Wait() }()
	<-srv.Started() // the first run's request
	<-srv.Started() // a's request: it holds the session now

	r := talaria(t, home, cwd, srv, "", "-c", "-p", "me too")
	if r.code != 2 || !strings.Contains(r.stderr, "in use by another talaria process (pid "+strconv.Itoa(a.Process.Pid)) {
		t.Fatalf("second writer: exit %d: %s", r.code, r.stderr)
	}
	ls := talaria(t, home, cwd, nil, "", "sessions", "--json")
	var list []struct {
		ID   string `json:"id"`
		Busy *struct {
			PID int `json:"pid"`
		} `json:"busy"`
	}
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list) != 1 || list[0].Busy == nil || list[0].Busy.PID != a.Process.Pid {
		t.Fatalf("sessions --json: %s %v", ls.stdout, err)
	}
	if tbl := talaria(t, home, cwd, nil, "", "sessions"); !strings.Contains(tbl.stdout, "BUSY") || !strings.Contains(tbl.stdout, "pid "+strconv.Itoa(a.Process.Pid)) {
		t.Fatalf("sessions table: %s", tbl.stdout)
	}

	// A waiting writer runs after a finishes.
	srv.Push(pt.Text("third"))
	w := exec.Command(binary, "-c", "-p", "after you", "--wait")
	w.Env, w.Dir = env(home, srv), cwd
	var wOut, wErr bytes.Buffer
	w.Stdout, w.Stderr = &wOut, &wErr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if err := a.Wait(); err != nil || strings.TrimSpace(aOut.String()) != "second" {
		t.Fatalf("a: %v %q", err, aOut.String())
	}
	if err := w.Wait(); err != nil || strings.TrimSpace(wOut.String()) != "third" {
		t.Fatalf("--wait: %v %q %s", err, wOut.String(), wErr.String())
	}
	if ls := talaria(t, home, cwd, nil, "", "sessions", "--json"); strings.Contains(ls.stdout, `"busy"`) {
		t.Fatalf("the session is still busy after both ended: %s", ls.stdout)
	}
}
