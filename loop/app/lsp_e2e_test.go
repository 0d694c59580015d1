package app_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// cachedGopls returns gopls v0.23.0 from the user's cache, installing it
// there on first use (never into the repository); it skips the test when
// that is not possible.
func cachedGopls(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the gopls test installs gopls")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for gopls: %v", err)
	}
	bin := filepath.Join(cache, "talaria-test", "gopls-v0.23.0")
	gopls := filepath.Join(bin, "gopls")
	if _, err := os.Stat(gopls); err == nil {
		return gopls
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", "golang.org/x/tools/gopls@v0.23.0")
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("installing gopls v0.23.0 failed (no network?), skipping: %v\n%s", err, out)
	}
	return gopls
}

// processesIn lists the pids of processes running exe with cwd dir.
func processesIn(exe, dir string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		x, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		c, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if x == exe && c == dir {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestGoplsDiagnosticsReachTheModel: through the binary, the model writes
// a Go file with an undefined name and the tool result it reads next
// carries gopls's error; gopls is gone when talaria exits.
func TestGoplsDiagnosticsReachTheModel(t *testing.T) {
	gopls := cachedGopls(t)
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, cwd, "go.mod", "module example.com/m\n\ngo 1.22\n", 0o644)
	writeFile(t, home, ".talaria/config.yaml", "lsp:\n  wait: 2m\n  servers:\n    gopls: {command: ["+gopls+"]}\n", 0o644)
	srv := pt.New(t)
	srv.Push(pt.ToolCalls(pt.Call{ID: "w", Name: "write_file", Args: `{"path":"main.go","content":"package main\n\nfunc main() {\n\tprintln(undefinedName)\n}\n"}`}), pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "write it", "--yolo", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.RawRequests()
	if len(reqs) < 2 || !strings.Contains(reqs[1], `main.go:4:10: error: undefined: undefinedName`) {
		t.Fatalf("the model did not see the diagnostic:\n%s", reqs[len(reqs)-1])
	}
	var carried []any
	for _, e := range events(t, r.stdout) {
		if e["type"] == "tool.completed" && e["id"] == "w" {
			carried, _ = e["diagnostics"].([]any)
		}
	}
	if len(carried) == 0 {
		t.Fatalf("tool.completed carries no diagnostics:\n%s", r.stdout)
	}
	if d, _ := carried[0].(map[string]any); d["path"] != "main.go" || d["line"] != float64(4) || d["severity"] != "error" || !strings.Contains(fmt.Sprint(d["message"]), "undefinedName") {
		t.Fatalf("tool.completed.diagnostics[0] = %v", carried[0])
	}
	real, _ := filepath.EvalSymlinks(cwd)
	if left := processesIn(gopls, real); len(left) > 0 {
		t.Fatalf("gopls outlived talaria: pids %v", left)
	}
}
