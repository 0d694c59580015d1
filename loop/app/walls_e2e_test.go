package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// TestSandboxMetadataEndToEnd: under --sandbox read-only (and
// workspace-write), chmod 0, chown and touch -d on a file outside leave it
// as it was, and each result says the sandbox stopped it.
func TestSandboxMetadataEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	base := notUnderTmp(t)
	cwd, victim := filepath.Join(base, "cwd"), filepath.Join(base, "victim")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"read-only", "workspace-write"} {
		srv := pt.New(t)
		cmds := []string{"chmod 0 " + victim, "chown 1:1 " + victim, "touch -d 2001-02-03 " + victim}
		for _, c := range cmds {
			srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"` + c + `"}`}))
		}
		srv.Push(pt.Text("done"))
		r := talaria(t, t.TempDir(), cwd, srv, "", "-p", "meta", "--sandbox", mode, "--yolo")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, r.code, r.stderr)
		}
		res := toolResults(t, srv)
		if len(res) != len(cmds) {
			t.Fatalf("%s: results %q", mode, res)
		}
		for i, c := range cmds {
			if !strings.Contains(res[i], "the sandbox ("+mode+")") {
				t.Errorf("%s: %q: result %q does not say the sandbox stopped it", mode, c, res[i])
			}
		}
		after, err := os.Stat(victim)
		if err != nil {
			t.Fatal(err)
		}
		if after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) || after.ModTime().Before(time.Date(2002, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: the file outside changed: %v %v", mode, after.Mode(), after.ModTime())
		}
	}
}

// TestSandboxRelativeTMPDIRExits2: with TMPDIR=. workspace-write would
// let commands write wherever they run; talaria refuses to start (exit
// 2, naming TMPDIR) before any turn. read-only does not use $TMPDIR and
// starts.
func TestSandboxRelativeTMPDIRExits2(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	home, cwd := t.TempDir(), notUnderTmp(t)
	srv := pt.New(t)
	r := talariaWith(t, home, cwd, srv, []string{"TMPDIR=."}, "-p", "hi", "--sandbox", "workspace-write")
	if r.code != 2 || !strings.Contains(r.stderr, "TMPDIR=. is a relative path") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a turn ran")
	}
	srv.Push(pt.Text("fine"))
	if r := talariaWith(t, home, cwd, srv, []string{"TMPDIR=."}, "-p", "hi", "--sandbox", "read-only"); r.code != 0 {
		t.Fatalf("read-only: exit %d: %s", r.code, r.stderr)
	}
}
