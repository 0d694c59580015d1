package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	pt "talaria/providers/providertest"
)

// Secrets planted in talaria's environment: a variable that looks secret
// and the provider key.
const (
	plantedToken = "planted-secret-7f3a9c"
	plantedKey   = "sk-planted-provider-key-4d1e8b2a"
)

// readParentCommand reads what a command can learn of its parent process
// from /proc: its environment and command line.
const readParentCommand = `tr '\0' '\n' < /proc/$PPID/environ; echo; tr '\0' ' ' < /proc/$PPID/cmdline; echo`

// secretEnv is env with the planted secrets.
func secretEnv(home string, srv *pt.Server) []string {
	var out []string
	for _, kv := range env(home, srv) {
		if !strings.HasPrefix(kv, "OPENAI_API_KEY=") {
			out = append(out, kv)
		}
	}
	return append(out, "OPENAI_API_KEY="+plantedKey, "MY_API_TOKEN="+plantedToken)
}

// checkNoSecret fails when a planted secret is in one of the things
// talaria sends or writes: the requests to the provider (the tool
// result), the JSON events, the store, the log.
func checkNoSecret(t *testing.T, home string, srv *pt.Server, stdout string) {
	t.Helper()
	places := map[string]string{"JSON events": stdout}
	for i, r := range srv.RawRequests() {
		places[fmt.Sprintf("request %d to the provider", i+1)] = r
	}
	for _, f := range []string{"state.db", "logs/talaria.log"} {
		if b, err := os.ReadFile(filepath.Join(home, ".talaria", f)); err == nil {
			places[f] = string(b)
		}
	}
	for where, text := range places {
		for _, s := range []string{plantedToken, plantedKey} {
			if strings.Contains(text, s) {
				t.Errorf("the secret %q reached %s", s, where)
			}
		}
	}
}

// A command reads its parent's environment and command line: the parent
// is the spawner, which never held talaria's secrets (or, in the sandbox,
// a process of the sandbox's PID namespace); neither secret reaches the
// tool result, the events, the store or the log.
func TestParentEnvironHoldsNoSecret(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	for _, mode := range []string{"off", "workspace-write"} {
		t.Run(mode, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			srv := pt.New(t)
			args, _ := json.Marshal(map[string]string{"command": readParentCommand})
			srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: string(args)}), pt.Text("read it"))
			cmd := exec.Command(binary, "-p", "look at your parent", "--yolo", "--json", "--sandbox", mode)
			cmd.Env = secretEnv(home, srv)
			cmd.Dir = cwd
			r := runCmd(t, cmd)
			if mode != "off" && r.code == 2 {
				t.Skipf("no sandbox here: %s", r.stderr)
			}
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			reqs := srv.RawRequests()
			if len(reqs) != 2 || !strings.Contains(reqs[1], "PATH=") {
				t.Fatalf("the command did not read its parent's environment: %v", reqs)
			}
			checkNoSecret(t, home, srv, r.stdout)
			if mode == "off" && !strings.Contains(reqs[1], "__talaria_spawn") {
				t.Errorf("the command's parent is not the spawner")
			}
		})
	}
}

// Run as a user that is not root, a command cannot read the environment
// of any talaria process above it either: talaria is not dumpable, and
// the watchdog gets no secret. (Root can: see the README.)
func TestAncestorEnvironHoldsNoSecretForNonRoot(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to run talaria as another user")
	}
	const uid = 65534 // nobody
	base, err := os.MkdirTemp("", "talaria-nonroot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	bin := filepath.Join(base, "talaria")
	copyFile(t, binary, bin)
	home, cwd := filepath.Join(base, "home"), filepath.Join(base, "cwd")
	for _, d := range []string{home, cwd} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	// Every ancestor of the command up to init: environ and command line.
	script := `p=$PPID; while [ "$p" -gt 1 ]; do echo "== $p"; tr '\0' '\n' < /proc/$p/environ; tr '\0' ' ' < /proc/$p/cmdline; echo; p=$(awk '{print $4}' /proc/$p/stat); done 2>&1; ` +
		// and every talaria process (the watchdog is no ancestor)
		`for e in /proc/[0-9]*/environ; do tr '\0' '\n' < $e; done 2>/dev/null | grep planted || true`
	args, _ := json.Marshal(map[string]string{"command": script})
	srv.Push(
		pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"sleep 100","background":true}`}), // starts the watchdog
		pt.ToolCalls(pt.Call{Name: "terminal", Args: string(args)}),
		pt.Text("read them"))
	cmd := exec.Command(bin, "-p", "look at your ancestors", "--yolo", "--json")
	cmd.Env = secretEnv(home, srv)
	cmd.Dir = cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if reqs := srv.RawRequests(); len(reqs) != 3 || !strings.Contains(reqs[2], "== ") {
		t.Fatalf("the command did not walk its ancestors: %v", reqs)
	}
	checkNoSecret(t, home, srv, r.stdout)
}

// copyFile copies src to dst, executable.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, in); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
}
