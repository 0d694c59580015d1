package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// hugeText is n bytes of an answer: markdown paragraphs, or with code
// one code block that never closes (no stable boundary at all, the worst
// case for the streaming renderer).
func hugeText(n int, code bool) string {
	var sb strings.Builder
	if code {
		sb.WriteString("```go\n")
	}
	for i := 0; sb.Len() < n; i++ {
		if code {
			fmt.Fprintf(&sb, "x%d := parse(input[%d:]) // line %d of the generated table\n", i, i, i)
		} else {
			sb.WriteString(benchParagraph(i))
		}
	}
	return sb.String()[:n]
}

// BenchmarkHugeStreamingFrame measures one streaming frame (a delta, the
// frame tick that renders it, and View) once the answer has reached 1 MiB
// and 8 MiB (agent.max_response_bytes): the cost must be flat, not grow
// with the answer. "code" streams one endless code block.
func BenchmarkHugeStreamingFrame(b *testing.B) {
	for _, code := range []bool{false, true} {
		for _, size := range []int{1 << 20, 8 << 20} {
			b.Run(fmt.Sprintf("code=%v/answer=%dMiB", code, size>>20), func(b *testing.B) {
				h := newHarness(b)
				h.size(120, 40)
				h.m.Update(eventsMsg{closed: true, evs: []loop.Event{turnStarted(1, "go")}})
				text := hugeText(size, code)
				for off := 0; off < len(text); off += 256 << 10 {
					h.m.Update(eventsMsg{closed: true, evs: []loop.Event{&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: text[off:min(len(text), off+256<<10)]}}})
					h.m.Update(frameMsg{})
				}
				more := hugeText(64<<10, code)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					d := more[(i*512)%len(more):][:512]
					h.m.Update(eventsMsg{closed: true, evs: []loop.Event{&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: d}}})
					h.clk.advance(100 * time.Millisecond)
					h.m.Update(frameMsg{})
					_ = h.m.View()
				}
			})
		}
	}
}

// BenchmarkHugeResumedFirstFrame is the first frame of a resumed session
// whose last answer is one 100 MB message (older sessions, before
// agent.max_response_bytes, may hold one): building the model from the
// history, the first size and View.
func BenchmarkHugeResumedFirstFrame(b *testing.B) {
	hist := []providers.Message{{Role: providers.RoleUser, Content: "write it all"}, {Role: providers.RoleAssistant, Content: hugeText(100<<20, false)}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		m := New(Options{Port: portOf(&fakeAgent{}), Provider: "openai", Model: "gpt-4.1", NoColor: true, MaxIterations: 90, History: hist})
		m.Update(teaSize(120, 40))
		_ = m.View()
		m.shutdown()
	}
}

// BenchmarkHugePager opens the pager (ctrl+t) on a session holding one
// 100 MB answer and pages down once.
func BenchmarkHugePager(b *testing.B) {
	hist := []providers.Message{{Role: providers.RoleUser, Content: "write it all"}, {Role: providers.RoleAssistant, Content: hugeText(100<<20, false)}}
	h := newHarness(b, func(o *Options) { o.History = hist })
	h.size(120, 40)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		h.m.Update(keyMsg("ctrl+t"))
		h.m.Update(keyMsg("pgup"))
		_ = h.m.View()
		h.m.Update(keyMsg("q"))
	}
}

// BenchmarkHugeKeystroke measures a typed character (Update+View) while
// an 8 MiB answer is streaming: the transcript is not redrawn for it.
func BenchmarkHugeKeystroke(b *testing.B) {
	h := newHarness(b)
	h.size(120, 40)
	h.m.Update(eventsMsg{closed: true, evs: []loop.Event{turnStarted(1, "go")}})
	text := hugeText(8<<20, true)
	for off := 0; off < len(text); off += 256 << 10 {
		h.m.Update(eventsMsg{closed: true, evs: []loop.Event{&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: text[off:min(len(text), off+256<<10)]}}})
		h.m.Update(frameMsg{})
	}
	typeKeys(b, h)
}

// BenchmarkHugeCompletedRender is the one-off cost when an 8 MiB answer
// completes (or the screen is resized with it in view): its first
// messageCap bytes are rendered whole.
func BenchmarkHugeCompletedRender(b *testing.B) {
	rc := testCtx(118)
	text := hugeText(8<<20, false)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a := &assistantItem{}
		a.set(text)
		_ = a.render(rc)
	}
}

// BenchmarkHugeReasoningFrame is one frame of an 8 MiB reasoning block
// streaming while shown (ctrl+o): its last messageCap bytes are wrapped.
func BenchmarkHugeReasoningFrame(b *testing.B) {
	rc := testCtx(118)
	rc.showReasoning = true
	r := &reasoningItem{streaming: true}
	r.write(hugeText(8<<20, false))
	more := hugeText(64<<10, false)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.write(more[(i*512)%len(more):][:512])
		r.flush()
		_ = r.render(rc)
	}
}

// BenchmarkHugePagerSearch searches the pager over a 100 MB answer for a
// line near its end.
func BenchmarkHugePagerSearch(b *testing.B) {
	hist := []providers.Message{{Role: providers.RoleUser, Content: "write it all"}, {Role: providers.RoleAssistant, Content: hugeText(100<<20, false)}}
	h := newHarness(b, func(o *Options) { o.History = hist })
	h.size(120, 40)
	h.m.Update(keyMsg("ctrl+t"))
	p := h.m.pager
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.query = "PARAGRAPH 700001:"
		p.search()
	}
	if len(p.matches) != 1 {
		b.Fatalf("%d matches", len(p.matches))
	}
}
