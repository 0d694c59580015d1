package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
)

// streamChunk is the size of one streamed delta in the stream benchmarks:
// what the side-by-side measurement with Crush used (24 bytes, 1 ms
// apart), so about 100 deltas arrive between two frame ticks.
const streamChunk = 24

// corpusAnswer reads one answer of ui/testdata/answers.
func corpusAnswer(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "answers", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// streamModel is a screen as the program runs it: the dark theme (code
// highlighted), 120×40, a turn started.
func streamModel(tb testing.TB, clk *clock) *Model {
	m := New(Options{
		Port: portOf(&fakeAgent{}), Provider: "openai", Model: "gpt-4.1", Cwd: "/work/repo",
		SessionID: "0a1b2c3d4e5f", Theme: "dark", MaxIterations: 90, ContextLength: 128000, Now: clk.Now,
	})
	m.term = termEnv{lookPath: noProgram}
	tb.Cleanup(m.shutdown)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(eventsMsg{evs: []loop.Event{turnStarted(1, "review the service module")}})
	_ = m.View()
	return m
}

// streamThrough plays text through Update and View in streamChunk deltas,
// one event batch each (the UI keeps up, so each wait finds one event),
// with a frame tick every 100 deltas (100 ms at 1 ms a delta); then the
// completed message and the turn's end. It returns how long the
// message.completed Update and the View after it took: the lag of the
// last line behind the stream.
func streamThrough(m *Model, clk *clock, text string) time.Duration {
	for i, n := 0, 0; i < len(text); i, n = i+streamChunk, n+1 {
		d := &loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: text[i:min(len(text), i+streamChunk)]}
		m.Update(eventsMsg{evs: []loop.Event{d}})
		_ = m.View()
		if n%100 == 99 {
			clk.advance(frameInterval)
			m.Update(frameMsg{})
			_ = m.View()
		}
	}
	start := time.Now()
	m.Update(eventsMsg{evs: []loop.Event{&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: text, FinishReason: "stop"}}})
	_ = m.View()
	lag := time.Since(start)
	m.Update(eventsMsg{evs: []loop.Event{&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), Completed: true, FinalResponse: text, APICalls: 1}}})
	_ = m.View()
	return lag
}

// cpuTime is the CPU time (user and system) the process has used: the
// benchmark's own goroutine and the collector's, on every core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamAnswer streams the corpus's 43 KB and 86 KB answers
// through the real Update/View path (see streamThrough) and reports the
// process CPU per KB of answer (cpu-ms/KB, the collector included) and
// the cost of the last frame, from message.completed to the View that
// shows the last line (last-frame-ms, the median over the iterations).
func BenchmarkStreamAnswer(b *testing.B) {
	for _, name := range []string{"11-review-43k.md", "12-review-86k.md"} {
		text := corpusAnswer(b, name)
		b.Run(strings.TrimSuffix(name, ".md"), func(b *testing.B) {
			var lags []time.Duration
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				clk := &clock{now: t0}
				m := streamModel(b, clk)
				c0 := cpuTime()
				b.StartTimer()
				lags = append(lags, streamThrough(m, clk, text))
				b.StopTimer()
				cpu += cpuTime() - c0
				m.shutdown()
				b.StartTimer()
			}
			kb := float64(len(text)) / 1024
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N)/kb, "cpu-ms/KB")
			sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
			b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "last-frame-ms")
		})
	}
}

// BenchmarkStreamHeadless is the headless equivalent of
// BenchmarkStreamAnswer: the same events, each encoded as a JSON line
// (what talaria -p --json writes for each), and the final answer
// written out once.
func BenchmarkStreamHeadless(b *testing.B) {
	for _, name := range []string{"11-review-43k.md", "12-review-86k.md"} {
		text := corpusAnswer(b, name)
		b.Run(strings.TrimSuffix(name, ".md"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var cpu time.Duration
			for b.Loop() {
				c0 := cpuTime()
				enc := json.NewEncoder(io.Discard)
				for i := 0; i < len(text); i += streamChunk {
					d := &loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: text[i:min(len(text), i+streamChunk)]}
					if err := enc.Encode(d); err != nil {
						b.Fatal(err)
					}
				}
				for _, ev := range []loop.Event{
					&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: text, FinishReason: "stop"},
					&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), Completed: true, FinalResponse: text, APICalls: 1},
				} {
					if err := enc.Encode(ev); err != nil {
						b.Fatal(err)
					}
				}
				_, _ = fmt.Fprintln(io.Discard, text)
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N)/(float64(len(text))/1024), "cpu-ms/KB")
		})
	}
}

// BenchmarkStreamKeystroke is a typed character (Update and View) while
// the 86 KB answer streams: key echo must not pay for the answer.
func BenchmarkStreamKeystroke(b *testing.B) {
	clk := &clock{now: t0}
	m := streamModel(b, clk)
	m.comp.born = time.Time{}
	text := corpusAnswer(b, "12-review-86k.md")
	half := text[:len(text)/2]
	for i, n := 0, 0; i < len(half); i, n = i+streamChunk, n+1 {
		m.Update(eventsMsg{evs: []loop.Event{&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: half[i:min(len(half), i+streamChunk)]}}})
		if n%100 == 99 {
			clk.advance(frameInterval)
			m.Update(frameMsg{})
		}
	}
	k := keyMsg("x")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.Update(k)
		_ = m.View()
		if i%200 == 199 {
			m.comp.clear()
		}
	}
}
