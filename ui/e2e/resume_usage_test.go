package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// usageReply answers text and reports in and out tokens.
func usageReply(text string, in, out int) pt.Reply {
	chunks := pt.TextChunks(text, "stop")
	chunks[len(chunks)-1] = fmt.Sprintf(`{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1727346168,"model":"test-model","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
	return pt.Reply{Chunks: chunks}
}

// TestResumedSessionShowsStoredUsage: a session continued with -c shows
// in its status line the tokens the store has (issue 24 defect 6: it
// showed ↑0 ↓0), and /undo of its last turn keeps them (the calls were
// paid for).
func TestResumedSessionShowsStoredUsage(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	home, cwd := t.TempDir(), t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TALARIA_HOME=" + filepath.Join(home, ".talaria"),
		"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.URL()}
	srv.Push(usageReply("The first answer.", 45_200, 1_300))
	first := exec.Command(bin, "-p", "first question")
	first.Dir, first.Env = cwd, env
	if out, err := first.CombinedOutput(); err != nil {
		t.Fatalf("headless turn: %v\n%s", err, out)
	}
	name := fmt.Sprintf("talaria-e2e-%d", time.Now().UnixNano())
	cmd := fmt.Sprintf("cd %s && env -i %s TERM=xterm-256color NO_COLOR=1 %s -c; sleep 60", cwd, strings.Join(quoteAll(env), " "), bin)
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", "110", "-y", "32", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	s := &screen{t: t, name: name, cwd: cwd}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	s.waitFor("The first answer.")
	s.waitFor("↑45.2k ↓1.3k")
	s.typeLine("/usage")
	s.waitFor("input 45.2k · output 1.3k")
	s.typeLine("/undo")
	s.waitFor("rewound")
	s.waitFor("↑45.2k ↓1.3k")
}

// quoteAll quotes each NAME=VALUE for the shell.
func quoteAll(env []string) []string {
	out := make([]string, len(env))
	for i, e := range env {
		out[i] = "'" + strings.ReplaceAll(e, "'", `'\''`) + "'"
	}
	return out
}
