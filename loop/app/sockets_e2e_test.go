package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// tmuxServer starts a tmux server of the user's on a private socket in
// dir, outside any sandbox, and stops it when the test ends; it skips the
// test where tmux is missing or cannot start.
func tmuxServer(t *testing.T, dir string) (tmux, sock string) {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	sock = filepath.Join(dir, "tmux.sock")
	start := exec.Command(tmux, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "talaria-e2e", "sleep 600")
	start.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	if out, err := start.CombinedOutput(); err != nil {
		t.Skipf("cannot start a tmux server: %v %s", err, out)
	}
	t.Cleanup(func() {
		stop := exec.Command(tmux, "-S", sock, "kill-server")
		stop.Env = start.Env
		_ = stop.Run()
	})
	return tmux, sock
}

// TestSandboxRefusesUnixSocketsEndToEnd is the reported escape through
// the binary: with --sandbox read-only (and workspace-write), network off
// and even --yolo, a command asks the user's tmux server — found through
// $TMUX or named with -S — to run a shell outside the sandbox. Refused,
// with a result that says a Unix socket was refused and how to allow it;
// $TMUX and $SSH_AUTH_SOCK do not reach the command. The control, with
// sandbox.allow_unix_sockets: true, reaches the server.
func TestSandboxRefusesUnixSocketsEndToEnd(t *testing.T) {
	base := notUnderTmp(t)
	cwd, outside := filepath.Join(base, "cwd"), filepath.Join(base, "outside")
	for _, d := range []string{cwd, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmux, sock := tmuxServer(t, outside)
	extra := []string{"TMUX=" + sock + ",1,0", "SSH_AUTH_SOCK=" + sock}
	for _, mode := range []string{"read-only", "workspace-write"} {
		escaped := filepath.Join(outside, "escaped-"+mode)
		home := t.TempDir()
		srv := pt.New(t)
		srv.Push(
			pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"tmux run-shell 'id > ` + escaped + `'"}`}),
			pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"` + tmux + ` -S ` + sock + ` run-shell 'id > ` + escaped + `'"}`}),
			pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"echo \"tmux=[$TMUX] ssh=[$SSH_AUTH_SOCK]\""}`}),
			pt.Text("done"),
		)
		r := talariaWith(t, home, cwd, srv, extra, "-p", "escape", "--sandbox", mode, "--yolo")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, r.code, r.stderr)
		}
		res := toolResults(t, srv)
		if len(res) != 3 {
			t.Fatalf("%s: results %q", mode, res)
		}
		for _, i := range []int{0, 1} {
			if !strings.Contains(res[i], "refused it a Unix-domain socket") || !strings.Contains(res[i], "sandbox.allow_unix_sockets: true") {
				t.Errorf("%s: result %d does not say the socket was refused: %q", mode, i, res[i])
			}
		}
		if !strings.Contains(res[2], "tmux=[] ssh=[]") {
			t.Errorf("%s: the socket variables reached the command: %q", mode, res[2])
		}
		if _, err := os.Stat(escaped); err == nil {
			t.Fatalf("%s: the tmux server ran a command outside the sandbox", mode)
		}
	}

	// The control: allowed, the same command reaches the server.
	home := t.TempDir()
	writeConfig(t, home, "sandbox:\n  allow_unix_sockets: true\n")
	escaped := filepath.Join(outside, "escaped-allowed")
	srv := pt.New(t)
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"tmux run-shell 'id > ` + escaped + `' && echo reached"}`}),
		pt.Text("done"),
	)
	r := talariaWith(t, home, cwd, srv, extra, "-p", "allowed", "--sandbox", "read-only", "--yolo")
	if res := toolResults(t, srv); r.code != 0 || len(res) != 1 || !strings.Contains(res[0], "reached") {
		t.Fatalf("allowed: exit %d %q: %s", r.code, res, r.stderr)
	}
	if _, err := os.Stat(escaped); err != nil {
		t.Errorf("allowed: the control did not reach the tmux server: %v", err)
	}
}
