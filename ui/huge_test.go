package ui

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"talaria/loop"
	"talaria/providers"
)

// numberedLines is text of n bytes or more: "line 0", "line 1", … each
// with some prose, so any part of it can be found by its number.
func numberedLines(n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "line %d of the generated report, with a few words to wrap\n", i)
	}
	return sb.String()
}

// streamAll sends text as deltas of size d, each followed by a frame.
func (h *harness) streamAll(text string, d int) {
	for off := 0; off < len(text); off += d {
		h.events(&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: text[off:min(len(text), off+d)]})
		h.send(frameMsg{})
	}
}

// TestHugeAnswerMarkerAndPager: an answer past its cap shows only its latest part
// while streaming, its head with a marker once complete, and the pager
// (ctrl+t) has a line from the part the transcript hides.
func TestHugeAnswerMarkerAndPager(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "write the report"))
	text := numberedLines(256 << 10)
	h.streamAll(text[:1], 1)
	h.m.live.stream.capBytes = 64 << 10 // the cap at work without megabytes to render
	h.streamAll(text[1:], 16<<10)

	a := h.m.tr.entries[len(h.m.tr.entries)-1].it.(*assistantItem)
	shown := plain(strings.Join(a.render(testCtx(80)), "\n"))
	contains(t, shown, "earlier — ctrl+t opens the pager")
	last := strings.TrimSpace(text[strings.LastIndexByte(text[:len(text)-1], '\n'):])
	if !strings.Contains(strings.Join(strings.Fields(shown), " "), last) {
		t.Errorf("the streaming answer does not show its latest line %q", last)
	}
	if strings.Contains(shown, "line 0 of") {
		t.Error("the streaming answer still shows its first line")
	}
	if n := strings.Count(shown, "\n"); n > 3000 {
		t.Errorf("a streaming answer keeps %d lines on screen", n)
	}

	h.events(&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: text})
	scr := h.screen()
	contains(t, scr, "KiB more — ctrl+t opens the pager")
	if !strings.Contains(plain(strings.Join(a.render(testCtx(80)), "\n")), "line 0 of") {
		t.Error("the completed answer does not start with its head")
	}
	hidden := "line 1500 of" // past the first 64 KiB
	if strings.Contains(plain(strings.Join(a.render(testCtx(80)), "\n")), hidden) {
		t.Fatalf("%q should be past the cap", hidden)
	}

	h.key("ctrl+t")
	h.key("/")
	h.typeText(hidden)
	h.key("enter")
	contains(t, h.screen(), hidden, "pager")
}

// TestHugeStreamBoundedWork: an answer that is one endless code block
// (no stable boundary ever) is cut into pieces, so the text handed to
// glamour per frame stays bounded instead of growing with the answer.
func TestHugeStreamBoundedWork(t *testing.T) {
	rc := testCtx(100)
	a := &assistantItem{streaming: true}
	text := hugeText(2<<20, true)
	const d = 16 << 10
	frames := 0
	for off := 0; off < len(text); off += d {
		a.write(text[off:min(len(text), off+d)])
		a.flush()
		_ = a.render(rc)
		frames++
	}
	if limit := frames * (d + 2*pieceCap); rc.md.bytes > limit {
		t.Errorf("%d frames of a %d-byte code block rendered %d bytes (more than %d)", frames, len(text), rc.md.bytes, limit)
	}
	got := plain(strings.Join(a.render(rc), "\n"))
	contains(t, got, "earlier — ctrl+t opens the pager")
	if strings.Contains(got, "```") {
		t.Errorf("a cut code block shows its fence as text")
	}
	if strings.Contains(got, "x0 := parse") {
		t.Error("the first line is still rendered")
	}
	lastLine := text[strings.LastIndexByte(text[:len(text)-1], '\n')+1:]
	if !strings.Contains(got, strings.TrimSpace(lastLine)[:20]) {
		t.Errorf("the latest line %q is not shown", lastLine)
	}
}

// TestHugeResumedMessage: a resumed session holding a 5 MiB answer and a
// 5 MiB reasoning block renders only the heads, with the marker.
func TestHugeResumedMessage(t *testing.T) {
	text := numberedLines(5 << 20)
	h := newHarness(t, func(o *Options) {
		o.History = []providers.Message{
			{Role: providers.RoleUser, Content: "write it"},
			{Role: providers.RoleAssistant, Content: text, Reasoning: numberedLines(5 << 20)},
		}
	})
	contains(t, h.screen(), "MiB more — ctrl+t opens the pager")
	if n := h.m.look.md.bytes; n > answerCap+2*messageCap {
		t.Errorf("the first frame rendered %d bytes of markdown", n)
	}
	h.key("ctrl+o") // reasoning shown: capped too
	r := h.m.tr.entries[1].it.(*reasoningItem)
	shown := plain(strings.Join(r.render(&renderCtx{width: 80, st: testCtx(80).st, showReasoning: true}), "\n"))
	contains(t, shown, "MiB more — ctrl+t opens the pager", "line 0 of")
	if strings.Count(shown, "\n") > 3000 {
		t.Error("the reasoning block is not capped")
	}
}

// TestCutPointAndFences: forced cuts fall after a line break or a space
// where there is one and never inside a UTF-8 sequence; the fence state
// follows the fence lines crossed.
func TestCutPointAndFences(t *testing.T) {
	s := strings.Repeat("é", 100)
	for at := 1; at < len(s); at++ {
		if c := cutPoint(s, 0, at); c <= 0 || c > at+1 || !utf8.ValidString(s[:c]) {
			t.Fatalf("cutPoint(é…, 0, %d) = %d", at, c)
		}
	}
	if c := cutPoint("ab\ncd ef", 0, 7); c != 3 {
		t.Errorf("cut after the line break: %d", c)
	}
	if c := cutPoint("abcd efgh", 0, 8); c != 5 {
		t.Errorf("cut after the space: %d", c)
	}
	text := "intro\n```go\ncode\n```\nafter\n~~~\nmore"
	cases := []struct {
		start, end int
		open, want string
	}{
		{0, len("intro\n```go\ncode\n"), "", "```go\n"},
		{0, len("intro\n```go\ncode\n```\n"), "", ""},
		{len("intro\n```go\n"), len("intro\n```go\ncode\n```\nafter\n"), "```go\n", ""},
		{0, len(text), "", "~~~\n"},
		{2, 5, "```go\n", "```go\n"}, // mid-line: no fence line starts here
	}
	for _, c := range cases {
		if got := fenceAfter(text, c.start, c.end, c.open); got != c.want {
			t.Errorf("fenceAfter(%q, %q) = %q, want %q", text[c.start:c.end], c.open, got, c.want)
		}
	}
}

// TestStreamTextSetKeepsString: a stored message is kept, not copied,
// and writing after set continues from it.
func TestStreamTextSetKeepsString(t *testing.T) {
	var s streamText
	s.set("stored")
	if s.buf.Len() != 0 || s.text() != "stored" {
		t.Fatalf("set copied or lost the text: %q", s.text())
	}
	s.write(" more")
	s.flush()
	if s.text() != "stored more" {
		t.Errorf("write after set: %q", s.text())
	}
}

// TestWordCountIncremental: counting as the text grows gives what
// strings.Fields gives for the whole text.
func TestWordCountIncremental(t *testing.T) {
	var c wordCount
	text := ""
	for _, part := range []string{"one tw", "o  three\n", "\tfour", "", " five"} {
		text += part
		c.count(text, 0)
	}
	if got, want := c.count(text, 0), len(strings.Fields(text)); got != want {
		t.Errorf("words = %d, want %d", got, want)
	}
	if got := c.count("a b", 1); got != 2 {
		t.Errorf("a new epoch recounts: %d", got)
	}
}

// TestContainsFoldASCII: the pager's case-insensitive search without
// copies agrees with lowering the line.
func TestContainsFoldASCII(t *testing.T) {
	for _, c := range []struct {
		l, q string
		want bool
	}{
		{"Paragraph 12: FIX it", "fix it", true},
		{"Paragraph 12", "paragraph 12", true},
		{"Paragraph 1", "paragraph 12", false},
		{"aaab", "aab", true},
		{"", "a", false},
		{"abc", "", true},
	} {
		if got := containsFoldASCII(c.l, c.q); got != c.want || got != strings.Contains(strings.ToLower(c.l), c.q) {
			t.Errorf("containsFoldASCII(%q, %q) = %v", c.l, c.q, got)
		}
	}
}

// TestHugeStreamKeepsReaderPlace: a reader scrolled up into a streaming
// answer past the cap keeps reading the same lines while its oldest part
// is dropped from the top.
func TestHugeStreamKeepsReaderPlace(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"))
	var sb strings.Builder
	for i := 0; sb.Len() < 400<<10; i++ {
		fmt.Fprintf(&sb, "Paragraph %d of the answer.\n\n", i)
	}
	text := sb.String()
	h.streamAll(text[:1], 1)
	h.m.live.stream.capBytes = 64 << 10 // the cap at work without megabytes to render
	h.streamAll(text[1:200<<10], 8<<10)
	for range 3 {
		h.key("pgup")
	}
	firstPara := func() string {
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.Contains(l, "Paragraph") {
				return l
			}
		}
		return ""
	}
	top := firstPara()
	if top == "" {
		t.Fatalf("not scrolled into the answer: %q", top)
	}
	a := h.m.tr.entries[len(h.m.tr.entries)-1].it.(*assistantItem)
	shift := a.topShift()
	h.streamAll(text[200<<10:240<<10], 8<<10)
	if a.topShift() <= shift {
		t.Fatal("streaming past the cap dropped nothing from the top")
	}
	if got := firstPara(); got != top {
		t.Errorf("the reader's place moved: %q, was %q", got, top)
	}
}
