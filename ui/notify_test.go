package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/tools"
)

// finishAfter plays a turn that ran for d and answered answer; it
// returns what the turn's end produced.
func finishAfter(h *harness, n int, d time.Duration, answer string) []tea.Msg {
	h.events(turnStarted(n, "go"))
	return h.events(&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, n, d), ExitReason: loop.ExitTextResponse("stop"), Completed: true, FinalResponse: answer})
}

// TestNotifyLongTurnWhenUnfocused: a turn that ran past min_seconds
// while the terminal reported it lost focus sends OSC 9, OSC 777 and
// BEL; a short one, or one while focused, sends nothing.
func TestNotifyLongTurnWhenUnfocused(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Notify = NotifyOptions{Mode: NotifyUnfocused, MinSeconds: 10} })
	if !h.m.View().ReportFocus {
		t.Fatal("focus reporting (DECSET 1004) not asked for")
	}
	h.send(tea.BlurMsg{})
	if got := rawOut(finishAfter(h, 1, 3*time.Second, "short")); got != "" {
		t.Errorf("a 3 s turn notified: %q", got)
	}
	got := rawOut(finishAfter(h, 2, 12*time.Second, "All done; tests pass"))
	// OSC 777 separates its fields with ";": the text's own become ",".
	if want := "\x1b]9;All done, tests pass\x07\x1b]777;notify;talaria;All done, tests pass\x07\a"; got != want {
		t.Errorf("notified %q, want %q", got, want)
	}
	h.send(tea.FocusMsg{})
	if got := rawOut(finishAfter(h, 3, 12*time.Second, "x")); got != "" {
		t.Errorf("notified while focused: %q", got)
	}
}

// TestNotifyWithoutFocusReports: a terminal that never reports focus is
// taken as unfocused; mode never and a when list without the occasion
// send nothing.
func TestNotifyWithoutFocusReports(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Notify = NotifyOptions{MinSeconds: 0} })
	if got := rawOut(finishAfter(h, 1, time.Second, "ok")); !strings.HasPrefix(got, "\x1b]9;ok\x07") {
		t.Errorf("no notification without focus reports: %q", got)
	}
	h = newHarness(t, func(o *Options) { o.Notify = NotifyOptions{Mode: NotifyNever} })
	if got := rawOut(finishAfter(h, 1, time.Minute, "ok")); got != "" || h.m.View().ReportFocus {
		t.Errorf("mode never notified: %q", got)
	}
	h = newHarness(t, func(o *Options) { o.Notify = NotifyOptions{When: []string{NotifyApproval}} })
	if got := rawOut(finishAfter(h, 1, time.Minute, "ok")); got != "" {
		t.Errorf("when [approval] notified a turn end: %q", got)
	}
}

// TestNotifyThroughTmux: inside tmux each OSC goes through the
// passthrough DCS with its ESCs doubled; BEL stays plain.
func TestNotifyThroughTmux(t *testing.T) {
	got := termEnv{tmux: true}.notifyEscapes("hi")
	want := "\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\" + "\x1bPtmux;\x1b\x1b]777;notify;talaria;hi\x07\x1b\\" + "\a"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestNotifyApprovalAndCommand: an approval waiting notifies, and the
// notify command gets one JSON argument {type, session_id, cwd,
// last_message}.
func TestNotifyApprovalAndCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "arg")
	script := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(o *Options) { o.Notify = NotifyOptions{Command: []string{script}} })
	req := &dialogRequest{kind: dialogApproval, approval: tools.ApprovalRequest{Tool: "terminal", Summary: "Run: make test"}}
	msgs := execCmdWait(h.m.notifyDialog(req), 5*time.Second)
	if got := rawOut(msgs); !strings.HasPrefix(got, "\x1b]9;approve Run: make test?\x07") {
		t.Errorf("approval notified %q", got)
	}
	h.feed(msgs)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]string
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if p["type"] != "approval" || p["session_id"] != "0a1b2c3d4e5f" || p["cwd"] != "/work/repo" || p["last_message"] != "approve Run: make test?" {
		t.Errorf("payload %v", p)
	}
	if h.m.focus.running != 0 {
		t.Errorf("%d notify commands still counted as running", h.m.focus.running)
	}
}
