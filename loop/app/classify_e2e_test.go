package app_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestClassifySandboxAsksEndToEnd drives the binary headless in ask mode
// with --sandbox workspace-write: the commands of issue 29 item 3 that
// ran unasked need an approval nobody can give (so .env, a gitignored
// file nothing could restore, survives awk's system()), while a
// known-safe command still runs unasked.
func TestClassifySandboxAsksEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	home, base := t.TempDir(), notUnderTmp(t)
	cwd := filepath.Join(base, "cwd")
	files := map[string]string{".env": "SECRET=1\n", "notes.md": "notes\n", "d1/x": "x\n", "d2/x": "x\n", "d6/x": "x\n"}
	for name, body := range files {
		p := filepath.Join(cwd, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmds := []string{
		`awk 'BEGIN{system("rm -f .env")}'`,
		`env -S "rm -rf d1"`,
		`bash <<< "rm -rf d2"`,
		`eval "$(echo rm -rf d6)"`,
		`find . -name notes.md -fprint notes.md`,
		`sort -o notes.md notes.md`,
	}
	srv := pt.New(t)
	for _, c := range cmds {
		args, _ := json.Marshal(map[string]string{"command": c})
		srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: string(args)}))
	}
	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"cat notes.md | wc -l"}`}))
	srv.Push(pt.Text("done"))
	r := talaria(t, home, cwd, srv, "", "-p", "classify", "--sandbox", "workspace-write")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(t, srv)
	if len(res) != len(cmds)+1 {
		t.Fatalf("%d results for %d calls: %q", len(res), len(cmds)+1, res)
	}
	for i, c := range cmds {
		if !strings.Contains(res[i], "needs the user's approval") {
			t.Errorf("%s ran unasked: %q", c, res[i])
		}
	}
	if last := res[len(cmds)]; !strings.Contains(last, "1") || strings.Contains(last, "approval") {
		t.Errorf("the known-safe command did not run unasked: %q", last)
	}
	for name, body := range files {
		if b, err := os.ReadFile(filepath.Join(cwd, name)); err != nil || string(b) != body {
			t.Errorf("%s changed: %q %v", name, b, err)
		}
	}
}
