package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"talaria/tools/lsp"
)

// pyrightVersion is the pyright the test installs from npm.
const pyrightVersion = "1.1.414"

// pyrightLangserver returns pyright-langserver, installed on first use
// from npm into the user's cache (never into the repository); it skips
// the test when npm or node is missing or the install fails.
func pyrightLangserver(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the pyright test installs pyright from npm")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the language-server tests run on Unix")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not on PATH: the pyright test needs it to install pyright")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not on PATH: pyright runs on node")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for pyright: %v", err)
	}
	prefix := filepath.Join(cache, "talaria-test", "pyright-"+pyrightVersion)
	bin := filepath.Join(prefix, "node_modules", ".bin", "pyright-langserver")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, "pyright@"+pyrightVersion)
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("installing pyright %s from npm failed (no network?), skipping: %v\n%s", pyrightVersion, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("npm installed pyright but %s is missing: %v", bin, err)
	}
	return bin
}

// TestPyrightDiagnosticsReachTheWriteResult runs the real pyright through
// the real write tools: an undefined name is an error in the same result,
// the fix reports none.
func TestPyrightDiagnosticsReachTheWriteResult(t *testing.T) {
	server := pyrightLangserver(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"m\"\nversion = \"0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := lsp.New(lsp.Options{
		Servers: []lsp.ServerConfig{{Name: "pyright", Command: []string{server, "--stdio"}, Filetypes: []string{"py"}, RootMarkers: []string{"pyproject.toml"}}},
		// Bounded, and generous: node starts slowly on a loaded machine.
		Wait: 2 * time.Minute, Cwd: dir,
	})
	defer m.Close()
	env := &Env{Cwd: dir, Edits: m}
	reg := NewRegistry(Builtins()...)
	res := reg.Call(context.Background(), env, "write_file", `{"path":"main.py","content":"def main():\n    print(undefined_name)\n"}`)
	if res.IsError || len(res.Diagnostics) == 0 {
		t.Fatalf("no diagnostics from pyright:\n%s", res.Output)
	}
	d := res.Diagnostics[0]
	if d.Severity != "error" || d.Line != 2 || !strings.Contains(d.Message, `"undefined_name" is not defined`) {
		t.Fatalf("first diagnostic: %+v\n%s", d, res.Output)
	}
	res = reg.Call(context.Background(), env, "patch", `{"path":"main.py","old_string":"print(undefined_name)","new_string":"print(\"ok\")"}`)
	if res.IsError || len(res.Diagnostics) != 0 || !strings.Contains(res.Output, "Diagnostics (pyright): none.") {
		t.Fatalf("after the fix:\n%s", res.Output)
	}
}
