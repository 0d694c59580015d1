package e2e_test

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "talaria/providers/providertest"
)

// scrollback is the whole pane, history included, once the program has
// left the alternate screen.
func (s *screen) scrollback() string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-J", "-S", "-", "-t", s.name).Output()
	return string(out)
}

// TestExitLeavesLastTurnInScrollback: after quitting, the last turn (the
// question, the tool call's summary line and the answer) is on the normal
// screen above the resume hint, and the earlier turn is not.
func TestExitLeavesLastTurnInScrollback(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	s := start(t, bin, srv)

	srv.Push(pt.Text("An early answer."))
	s.typeLine("early question")
	s.waitFor("An early answer.")
	srv.Push(pt.ToolCalls(pt.Call{Name: "search_files", Args: `{"pattern":"needle"}`}), pt.Text("The final answer stays in the scrollback."))
	s.typeLine("final question")
	s.waitFor("The final answer stays")
	s.waitFor("Ask anything")
	s.keys("C-d")

	deadline := time.Now().Add(20 * time.Second)
	var back string
	for time.Now().Before(deadline) {
		if back = s.scrollback(); strings.Contains(back, "Resume this session with") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	q := strings.Index(back, "› final question")
	a := strings.Index(back, "The final answer stays in the scrollback.")
	tool := strings.Index(back, "search_files")
	hint := strings.Index(back, "Resume this session with")
	if q < 0 || a < q || tool < q || hint < a {
		t.Fatalf("the last turn is not in the scrollback before the hint:\n%s", back)
	}
	// The resume hint names the session by its title (its first message):
	// only the turn itself must not be there.
	if strings.Contains(back[:hint], "early question") {
		t.Fatalf("the earlier turn was printed too:\n%s", back)
	}
}

// record starts tmux's pipe-pane: everything the program writes to its
// terminal is appended to the returned file.
func (s *screen) record() string {
	s.t.Helper()
	path := filepath.Join(s.t.TempDir(), "pty.out")
	if out, err := exec.Command("tmux", "pipe-pane", "-O", "-t", s.name, "cat >> "+path).CombinedOutput(); err != nil {
		s.t.Fatalf("pipe-pane: %v %s", err, out)
	}
	return path
}

// waitBytes polls the recording until it holds want.
func waitBytes(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, _ := os.ReadFile(path); strings.Contains(string(data), want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	data, _ := os.ReadFile(path)
	t.Fatalf("the terminal never got %q; it got %d bytes", want, len(data))
}

// TestTerminalGetsOSC52AndNotification: through a real pty, /copy writes
// OSC 52 with the answer in base64, and a turn's end with notifications
// in mode always writes OSC 9, OSC 777 and BEL.
func TestTerminalGetsOSC52AndNotification(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	s := startWith(t, bin, srv, "notifications:\n  mode: always\n  min_seconds: 0\n")
	rec := s.record()
	srv.Push(pt.Text("Copy this answer."))
	s.typeLine("answer me")
	s.waitFor("Copy this answer.")
	waitBytes(t, rec, "\x1b]9;Copy this answer.\x07\x1b]777;notify;talaria;Copy this answer.\x07\a")
	s.typeLine("/copy")
	waitBytes(t, rec, "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte("Copy this answer."))+"\x07")
	s.waitFor("copied the last answer")
}
