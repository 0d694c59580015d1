package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// TestCommandShellHeadless: a command's !`cmd` runs before the prompt is
// sent and its output replaces it: a known-safe command runs unasked,
// one an allow rule covers runs, any other is refused headless in ask
// mode with the reason in its place (nothing runs); $ARGUMENTS reaches
// the command; an @path file's own !`cmd` is inlined, never run.
func TestCommandShellHeadless(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{
		"notes.md": "inlined !`touch from-file` text\n",
	})
	writeConfig(t, home, "permissions:\n  allow: [\"Bash(touch made-one)\"]\n")
	cmdDir := filepath.Join(home, ".talaria", "commands")
	if err := os.MkdirAll(cmdDir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\ndescription: status\n---\nFiles: !`ls`\nMade: !`touch made-$0`\nRefused: !`touch pwned`\nSee @notes.md\n"
	if err := os.WriteFile(filepath.Join(cmdDir, "st.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := pt.New(t)
	srv.Push(pt.Text("ok"))
	r := talaria(t, home, cwd, srv, "", "-p", "/st one")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := lastUser(t, srv.Requests()[0])
	for _, want := range []string{"Files: notes.md", "Made: \n", "Refused: [!`touch pwned` not run:", "needs the user's approval", "inlined !`touch from-file` text"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(cwd, "made-one")); err != nil {
		t.Errorf("the allowed command did not run with $0: %v", err)
	}
	for _, f := range []string{"pwned", "from-file"} {
		if _, err := os.Stat(filepath.Join(cwd, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
}

// TestCommandShellProjectTrust: a project's command runs its !`cmd` only
// once the folder is trusted.
func TestCommandShellProjectTrust(t *testing.T) {
	home := t.TempDir()
	cwd := extProject(t, map[string]string{
		".claude/commands/hi.md": "Say: !`echo hello-from-shell`\n",
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Say: [!`echo hello-from-shell` not run: a project's command runs shell commands only once the folder is trusted"},
		{[]string{"--trust"}, "Say: hello-from-shell"},
	} {
		srv := pt.New(t)
		srv.Push(pt.Text("ok"))
		r := talaria(t, home, cwd, srv, "", append([]string{"-p", "/hi"}, tc.args...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if got := lastUser(t, srv.Requests()[0]); !strings.Contains(got, tc.want) {
			t.Errorf("%v: prompt %q lacks %q", tc.args, got, tc.want)
		}
	}
}
