package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"talaria/tools"
)

func TestGoldenApprovalDialog(t *testing.T) {
	for _, c := range []struct {
		name string
		req  tools.ApprovalRequest
	}{{"edit", patchReq}, {"destructive", rmReq}} {
		for _, w := range []int{80, 120} {
			t.Run(fmt.Sprintf("%s/%d", c.name, w), func(t *testing.T) {
				d := NewDialogs()
				h := newHarness(t, withDialogs(d))
				h.size(w, 24)
				approveAsync(callCtx(t), d, c.req)
				h.showNext(d)
				golden(t, h.m.View().Content)
			})
		}
	}
}

func TestGoldenClarifyDialog(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			d := NewDialogs()
			h := newHarness(t, withDialogs(d))
			h.size(w, 24)
			askAsync(callCtx(t), d, "Which database should the cache layer use? It must survive restarts.", "Postgres (already deployed)", "SQLite file next to the binary")
			h.showNext(d)
			h.key("down")
			golden(t, h.m.View().Content)
		})
	}
}

func TestDialogCursor(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	askAsync(callCtx(t), d, "Name?")
	h.showNext(d)
	h.typeText("ab")
	v := h.m.View()
	if v.Cursor == nil {
		t.Fatal("no cursor in the answer input")
	}
	lines := strings.Split(plain(v.Content), "\n")
	if got := lines[v.Cursor.Y]; !strings.HasPrefix(strings.TrimLeft(got, "│ "), "› ab") || v.Cursor.X != 6 {
		t.Errorf("cursor at %d,%d on %q", v.Cursor.X, v.Cursor.Y, got)
	}
	h.key("esc")
	approveAsync(callCtx(t), d, patchReq)
	h.showNext(d)
	if h.m.View().Cursor != nil {
		t.Error("cursor shown over the approval choices")
	}
}

func TestDialogFillsTheScreenExactly(t *testing.T) {
	long := tools.ApprovalRequest{Tool: "terminal", Destructive: true,
		Summary: "Run: " + strings.Repeat("find . -name '*.tmp' -delete && ", 8) + "echo done [destructive: find -delete]",
		Args:    `{"command":"x","workdir":"/tmp","env":{"A":"1"},"timeout":600,"script":"` + strings.Repeat(`line\n`, 20) + `"}`}
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {40, 12}, {30, 8}, {20, 5}} {
		d := NewDialogs()
		h := newHarness(t, withDialogs(d))
		h.size(sz[0], sz[1])
		approveAsync(callCtx(t), d, long)
		h.showNext(d)
		h.key("n")
		h.typeText(strings.Repeat("because ", 20))
		lines := strings.Split(h.m.View().Content, "\n")
		if len(lines) != sz[1] {
			t.Errorf("%dx%d: frame has %d lines", sz[0], sz[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > sz[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", sz[0], sz[1], i, w, ansi.Strip(l))
			}
		}
	}
}

func TestPreviewArgs(t *testing.T) {
	got := previewArgs("patch", patchReq.Args, "Edit: parser/parser.go")
	want := []string{"mode: replace", "new_string:", "  if t == comma && next != end {", "      return skip", "  }", "old_string: if t == comma {"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("previewArgs =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := previewArgs("terminal", `{"command":"make test"}`, "Run: make test"); len(got) != 0 {
		t.Errorf("command repeated: %q", got)
	}
	if got := previewArgs("x", "not json", "call x"); len(got) != 1 || got[0] != "not json" {
		t.Errorf("raw args: %q", got)
	}
}

func TestActivityLineWhileAsking(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.startBusy()
	contains(t, h.m.activityLine(), "esc to interrupt")
	approveAsync(callCtx(t), d, patchReq)
	h.showNext(d)
	line := plain(h.m.activityLine())
	contains(t, line, "waiting for your answer", "ctrl+c interrupts")
	if strings.Contains(line, "esc") {
		t.Errorf("activity line still offers esc: %q", line)
	}
	if got := h.m.View().WindowTitle; got != "talaria · waiting for you" {
		t.Errorf("window title %q", got)
	}
}
