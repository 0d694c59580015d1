package e2e_test

import (
	"os/exec"
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
	if strings.Contains(back, "early question") {
		t.Fatalf("the earlier turn was printed too:\n%s", back)
	}
}
