package app_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// TestACPWithAcpx runs one prompt with a permission request through a
// client no one here wrote: acpx (npm), installed into the test's own temp
// dir. Without npm, or when the install fails (no registry), it skips.
func TestACPWithAcpx(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no npm install")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the acpx interop test needs it")
	}
	prefix := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, "acpx").CombinedOutput(); err != nil {
		t.Skipf("npm install acpx failed (no registry here?): %v\n%s", err, out)
	}
	acpx := filepath.Join(prefix, "node_modules", ".bin", "acpx")
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{ID: "call_x", Name: "write_file", Args: `{"path":"acpx.txt","content":"from acpx\n"}`}), pt.Text("Done via acpx."))
	cmd := exec.CommandContext(ctx, acpx, "--agent", binary+" acp", "--cwd", cwd, "--approve-all", "--format", "text", "--timeout", "60", "exec", "write acpx.txt")
	cmd.Env = append(env(home, srv), "NO_COLOR=1")
	cmd.Dir = cwd
	r := runCmd(t, cmd)
	if r.code != 0 || !strings.Contains(r.stdout, "Done via acpx.") {
		t.Fatalf("acpx exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(cwd, "acpx.txt")); err != nil || string(data) != "from acpx\n" {
		t.Fatalf("the approved write did not land: %q %v\nstdout: %s", data, err, r.stdout)
	}
}
