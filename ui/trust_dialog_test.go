package ui

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// withTrust gives the screen a project waiting for trust; trusted counts
// the TrustProject calls, err is what they return.
func withTrust(req *TrustRequest, trusted *atomic.Int32, err error) func(*Options) {
	return func(o *Options) {
		fake(o).OnTrust = func() *TrustRequest { return req }
		fake(o).OnTrustProject = func() (string, error) {
			trusted.Add(1)
			return req.Root, err
		}
	}
}

var testTrust = &TrustRequest{
	Root: "/work/repo",
	Hooks: []TrustHook{
		{Event: "PreToolUse", Matcher: "Bash", Command: "./hooks/no-rm.sh", Path: "/work/repo/.claude/settings.json"},
		{Event: "Stop", Command: "make lint", Path: "/work/repo/.talaria/config.yaml"},
	},
	Rules: []TrustRule{{List: "allow", Rule: "Bash(npm test:*)", Path: "/work/repo/.talaria/config.yaml"}},
}

// openTrust runs the start-up check and shows its dialog, armed.
func (h *harness) openTrust() {
	h.t.Helper()
	msgs := execCmdWait(h.m.askTrust(), 5*time.Second)
	if len(msgs) != 1 {
		h.t.Fatalf("start-up trust check gave %v", msgs)
	}
	h.send(msgs[0])
	h.arm()
}

// TestTrustDialogTrusts: at start the dialog names the project's hooks
// (event, matcher, command, file) and rules; t trusts it once, through
// the wiring, and the notice says so.
func TestTrustDialogTrusts(t *testing.T) {
	var trusted atomic.Int32
	h := newHarness(t, withTrust(testTrust, &trusted, nil))
	h.size(100, 30)
	h.openTrust()
	contains(t, h.screen(), "Trust this project?", "/work/repo",
		"hook PreToolUse Bash: ./hooks/no-rm.sh", ".claude/settings.json",
		"hook Stop *: make lint", "allow Bash(npm test:*)", "1. Trust this folder", "(t)", "2. Not now", "(n)")
	h.settle(keyMsg("t"))
	if trusted.Load() != 1 {
		t.Fatalf("TrustProject ran %d times", trusted.Load())
	}
	if h.m.dialog() != nil {
		t.Fatal("the dialog stayed open")
	}
	contains(t, h.screen(), "trusted /work/repo", "apply from now on")
}

// TestTrustDialogNotNow: Esc and "not now" leave the project untrusted;
// a failure to record trust is shown.
func TestTrustDialogNotNow(t *testing.T) {
	var trusted atomic.Int32
	h := newHarness(t, withTrust(testTrust, &trusted, nil))
	h.openTrust()
	h.settle(keyMsg("esc"))
	h.openTrust()
	h.settle(keyMsg("n"))
	if trusted.Load() != 0 || h.m.dialog() != nil {
		t.Fatalf("trusted %d times, dialog %v", trusted.Load(), h.m.dialog())
	}

	var tries atomic.Int32
	h = newHarness(t, withTrust(testTrust, &tries, errors.New("config.yaml: the top level is not a mapping")))
	h.openTrust()
	h.settle(keyMsg("enter"))
	contains(t, h.screen(), "trust: config.yaml: the top level is not a mapping")
}

// TestTrustDialogNothingToTrust: without hooks or rules no dialog opens.
func TestTrustDialogNothingToTrust(t *testing.T) {
	var trusted atomic.Int32
	h := newHarness(t, withTrust(&TrustRequest{Root: "/work/repo"}, &trusted, nil))
	if msgs := execCmdWait(h.m.askTrust(), 5*time.Second); len(msgs) != 0 {
		t.Fatalf("a dialog for nothing: %v", msgs)
	}
}

// TestTrustDialogSmallScreen: at 60x20 with many items the dialog fits,
// counts what it cannot list and keeps its choices.
func TestTrustDialogSmallScreen(t *testing.T) {
	req := &TrustRequest{Root: "/work/a/very/long/project/folder/name/that/does/not/fit"}
	for i := 0; i < 20; i++ {
		req.Rules = append(req.Rules, TrustRule{List: "allow", Rule: "Bash(make target" + strings.Repeat("x", i) + ")", Path: "/p/.talaria/config.yaml"})
	}
	var trusted atomic.Int32
	h := newHarness(t, withTrust(req, &trusted, nil))
	h.size(60, 20)
	h.openTrust()
	s := h.screen()
	contains(t, s, "Trust this project?", "more (talaria extensions lists them)", "Trust this folder", "Not now")
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 60 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
}
