package ui

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
)

// rawOut joins the raw escapes among msgs.
func rawOut(msgs []tea.Msg) string {
	var b strings.Builder
	for _, m := range msgs {
		if r, ok := m.(tea.RawMsg); ok {
			b.WriteString(r.Msg.(string))
		}
	}
	return b.String()
}

// feed sends msgs back through Update (the results of commands).
func (h *harness) feed(msgs []tea.Msg) {
	for _, m := range msgs {
		if _, ok := m.(tea.RawMsg); !ok {
			h.send(m)
		}
	}
}

func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}

// TestCopyCommandOSC52: /copy writes the last answer's text as OSC 52
// and says so; /copy 2 the one before; a bad N is refused.
func TestCopyCommandOSC52(t *testing.T) {
	h := newHarness(t)
	h.command("/copy")
	contains(t, h.screen(), "nothing to copy yet")
	h.events(turnStarted(1, "x"), &loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "the first answer"})
	h.events(turnStarted(2, "y"), &loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 2, 0), Content: "the answer"})
	h.typeText("/copy")
	msgs := h.key("enter")
	if got := rawOut(msgs); got != osc52("the answer") {
		t.Errorf("/copy wrote %q, want %q", got, osc52("the answer"))
	}
	h.feed(msgs)
	contains(t, h.screen(), "copied the last answer (10 characters) · OSC 52")
	h.typeText("/copy 2")
	if got := rawOut(h.key("enter")); got != osc52("the first answer") {
		t.Errorf("/copy 2 wrote %q", got)
	}
	h.typeText("/copy 3")
	h.key("enter")
	contains(t, h.screen(), "/copy 3: there are 2 answers")
}

// TestOSC52ThroughTmux: inside tmux the sequence is also sent wrapped in
// tmux's passthrough DCS with every ESC doubled; inside screen, in a DCS.
func TestOSC52ThroughTmux(t *testing.T) {
	seq := osc52("hi")
	tm := termEnv{tmux: true}.osc52("hi")
	want := seq + "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\"
	if tm != want {
		t.Errorf("tmux: %q, want %q", tm, want)
	}
	if sc := (termEnv{screen: true}).osc52("hi"); sc != seq+"\x1bP"+seq+"\x1b\\" {
		t.Errorf("screen: %q", sc)
	}
}

// TestCopyRunsClipboardProgram: a clipboard program found on PATH gets
// the text on stdin, and the notice names it.
func TestCopyRunsClipboardProgram(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	prog := filepath.Join(dir, "xclip")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ncat > "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.m.term = termEnv{display: true, lookPath: func(name string) (string, error) {
		if name == "xclip" {
			return prog, nil
		}
		return noProgram(name)
	}}
	h.events(turnStarted(1, "x"), &loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "copy me"})
	h.typeText("/copy")
	msgs := execCmdWait(func() tea.Msg { _, c := h.m.Update(keyMsg("enter")); return c() }, clipboardTimeout+time.Second)
	h.feed(msgs)
	data, err := os.ReadFile(out)
	if err != nil || string(data) != "copy me" {
		t.Fatalf("xclip got %q, %v", data, err)
	}
	contains(t, h.screen(), "· OSC 52 + xclip")
}
