package ui

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// savedInputs records what the screen hands to Commands.SaveInput.
type savedInputs struct {
	mu   sync.Mutex
	list []string
}

func (s *savedInputs) save(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, text)
	return nil
}

func (s *savedInputs) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.list...)
}

// TestDraftClearedGoesToHistory: Esc and Ctrl+C empty the composer but
// keep the draft: Up brings it back, and it is saved like a sent input.
func TestDraftClearedGoesToHistory(t *testing.T) {
	saved := &savedInputs{}
	h := newHarness(t, func(o *Options) { fake(o).OnSaveInput = saved.save })
	h.typeText("half a thought")
	h.key("esc")
	if v := h.m.comp.value(); v != "" {
		t.Fatalf("esc left %q", v)
	}
	h.typeText("another draft")
	h.key("ctrl+c")
	h.key("up")
	if v := h.m.comp.value(); v != "another draft" {
		t.Fatalf("up after ctrl+c = %q", v)
	}
	h.key("up")
	if v := h.m.comp.value(); v != "half a thought" {
		t.Fatalf("up after esc = %q", v)
	}
	if got := saved.got(); strings.Join(got, "|") != "half a thought|another draft" {
		t.Fatalf("saved %q", got)
	}
	wantCalls(t, h)
}

// TestInputHistorySurvivesRestart: the saved history is there on the
// first Up, and a sent message is saved for the next start.
func TestInputHistorySurvivesRestart(t *testing.T) {
	saved := &savedInputs{}
	h := newHarness(t, func(o *Options) {
		o.InputHistory = []string{"from yesterday", "from this morning"}
		fake(o).OnSaveInput = saved.save
	})
	h.key("up")
	if v := h.m.comp.value(); v != "from this morning" {
		t.Fatalf("first up = %q", v)
	}
	h.key("up")
	if v := h.m.comp.value(); v != "from yesterday" {
		t.Fatalf("second up = %q", v)
	}
	h.m.comp.setText("")
	h.typeText("today's question")
	h.key("enter")
	if got := saved.got(); len(got) != 1 || got[0] != "today's question" {
		t.Fatalf("saved %q", got)
	}
}

// TestCtrlDQuitsOnEmptyComposer: Ctrl+D quits only when there is nothing
// to lose; with text it deletes forward.
func TestCtrlDQuitsOnEmptyComposer(t *testing.T) {
	h := newHarness(t)
	h.typeText("ab")
	h.key("left")
	if hasQuit(h.key("ctrl+d")) || h.m.comp.value() != "a" {
		t.Fatalf("ctrl+d with text: %q", h.m.comp.value())
	}
	h.m.comp.setText("")
	if !hasQuit(h.key("ctrl+d")) {
		t.Fatal("ctrl+d on an empty composer did not quit")
	}
}

// TestCtrlRSearchesHistory: typing narrows to the newest match, Ctrl+R
// steps to older ones, Enter keeps the match to edit, Esc restores the
// draft.
func TestCtrlRSearchesHistory(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.InputHistory = []string{"fix the parser", "write the docs", "fix the tests"}
	})
	h.typeText("my draft")
	h.key("ctrl+r")
	h.typeText("fix")
	if v := h.m.comp.value(); v != "fix the tests" {
		t.Fatalf("search fix = %q", v)
	}
	contains(t, h.screen(), "reverse search: fix")
	h.key("ctrl+r")
	if v := h.m.comp.value(); v != "fix the parser" {
		t.Fatalf("older match = %q", v)
	}
	h.key("esc")
	if v := h.m.comp.value(); v != "my draft" || h.m.comp.search.active {
		t.Fatalf("esc = %q", v)
	}
	h.key("ctrl+r")
	h.typeText("docs")
	h.key("enter")
	if v := h.m.comp.value(); v != "write the docs" || h.m.comp.search.active {
		t.Fatalf("enter kept %q", v)
	}
	wantCalls(t, h) // Enter in the search keeps the match; it does not send
	h.key("ctrl+r")
	h.typeText("zzz")
	contains(t, h.screen(), "no match")
}

// TestThemeNameCompletes: "/theme " offers the theme names.
func TestThemeNameCompletes(t *testing.T) {
	h := newHarness(t)
	h.typeText("/theme l")
	contains(t, h.screen(), "light")
	h.key("tab")
	if v := h.m.comp.value(); v != "/theme light" {
		t.Fatalf("tab = %q", v)
	}
}

// TestAtPathCompletesAndAttaches: "@" lists the working directory's files
// (not the ignored ones); taking one attaches the file to the message,
// which the screen shows as typed.
func TestAtPathCompletesAndAttaches(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"main.go": "package main\n", "mainly.txt": "x", ".gitignore": "secret.txt\n", "secret.txt": "no"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, func(o *Options) { o.Cwd = dir })
	h.m.ses.cwd = dir
	h.typeText("explain ")
	h.settle(tea.KeyPressMsg{Code: '@', Text: "@"}) // lists the files in the background
	h.typeText("ma")
	s := h.screen()
	contains(t, s, "@main.go", "@mainly.txt")
	h.settle(keyMsg("tab"))
	if v := h.m.comp.value(); v != "explain @main.go " {
		t.Fatalf("tab = %q", v)
	}
	h.typeText("please")
	h.key("enter")
	calls := h.agent.got()
	if len(calls) != 1 || !strings.Contains(calls[0], "explain @main.go please\n\n<file path=\"main.go\">\npackage main\n</file>") {
		t.Fatalf("sent %q", calls)
	}
	if strings.Contains(h.screen(), "<file") {
		t.Fatal("the transcript shows the attachment instead of the message")
	}
	h.m.comp.setText("")
	h.typeText("@sec")
	if strings.Contains(h.screen(), "secret.txt") {
		t.Fatal("an ignored file was offered")
	}
}

// TestCtrlGEditsDraftInEditor: the draft goes to the editor and what it
// saved comes back as the draft.
func TestCtrlGEditsDraftInEditor(t *testing.T) {
	h := newHarness(t)
	h.typeText("rough draft")
	path, cmd, err := prepareEdit(h.m.comp.expanded(), `printf 'polished\r\ndraft\n' >`)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "rough draft" {
		t.Fatalf("the editor got %q", data)
	}
	h.settle(editDone(path)(cmd.Run()))
	if v := h.m.comp.value(); v != "polished\ndraft" {
		t.Fatalf("draft after the editor = %q", v)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("the temporary file was left behind")
	}
	// A failing editor keeps the draft.
	path, cmd, _ = prepareEdit("keep me", "false")
	h.m.comp.setText("keep me")
	h.settle(editDone(path)(cmd.Run()))
	if v := h.m.comp.value(); v != "keep me" {
		t.Fatalf("after a failed editor: %q", v)
	}
}

// TestTypeaheadEnterSends: an Enter typed before the terminal left line
// mode arrives as LF (Ctrl+J); right after the start it sends, as typed.
// Later, Ctrl+J is a newline again.
func TestTypeaheadEnterSends(t *testing.T) {
	h := newHarness(t)
	h.m.comp.born = h.clk.Now()
	h.typeText("typed early")
	h.key("ctrl+j")
	wantCalls(t, h, "run:typed early")
	h.endTurn(1, "")
	h.clk.advance(time.Second)
	h.typeText("a")
	h.key("ctrl+j")
	h.typeText("b")
	if v := h.m.comp.value(); v != "a\nb" {
		t.Fatalf("ctrl+j after the start = %q", v)
	}
}
