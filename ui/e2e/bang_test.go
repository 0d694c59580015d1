package e2e_test

import (
	"os/exec"
	"strings"
	"testing"

	pt "talaria/providers/providertest"
)

// resize sets the pane's size.
func (s *screen) resize(w, h string) {
	s.t.Helper()
	if out, err := exec.Command("tmux", "resize-window", "-t", s.name, "-x", w, "-y", h).CombinedOutput(); err != nil {
		s.t.Fatalf("resize: %v %s", err, out)
	}
}

// TestBangRunsWithoutApprovalLive: in approvals mode ask, !cmd runs at
// once (no "Allow terminal?"), its lane shows the output while it runs,
// and the next message carries command and output to the model.
func TestBangRunsWithoutApprovalLive(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildBinary(t)
	srv := pt.New(t)
	s := start(t, bin, srv)
	s.resize("60", "20")
	s.keys("-l", "!echo first-step; sleep 2; echo second-step")
	s.keys("Enter")
	s.waitFor("│ first-step")
	if strings.Contains(s.capture(), "Allow") {
		t.Fatalf("the user's own command asked for approval:\n%s", s.capture())
	}
	t.Logf("running, at 60x20:\n%s", s.capture())
	s.waitFor("second-step")
	s.waitFor("goes to the model with your next message")
	t.Logf("done, at 60x20:\n%s", s.capture())
	srv.Push(pt.Text("Seen the output."))
	s.typeLine("what did it print?")
	s.waitFor("Seen the output.")
	raw := srv.RawRequests()
	if last := raw[len(raw)-1]; !strings.Contains(last, "first-step") || !strings.Contains(last, `\u003cshell command=`) && !strings.Contains(last, "<shell command=") {
		t.Fatalf("the output did not reach the model:\n%s", last)
	}
}
