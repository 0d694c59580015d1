package app_test

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"

	"talaria/loop"
	pt "talaria/providers/providertest"
)

// TestStdinSteersAreCappedLikeAPrompt: /steer lines on --stdin-commands
// whose joined text would pass the 4 MiB prompt cap are refused, each with
// a steer.refused event and a message on stderr, and the request that
// delivers the rest stays within the cap.
func TestStdinSteersAreCappedLikeAPrompt(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	srv := pt.New(t)
	hold := make(chan struct{})
	srv.Push(
		pt.Reply{Chunks: pt.ToolCallChunks("tool_calls", pt.Call{Name: "search_files", Args: `{"pattern":"x"}`}), Hold: hold},
		pt.Text("ok, steered"),
	)
	cmd := exec.Command(binary, "-p", "go", "--stdin-commands", "--json")
	cmd.Env = env(home, srv)
	cmd.Dir = cwd
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-srv.Started()
	const lines, size = 6, 900_000 // 5.4 MB in all: the fifth and sixth do not fit
	go func() {
		for i := range lines {
			_, _ = stdin.Write([]byte("/steer " + strings.Repeat(string(rune('a'+i)), size) + "\n"))
		}
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	queued, refused, delivered, released := 0, 0, false, false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, `"type":"steer.queued"`):
			queued++
		case strings.Contains(line, `"type":"steer.refused"`):
			refused++
			if !strings.Contains(line, `"limit_bytes":4194304`) {
				t.Errorf("steer.refused without the limit: %.300s", line)
			}
		case strings.Contains(line, `"type":"steer.delivered"`):
			delivered = true
		}
		if queued+refused == lines && !released {
			// Every line was judged before the held call returns.
			close(hold)
			released = true
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%.2000s", err, stderr.String())
	}
	if queued != 4 || refused != 2 || !delivered {
		t.Fatalf("%d queued, %d refused, delivered %v", queued, refused, delivered)
	}
	if n := strings.Count(stderr.String(), "steer refused"); n != 2 {
		t.Fatalf("%d refusals on stderr:\n%.2000s", n, stderr.String())
	}
	reqs := srv.RawRequests()
	if len(reqs) != 2 || len(reqs[1]) > loop.MaxPromptBytes+64<<10 || !strings.Contains(reqs[1], strings.Repeat("d", size)) {
		t.Fatalf("%d requests; the delivering one is %d bytes (cap %d)", len(reqs), len(reqs[len(reqs)-1]), loop.MaxPromptBytes)
	}
}
