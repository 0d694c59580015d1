package ui

import (
	"fmt"
	"strings"
	"testing"

	"talaria/themes"
)

// lineItem is a test item of fixed lines.
type lineItem struct {
	lines   []string
	renders int
	isLive  bool
}

func (l *lineItem) version() int { return 0 }
func (l *lineItem) live() bool   { return l.isLive }
func (l *lineItem) render(*renderCtx) []string {
	l.renders++
	return append([]string(nil), l.lines...)
}

func testCtx(width int) *renderCtx {
	st := themes.Plain().Styles()
	return &renderCtx{width: width, st: &st, md: newMarkdown(themes.Plain().Glamour())}
}

// numbered builds a transcript of n items of 3 lines each ("i.0".."i.2").
func numbered(n int) (*transcript, []*lineItem) {
	tr := newTranscript()
	items := make([]*lineItem, n)
	for i := range items {
		items[i] = &lineItem{lines: []string{fmt.Sprintf("%d.0", i), fmt.Sprintf("%d.1", i), fmt.Sprintf("%d.2", i)}}
		tr.push(items[i])
	}
	return tr, items
}

func TestTranscriptFollowsBottom(t *testing.T) {
	tr, _ := numbered(10)
	tr.setSize(20, 5)
	tr.refresh(testCtx(20))
	want := "8.1\n8.2\n\n9.0\n9.1\n9.2"
	if !strings.HasSuffix(want, tr.view) || strings.Count(tr.view, "\n") != 4 {
		t.Errorf("view = %q, want the last five lines of %q", tr.view, want)
	}
}

func TestTranscriptShortContentTopAligned(t *testing.T) {
	tr, _ := numbered(1)
	tr.setSize(20, 5)
	tr.refresh(testCtx(20))
	if tr.view != "0.0\n0.1\n0.2\n\n" {
		t.Errorf("view = %q", tr.view)
	}
}

func TestTranscriptScrollAndResume(t *testing.T) {
	tr, _ := numbered(10)
	rc := testCtx(20)
	tr.setSize(20, 4)
	tr.refresh(rc)
	tr.scrollUp(4, rc)
	tr.refresh(rc)
	if tr.follow || tr.view != "\n8.0\n8.1\n8.2" {
		t.Errorf("after scrolling up 4: follow=%v view=%q", tr.follow, tr.view)
	}
	tr.push(&lineItem{lines: []string{"new"}})
	tr.refresh(rc)
	if tr.view != "\n8.0\n8.1\n8.2" {
		t.Errorf("new output moved a scrolled-up window: %q", tr.view)
	}
	tr.scrollUp(1000, rc)
	tr.refresh(rc)
	if !strings.HasPrefix(tr.view, "0.0\n") {
		t.Errorf("scrolling to the top: %q", tr.view)
	}
	tr.scrollDown(1000, rc)
	tr.refresh(rc)
	if !tr.follow || !strings.HasSuffix(tr.view, "new") {
		t.Errorf("scrolling to the end did not follow again: %q", tr.view)
	}
}

func TestTranscriptResizeKeepsAnchor(t *testing.T) {
	tr, _ := numbered(50)
	rc := testCtx(20)
	tr.setSize(20, 6)
	tr.refresh(rc)
	tr.scrollUp(40, rc)
	tr.refresh(rc)
	first := strings.SplitN(tr.view, "\n", 2)[0]
	tr.setSize(30, 10)
	tr.refresh(testCtx(30))
	if got := strings.SplitN(tr.view, "\n", 2)[0]; got != first {
		t.Errorf("top line after resize = %q, want %q", got, first)
	}
}

func TestTranscriptRendersOnlyTheWindow(t *testing.T) {
	tr, items := numbered(1000)
	rc := testCtx(20)
	tr.setSize(20, 10)
	tr.refresh(rc)
	rendered := 0
	for _, it := range items {
		rendered += it.renders
	}
	if rendered > 4 {
		t.Errorf("rendered %d items to show 10 lines", rendered)
	}
	tr.refresh(rc)
	if items[999].renders != 1 {
		t.Errorf("cached item re-rendered: %d", items[999].renders)
	}
	tr.refresh(testCtx(25))
	if items[999].renders != 2 {
		t.Error("width change did not re-render")
	}
}

func TestTranscriptLiveItemsRedrawPerFrame(t *testing.T) {
	tr := newTranscript()
	it := &lineItem{lines: []string{"spin"}, isLive: true}
	tr.push(it)
	tr.setSize(20, 3)
	rc := testCtx(20)
	tr.refresh(rc)
	tr.refresh(rc)
	rc.frame++
	tr.refresh(rc)
	if it.renders != 2 || !tr.hasLive {
		t.Errorf("live item renders = %d (hasLive %v), want 2", it.renders, tr.hasLive)
	}
}

func TestTranscriptRemove(t *testing.T) {
	tr, items := numbered(3)
	tr.remove(items[1])
	tr.setSize(20, 10)
	tr.refresh(testCtx(20))
	if strings.Contains(tr.view, "1.0") || tr.len() != 2 {
		t.Errorf("removed item still shown: %q", tr.view)
	}
	tr.remove(items[1]) // no-op
	tr.reset()
	if tr.len() != 0 || !tr.follow {
		t.Error("reset")
	}
}

// TestTranscriptKeepsLinesNearTheWindow: scrolling a long transcript to
// its top renders what it passes, but afterwards only the entries near
// the window keep rendered lines (issue 31: every entry scrolled past kept
// its lines for the rest of the session); scrolling back down renders
// the dropped ones again, the same.
func TestTranscriptKeepsLinesNearTheWindow(t *testing.T) {
	const n = 2000
	tr, items := numbered(n)
	rc := testCtx(20)
	tr.setSize(20, 10)
	tr.refresh(rc)
	tr.scrollUp(5*n, rc)
	tr.refresh(rc)
	if !strings.HasPrefix(tr.view, "0.0\n0.1\n0.2\n") {
		t.Fatalf("the top of the transcript is not shown:\n%s", tr.view)
	}
	held := 0
	for _, e := range tr.entries {
		if e.lines != nil {
			held++
		}
	}
	if held > maxCachedEntries || len(tr.cached) != held {
		t.Fatalf("%d entries hold rendered lines after scrolling to the top (%d listed), want at most %d", held, len(tr.cached), maxCachedEntries)
	}
	if tr.entries[0].lines == nil || tr.entries[n-1].lines != nil {
		t.Fatal("the lines kept are not the ones near the window")
	}
	tr.scrollDown(5*n, rc)
	tr.refresh(rc)
	if !strings.HasSuffix(tr.view, "1999.2") || items[n-1].renders != 2 {
		t.Fatalf("back at the bottom: %q, last item rendered %d times", tr.view, items[n-1].renders)
	}
}
