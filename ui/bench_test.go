package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
	"talaria/themes"
)

// benchHistory builds n messages: user questions, markdown answers with
// code, and tool calls with results.
func benchHistory(n int) []providers.Message {
	msgs := make([]providers.Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("question %d: why does the parser fail on input %d?", i, i)})
		msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
			{ID: fmt.Sprint("c", i), Name: "read_file", Arguments: `{"path":"parser.go"}`}}})
		msgs = append(msgs, providers.Message{Role: providers.RoleTool, ToolCallID: fmt.Sprint("c", i), Content: "package parser\n\nfunc Parse() {}\n"})
		msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf(
			"## Answer %d\n\nThe parser **fails** because of a trailing comma.\n\n- first point\n- second point\n\n```go\nfunc fix%d() error { return nil }\n```\n", i, i)})
	}
	return msgs[:n]
}

// BenchmarkView measures one frame (View) with a short and a long
// transcript: it must not grow with the history.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{20, 2000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			h := newHarness(b, func(o *Options) { o.History = benchHistory(n) })
			h.size(120, 50)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_ = h.m.View()
			}
		})
	}
}

// BenchmarkKeystroke measures Update+View for one typed character with a
// short and a long transcript.
func BenchmarkKeystroke(b *testing.B) {
	for _, n := range []int{20, 2000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			h := newHarness(b, func(o *Options) { o.History = benchHistory(n) })
			h.size(120, 50)
			typeKeys(b, h)
		})
	}
}

// typeKeys measures one keystroke and the frame after it, clearing the
// composer every 200 keys.
func typeKeys(b *testing.B, h *harness) {
	k := keyMsg("x")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		h.m.Update(k)
		_ = h.m.View()
		if i%200 == 199 {
			h.m.comp.clear()
		}
	}
}

// BenchmarkStreamingFrame measures the cost per streamed delta at 200
// tokens/s: each delta is one Update (one event batch) plus a View, and
// every 20th delta (100 ms) a frame tick flushes and re-renders the
// streaming answer. Reported per delta, on top of a 2,000-message history.
func BenchmarkStreamingFrame(b *testing.B) {
	for _, n := range []int{20, 2000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			h := newHarness(b, func(o *Options) { o.History = benchHistory(n) })
			h.size(120, 50)
			h.m.Update(eventsMsg{closed: true, evs: []loop.Event{turnStarted(1, "go")}})
			words := strings.Fields("The parser fails because the trailing comma is consumed twice; **fix** it in `skip` and add a test.\n\n")
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2000 == 1999 { // start a new answer now and then so it stays realistic in size
					h.m.Update(eventsMsg{closed: true, evs: []loop.Event{
						&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "done"}}})
				}
				ev := &loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: words[i%len(words)] + " "}
				if i%40 == 39 {
					ev.Text += "\n\n"
				}
				h.m.Update(eventsMsg{closed: true, evs: []loop.Event{ev}})
				if i%20 == 19 {
					h.clk.advance(100 * time.Millisecond)
					h.m.Update(frameMsg{})
				}
				_ = h.m.View()
			}
		})
	}
}

// BenchmarkResize measures a resize with a long transcript (only the
// visible window is re-rendered).
func BenchmarkResize(b *testing.B) {
	h := newHarness(b, func(o *Options) { o.History = benchHistory(2000) })
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		h.m.Update(teaSize(100+i%40, 50))
		_ = h.m.View()
	}
}

func teaSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// BenchmarkDelta measures one streamed delta alone (Update+View, no frame
// tick): the part that runs at the token rate.
func BenchmarkDelta(b *testing.B) {
	h := newHarness(b, func(o *Options) { o.History = benchHistory(2000) })
	h.size(120, 50)
	h.m.Update(eventsMsg{closed: true, evs: []loop.Event{turnStarted(1, "go")}})
	ev := []loop.Event{&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: "token "}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		h.m.Update(eventsMsg{closed: true, evs: ev})
		_ = h.m.View()
		if i%5000 == 4999 {
			h.m.live.stream.buf.Reset() // keep the buffer from growing without bound
			h.m.live.stream.flushed = 0
		}
	}
}

// BenchmarkViewportBaseline is the cost the virtual transcript avoids: a
// bubbles viewport over the whole 2,000-message transcript must be handed
// every line again whenever anything changes (SetContentLines walks them
// all), once per streaming frame or spinner tick.
func BenchmarkViewportBaseline(b *testing.B) {
	h := newHarness(b, func(o *Options) { o.History = benchHistory(2000) })
	rc := testCtx(120)
	var all []string
	for i := range h.m.tr.entries {
		all = append(all, h.m.tr.lines(i, rc)...)
	}
	vp := viewport.New(viewport.WithWidth(120), viewport.WithHeight(40))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		vp.SetContentLines(all)
		vp.GotoBottom()
		_ = vp.View()
	}
	b.ReportMetric(float64(len(all)), "lines")
}

// BenchmarkFirstFrame is the screen's share of the time to first frame:
// building the model, the first size and the first View.
func BenchmarkFirstFrame(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m := New(Options{Port: portOf(&fakeAgent{}), Provider: "openai", Model: "gpt-4.1", NoColor: true, MaxIterations: 90})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = m.View()
		m.shutdown()
	}
}

// benchParagraph is paragraph i of a long streamed answer: prose, now and
// then a list or a code block.
func benchParagraph(i int) string {
	switch i % 5 {
	case 3:
		return fmt.Sprintf("- point %d about the parser\n- and a **second** one\n\n", i)
	case 4:
		return fmt.Sprintf("```go\nfunc step%d() error { return nil }\n```\n\n", i)
	}
	return fmt.Sprintf("Paragraph %d: the parser fails because the trailing comma is consumed twice; **fix** it in `skip` and add a test for the case.\n\n", i)
}

// BenchmarkStreamingAnswerFrame measures one streaming frame of an answer
// that has grown by a paragraph since the last frame (so its stable
// boundary moved), with 50 and 400 paragraphs already streamed. Only the
// new text is rendered, so the cost per frame does not grow with the
// answer.
func BenchmarkStreamingAnswerFrame(b *testing.B) {
	th, _ := themes.Lookup("dark")
	st := th.Styles()
	rc := &renderCtx{width: 100, st: &st, md: newMarkdown(th.Glamour())}
	for _, n := range []int{50, 400} {
		b.Run(fmt.Sprintf("paragraphs=%d", n), func(b *testing.B) {
			var a *assistantItem
			start := func() {
				a = &assistantItem{streaming: true}
				for i := range n {
					a.write(benchParagraph(i))
				}
				a.flush()
				a.render(rc)
			}
			start()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%50 == 49 { // keep the answer near n paragraphs
					b.StopTimer()
					start()
					b.StartTimer()
				}
				a.write(benchParagraph(n + i%50))
				a.flush()
				_ = a.render(rc)
			}
		})
	}
}
