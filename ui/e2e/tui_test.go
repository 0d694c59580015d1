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

// screen is one talaria TUI running in a tmux session.
type screen struct {
	t    *testing.T
	name string
	cwd  string
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "talaria")
	if out, err := exec.Command("go", "build", "-o", bin, "talaria").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func start(t *testing.T, bin string, srv *pt.Server) *screen {
	t.Helper()
	return startWith(t, bin, srv, "")
}

// startWith starts talaria with config as its config.yaml ("" for none).
func startWith(t *testing.T, bin string, srv *pt.Server, config string) *screen {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	if config != "" {
		if err := os.MkdirAll(filepath.Join(home, ".talaria"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".talaria", "config.yaml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	name := fmt.Sprintf("talaria-e2e-%d", time.Now().UnixNano())
	cmd := fmt.Sprintf("cd %s && env -i PATH=%q HOME=%s TERM=xterm-256color NO_COLOR=1 TALARIA_HOME=%s OPENAI_API_KEY=sk-test OPENAI_BASE_URL=%s %s; sleep 60",
		cwd, os.Getenv("PATH"), home, filepath.Join(home, ".talaria"), srv.URL(), bin)
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", "110", "-y", "32", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	s := &screen{t: t, name: name, cwd: cwd}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	s.waitFor("Ask anything")
	return s
}

func (s *screen) capture() string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", s.name).Output()
	return string(out)
}

// waitFor polls the screen until text appears (the bound only fails a hung
// test; nothing waits on a fixed sleep).
func (s *screen) waitFor(text string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(s.capture(), text) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("screen never showed %q:\n%s", text, s.capture())
}

// waitGone polls the screen until text is no longer on it.
func (s *screen) waitGone(text string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if !strings.Contains(s.capture(), text) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("screen still shows %q:\n%s", text, s.capture())
}

func (s *screen) keys(k ...string) {
	args := append([]string{"send-keys", "-t", s.name}, k...)
	if err := exec.Command("tmux", args...).Run(); err != nil {
		s.t.Fatal(err)
	}
}

func (s *screen) typeLine(text string) {
	s.keys("-l", text)
	s.keys("Enter")
}

func TestTUIEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	s := start(t, bin, srv)

	// A prompt and its streamed answer.
	srv.Push(pt.Text("Hello from the scripted server."))
	s.typeLine("say hello")
	s.waitFor("Hello from the scripted server.")

	// Steer a running turn: the steer reaches the next request.
	hold := make(chan struct{})
	srv.Push(
		pt.Reply{Chunks: pt.ToolCallChunks("tool_calls", pt.Call{Name: "search_files", Args: `{"pattern":"x"}`}), Hold: hold},
		pt.Text("Steered answer."),
	)
	s.typeLine("look around")
	waitRequest(t, srv, 2)
	s.typeLine("focus on the tests")
	s.waitFor("focus on the tests")
	// The pane says "after the next tool call" only once the agent's
	// steer.queued event says it took the steer (before that it reads
	// "sending…"), so releasing the reply now cannot outrun the steer.
	s.waitFor("after the next tool call")
	close(hold)
	s.waitFor("Steered answer.")
	raw := srv.RawRequests()
	if !strings.Contains(raw[len(raw)-1], "focus on the tests") {
		t.Fatalf("the steer did not reach the next request:\n%s", raw[len(raw)-1])
	}

	// A write asks first: the approval dialog, answered with y.
	srv.Push(pt.ToolCalls(pt.Call{Name: "write_file", Args: `{"path":"approved.txt","content":"yes"}`}), pt.Text("Written."))
	s.typeLine("write a file")
	s.waitFor("Allow write_file?")
	s.waitFor("enter confirm") // the key hints replace "…" once the dialog takes answers
	s.keys("y")
	s.waitFor("Written.")
	if data, err := os.ReadFile(filepath.Join(s.cwd, "approved.txt")); err != nil || string(data) != "yes" {
		t.Fatalf("approved write not on disk: %q %v", data, err)
	}

	// A multi-line paste through tmux (which sends CR between lines)
	// keeps its lines: the placeholder counts them and the model gets LF.
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("log line %d", i))
	}
	if out, err := exec.Command("tmux", "set-buffer", "-b", s.name, strings.Join(lines, "\n")).CombinedOutput(); err != nil {
		t.Fatalf("set-buffer: %v %s", err, out)
	}
	s.keys("-l", "explain: ")
	if out, err := exec.Command("tmux", "paste-buffer", "-p", "-d", "-b", s.name, "-t", s.name).CombinedOutput(); err != nil {
		t.Fatalf("paste-buffer: %v %s", err, out)
	}
	s.waitFor("[pasted 40 lines]")
	srv.Push(pt.Text("Pasted lines seen."))
	s.keys("Enter")
	s.waitFor("Pasted lines seen.")
	raw = srv.RawRequests()
	if last := raw[len(raw)-1]; !strings.Contains(last, `log line 1\nlog line 2\n`) || strings.Contains(last, `\r`) {
		t.Fatalf("the paste lost its line breaks:\n%s", last)
	}

	// Scrolled up, a sent message and its answer still show: the
	// screen jumps back to the bottom.
	var long []string
	for i := 1; i <= 80; i++ {
		long = append(long, fmt.Sprintf("answer row %d", i))
	}
	srv.Push(pt.Text(strings.Join(long, "\n\n")))
	s.typeLine("a long answer please")
	s.waitFor("answer row 80")
	s.keys("PPage")
	s.keys("PPage")
	s.waitGone("answer row 80")
	srv.Push(pt.Text("The bottom answer."))
	s.typeLine("and now a short one")
	s.waitFor("The bottom answer.")

	// Esc interrupts a turn whose model call hangs.
	never := make(chan struct{})
	defer close(never)
	srv.Push(pt.Reply{Chunks: pt.TextChunks("never finished", "stop"), Hold: never})
	s.typeLine("wait forever")
	waitRequest(t, srv, 9)
	s.keys("Escape")
	s.waitFor("interrupted")

	// Ctrl+D on the empty composer quits; the terminal then says how to
	// continue the session.
	s.waitFor("Ask anything")
	s.keys("C-d")
	s.waitFor("Resume this session with: talaria -r 20")
}

// waitRequest blocks until the server has received its n-th request.
func waitRequest(t *testing.T, srv *pt.Server, n int) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case got := <-srv.Started():
			if got >= n {
				return
			}
		case <-timeout:
			t.Fatalf("request %d never arrived", n)
		}
	}
}

// TestTUITypeahead: what is typed while talaria starts (the terminal
// still in line mode, Enter arriving as LF) is kept, in order, and the
// Enter sends it.
func TestTUITypeahead(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	srv.Push(pt.Text("Typeahead answered."))
	home, cwd := t.TempDir(), t.TempDir()
	name := fmt.Sprintf("talaria-e2e-ta-%d", time.Now().UnixNano())
	ready := filepath.Join(t.TempDir(), "typed")
	// The program starts only once the keys below are in the terminal.
	cmd := fmt.Sprintf("cd %s && while [ ! -e %s ]; do sleep 0.05; done; env -i PATH=%q HOME=%s TERM=xterm-256color NO_COLOR=1 TALARIA_HOME=%s OPENAI_API_KEY=sk-test OPENAI_BASE_URL=%s %s; sleep 60",
		cwd, ready, os.Getenv("PATH"), home, filepath.Join(home, ".talaria"), srv.URL(), bin)
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	s := &screen{t: t, name: name, cwd: cwd}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	s.keys("-l", "typed before start")
	s.keys("Enter")
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitFor("Typeahead answered.")
	if raw := srv.RawRequests(); len(raw) != 1 || !strings.Contains(raw[0], "typed before start") {
		t.Fatalf("requests: %q", raw)
	}
}
